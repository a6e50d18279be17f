//! The GPU suite: the shipped lessons' case table handed to the library's entry, one libtest trial
//! per case (`cargo test --release --test kernels`), exactly as a project that adopts kernelgate
//! writes its own.

kernelgate::main!(kernelgate_lessons::table());
