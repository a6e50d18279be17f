//! Writes `src/bindings/<arch>-linux.rs` of the vendored nvtx-sys for every target it supports,
//! with the bindgen settings of nvtx-sys 2.0.0's own build script (features `std`/`alloc` only:
//! no `cuda`, `cuda_runtime` or `tools`).
//!
//! Run from anywhere: `cargo run --manifest-path vendor/nvtx-sys/regenerate/Cargo.toml`.
//! Needs libclang (Debian: `apt-get install libclang-dev`).

use std::path::Path;

/// Rust target arch -> clang target triple. The C headers are parsed freestanding (clang's own
/// `stddef.h`/`stdint.h`), so no cross libc is needed; with `NVTX_NO_IMPL` the public NVTX headers
/// include nothing else. For x86-64 the result was checked to equal a hosted parse (README.md).
const TARGETS: [(&str, &str); 2] = [("x86_64", "x86_64-unknown-linux-gnu"), ("aarch64", "aarch64-unknown-linux-gnu")];

fn main() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("regenerate/ sits inside nvtx-sys");
    // bindgen formats with rustfmt, which reads the rustfmt.toml nearest the current folder: the
    // crate's own (rustfmt defaults, as upstream), not kernelgate's.
    std::env::set_current_dir(crate_dir).expect("cd into the nvtx-sys folder");
    let include = crate_dir.join("c/include");
    let out_dir = crate_dir.join("src/bindings");
    std::fs::create_dir_all(&out_dir).expect("create src/bindings");
    let freestanding = std::env::args().nth(1).as_deref() != Some("--hosted");
    for (arch, triple) in TARGETS {
        if !freestanding && !triple.starts_with(std::env::consts::ARCH) {
            continue;
        }
        // From here to `.blocklist_type(".*fntype.*")`: nvtx-sys 2.0.0's build.rs, verbatim, except
        // that the target and freestanding flags are added and `CargoCallbacks` is dropped (it only
        // prints rerun-if-changed lines for cargo).
        let mut builder = bindgen::Builder::default()
            .clang_arg(format!("--target={triple}"))
            .use_core()
            .detect_include_paths(true)
            .clang_arg("-I")
            .clang_arg(include.to_str().expect("UTF-8 path"))
            .header(include.join("wrapper.h").to_str().expect("UTF-8 path"))
            .layout_tests(false)
            .allowlist_recursively(false)
            .generate_comments(false)
            .generate_cstr(true)
            .default_alias_style(bindgen::AliasVariation::TypeAlias)
            .default_enum_style(bindgen::EnumVariation::Rust { non_exhaustive: false })
            .constified_enum_module("nvtxResource.*_t")
            .c_naming(false)
            .default_macro_constant_type(bindgen::MacroTypeVariation::Signed)
            .sort_semantically(true)
            .translate_enum_integer_types(true)
            .wrap_unsafe_ops(true)
            .must_use_type("nvtx[^R][^e][^s].*_t")
            .allowlist_type("nvtx[^_].*")
            .allowlist_var("NVTX_VERSION")
            .allowlist_function("nvtx.*")
            .allowlist_type("wchar_t")
            .allowlist_type("CU.*")
            .allowlist_type("cuda.*")
            .blocklist_type("__.*")
            .blocklist_type(".*fntype.*");
        if freestanding {
            builder = builder.clang_arg("-ffreestanding");
        }
        let bindings = builder.generate().unwrap_or_else(|e| panic!("bindgen failed for {triple}: {e}"));
        let file = out_dir.join(format!("{arch}-linux.rs"));
        bindings.write_to_file(&file).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
        println!("wrote {} ({triple}{})", file.display(), if freestanding { ", freestanding" } else { ", hosted" });
    }
}
