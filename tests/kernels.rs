//! `cargo test --release --test kernels`: every case of the shipped suite's table as a libtest
//! trial. See harness/suite/mod.rs; flags are libtest's, options are `KERNELGATE_*` variables
//! (docs/options.md).

fn main() -> std::process::ExitCode {
    kernelgate::suite::main(kernelgate::cases::table())
}
