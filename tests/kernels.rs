//! `cargo test --release --test kernels`: every case of `kernels/` as a libtest trial.
//! See harness/suite.rs; flags are libtest's, options are `KERNELGATE_*` variables (README).

fn main() -> std::process::ExitCode {
    // Which NVRTC this run compiles with, first (not for `--list`, whose output tools parse, nor in
    // the child that ncu profiles).
    let listing = std::env::args().any(|a| a == "--list");
    if !listing && std::env::var_os(kernelgate::ncu::run::CHILD_ENV).is_none() {
        println!("{}", kernelgate::nvrtc::run_header());
    }
    kernelgate::suite::main()
}
