//! The shipped suite's build script: one call of kernelgate's build helper over `kernels/` (the
//! folders `kernelgate.toml` names), which writes the kernel constants `cases/` names kernels by
//! (`k::<file>::<kernel>`) and the git state of this build (`BUILD`), included by `cases/lib.rs`
//! with `kernelgate::kernels!()`.
//!
//! The suite's cases live in `cases/` and the library it is built against in `harness/` (both in
//! this repository), so those are its inputs rather than the helper's default `src/` and `tests/`.

fn main() {
    kernelgate_build::Build::new()
        .inputs(["build.rs", "Cargo.lock", "Cargo.toml", "kernelgate.toml", "harness", "cases"])
        .run();
}
