// SPDX-FileCopyrightText: Copyright (c) 2024-2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Modified for kernelgate (see README.md in this folder): the upstream build script runs bindgen,
// which needs libclang on the build machine. This one compiles the same C shim with `cc` and copies
// bindings that were generated once with upstream's bindgen settings and checked in
// (src/bindings/<arch>-linux.rs), so a build needs only a C compiler.

#![allow(clippy::unwrap_used)]
#![allow(clippy::expect_used)]

use std::{
    env,
    path::{Path, PathBuf},
};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=c");
    println!("cargo:rerun-if-changed=src/bindings");

    // The checked-in bindings are those of the feature set without `cuda`, `cuda_runtime` and
    // `tools` (`std` and `alloc` do not change them). Other feature sets need other bindings.
    for feature in ["CUDA", "CUDA_RUNTIME", "TOOLS"] {
        if env::var_os(format!("CARGO_FEATURE_{feature}")).is_some() {
            fail(&format!(
                "feature `{}` is enabled, but the checked-in bindings were generated without it; depend on \
                 nvtx with `default-features = false` and without that feature, or regenerate the bindings \
                 with it (vendor/nvtx-sys/README.md)",
                feature.to_lowercase()
            ));
        }
    }

    // The bindings depend on the target only through C's type sizes and `wchar_t`: fixed by the
    // SysV x86-64 and AAPCS64 ABIs on Linux (wchar_t: int on x86-64, unsigned int on aarch64).
    let os = env::var("CARGO_CFG_TARGET_OS").expect("cargo sets CARGO_CFG_TARGET_OS");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").expect("cargo sets CARGO_CFG_TARGET_ARCH");
    let bindings = match (os.as_str(), arch.as_str()) {
        ("linux", "x86_64" | "aarch64") => Path::new("src/bindings").join(format!("{arch}-linux.rs")),
        _ => fail(&format!(
            "no checked-in NVTX bindings for target os `{os}`, arch `{arch}` (only Linux x86_64 and \
             aarch64); generating them needs libclang: add the target to vendor/nvtx-sys/regenerate and \
             run it (vendor/nvtx-sys/README.md), or drop the [patch.crates-io] entry of nvtx-sys in \
             Cargo.toml to build the upstream crate, which runs bindgen"
        )),
    };

    cc::Build::new()
        .include("c/include")
        .opt_level(2)
        .file(Path::new("c/src/lib.c"))
        .compile("nvtx");

    let out_path = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bindings.rs");
    std::fs::copy(&bindings, &out_path)
        .unwrap_or_else(|e| fail(&format!("cannot copy {} to {}: {e}", bindings.display(), out_path.display())));
}

/// Stops the build with `message`, shown by cargo as this crate's build error.
fn fail(message: &str) -> ! {
    eprintln!("error: nvtx-sys (vendored by kernelgate, vendor/nvtx-sys): {message}");
    std::process::exit(1);
}
