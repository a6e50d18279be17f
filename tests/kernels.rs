//! `cargo test --release --test kernels`: every case of `kernels/` as a libtest trial.
//! See harness/suite.rs; flags are libtest's, options are `KERNELGATE_*` variables (docs/options.md).

fn main() -> std::process::ExitCode {
    kernelgate::suite::main()
}
