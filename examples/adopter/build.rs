//! Names the kernels of gpu/ (kernelgate.toml's `kernels`) for tests/kernels.rs.
fn main() {
    kernelgate_build::Build::new().run();
}
