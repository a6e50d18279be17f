//! The kernel folders' reader, kernels and definitions, tested on the CPU.

use super::*;

#[test]
fn every_file_is_read_with_its_hash_and_entries() {
    let sources = for_tests();
    assert!(sources.len() >= 4, "kernels/ holds the four memory-access families");
    for s in sources {
        assert_eq!(s.sha256.len(), 64, "{}", s.file);
        let folder = if s.is_own() { "<kernelgate>" } else { "kernels" };
        assert_eq!(s.path, format!("{folder}/{}", s.file));
        assert!(!s.entries.is_empty() || !s.templates.is_empty(), "{}", s.file);
        for e in s.entries.iter().chain(s.templates) {
            assert!(s.source.contains(&format!(" {e}(")), "{} lists {e}", s.file);
        }
    }
    let files: Vec<_> = sources.iter().map(|s| s.file).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
}

#[test]
fn definitions_make_another_kernel_named_by_them_in_one_order() {
    let reduce = Kernel::new("reduce.cu", "reduce");
    let a = reduce.define("ITEMS", 4).define("BLOCK", 256);
    let b = reduce.define("BLOCK", 256).define("ITEMS", 4);
    assert_eq!(a, b, "the order of the definitions makes no other kernel");
    assert!(std::ptr::eq(a.defines, b.defines), "interned");
    assert_eq!(a.defines, ["-DBLOCK=256", "-DITEMS=4"]);
    assert_ne!(a, reduce.define("BLOCK", 128).define("ITEMS", 4));
    assert_eq!(a.name(), "reduce -DBLOCK=256 -DITEMS=4");
    assert_eq!(reduce.name(), "reduce");
    assert_eq!(a.options(&["--use_fast_math"]), ["--use_fast_math", "-DBLOCK=256", "-DITEMS=4"]);
    let instance = k::blocksum::block_sum.with("128, 4").define("WIDE", 1);
    assert_eq!(instance.name(), "block_sum<128, 4> -DWIDE=1");
    assert!(instance.is_instance());
}

#[test]
fn a_definition_that_is_not_one_nvrtc_argument_is_refused_with_the_fix() {
    let reduce = Kernel::new("reduce.cu", "reduce");
    let refused = |f: fn(Kernel) -> Kernel| {
        let e = std::panic::catch_unwind(|| f(reduce)).unwrap_err();
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let spaced = refused(|k| k.define("BLOCK", "2 * 128"));
    assert!(
        spaced.starts_with("reduce::reduce.define(\"BLOCK\", \"2 * 128\"): the value is one NVRTC argument"),
        "{spaced}"
    );
    let empty = refused(|k| k.define("BLOCK", ""));
    assert!(empty.contains("the value of BLOCK is empty; give one (-DBLOCK=1)"), "{empty}");
    let digit = refused(|k| k.define("2BLOCK", 1));
    assert!(digit.contains("\"2BLOCK\" is not a macro name: a macro name is a C identifier"), "{digit}");
    assert!(refused(|k| k.define("BLOCK SIZE", 1)).contains("a macro name is a C identifier"));
    let twice = refused(|k| k.define("BLOCK", 1).define("BLOCK", 2));
    assert!(twice.contains("BLOCK is defined already (-DBLOCK=1); define each name once"), "{twice}");
    let ptx = std::panic::catch_unwind(|| Kernel::new("softmax.ptx", "rows").define("BLOCK", 1)).unwrap_err();
    let ptx = ptx.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(ptx.contains("softmax.ptx is a prebuilt module") && ptx.contains("nvcc -ptx -DBLOCK=1"), "{ptx}");
}

#[test]
fn the_own_constants_are_the_own_files_entries() {
    for (all, file) in [(&own_k::planted::ALL[..], "planted.cu"), (&own_k::ceilings::ALL[..], "ceilings.cu")] {
        let source = own().iter().find(|s| s.file == file).unwrap();
        assert!(source.is_own() && source.path == format!("<kernelgate>/{file}"));
        let named: Vec<&str> = all.iter().map(|k| k.entry).collect();
        assert_eq!(named, source.entries, "{file}");
        assert!(all.iter().all(|k| k.declared_in(source).is_ok()));
    }
}

#[test]
fn a_folder_is_read_as_it_is_now_and_a_bad_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_folder(dir.path(), "kernels").unwrap_err().to_string();
    assert!(err.contains("holds no .cu, .ptx, .cubin or .fatbin file"), "{err}");
    std::fs::write(dir.path().join("b.cu"), "extern \"C\" __global__ void b(float* x) { x[0] = 1; }\n").unwrap();
    std::fs::write(dir.path().join("a.cu"), "extern \"C\" __global__ void a(float* x) { x[0] = 1; }\n").unwrap();
    let read = read_folder(dir.path(), "kernels").unwrap();
    assert_eq!(
        read.iter().map(|s| (s.file, s.entries)).collect::<Vec<_>>(),
        [("a.cu", &["a"][..]), ("b.cu", &["b"][..])]
    );
    // An edit is seen by the next read: nothing is built in.
    std::fs::write(dir.path().join("a.cu"), "extern \"C\" __global__ void a2(float* x) { x[0] = 2; }\n").unwrap();
    let again = read_folder(dir.path(), "kernels").unwrap();
    assert_eq!(again[0].entries, ["a2"]);
    assert_ne!(again[0].sha256, read[0].sha256);
    std::fs::write(dir.path().join("c.cu"), "__device__ float helper(float x) { return x; }\n").unwrap();
    let err = read_folder(dir.path(), "kernels").unwrap_err().to_string();
    assert!(err.starts_with("kernels/c.cu: declares no `extern \"C\" __global__` kernel"), "{err}");
    let err = read_folder(&dir.path().join("missing"), "missing").unwrap_err().to_string();
    assert!(
        err.contains("cannot read the kernel folder") && err.contains("kernels` names in kernelgate.toml"),
        "{err}"
    );
}

#[test]
fn a_prebuilt_ptx_module_is_read_with_its_entries_and_a_file_without_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ptx =
        ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry rows(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n";
    std::fs::write(dir.path().join("softmax.ptx"), ptx).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a kernel file").unwrap();
    let read = read_folder(dir.path(), "build/ptx").unwrap();
    assert_eq!(read.len(), 1);
    let s = read[0];
    assert_eq!(
        (s.file, s.path, s.entries, s.templates.is_empty()),
        ("softmax.ptx", "build/ptx/softmax.ptx", &["rows"][..], true)
    );
    assert!(s.is_ptx() && !s.is_own());
    assert!(Kernel::new("softmax.ptx", "rows").declared_in(&s).is_ok());
    std::fs::write(dir.path().join("softmax.ptx"), ".version 9.0\n.target sm_80\n.func f()\n{\n}\n").unwrap();
    let err = read_folder(dir.path(), "build/ptx").unwrap_err().to_string();
    assert!(err.starts_with("build/ptx/softmax.ptx: declares no `.entry`"), "{err}");
}

/// A cubin is read from its bytes with its kernels; one cut short, or a PTX file given the
/// extension, is named with its fault, and the run stops there.
#[test]
fn a_cubin_is_read_with_its_kernels_and_a_corrupt_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let image = std::fs::read(crate::source::fixture_path("cubin/kernels.cubin")).unwrap();
    std::fs::write(dir.path().join("fused.cubin"), &image).unwrap();
    let read = read_folder(dir.path(), "build/sm90").unwrap();
    let s = read[0];
    assert_eq!((s.file, s.entries), ("fused.cubin", &["_Z4tmplILi4EEvPf", "axpy", "calls", "mixed"][..]));
    assert!(s.is_prebuilt() && !s.is_ptx() && crate::cubin::from_text(s.source).as_deref() == Some(&image[..]));
    assert!(Kernel::new("fused.cubin", "axpy").declared_in(&s).is_ok());
    std::fs::write(dir.path().join("fused.cubin"), &image[..image.len() / 3]).unwrap();
    let err = read_folder(dir.path(), "build/sm90").unwrap_err().to_string();
    assert!(err.starts_with("build/sm90/fused.cubin: is not a whole cubin"), "{err}");
    std::fs::write(dir.path().join("fused.cubin"), ".version 9.0\n.target sm_90\n").unwrap();
    let err = read_folder(dir.path(), "build/sm90").unwrap_err().to_string();
    assert!(err.starts_with("build/sm90/fused.cubin: is not a cubin: it does not start with the ELF magic"), "{err}");
    assert!(err.contains("nvcc -cubin -arch=sm_XY"), "{err}");
}

#[test]
fn several_folders_are_read_as_one_and_a_file_name_twice_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = |name: &str| format!("extern \"C\" __global__ void {name}(float* x) {{ x[0] = 1; }}\n");
    for (path, name) in [("kernels/b.cu", "b"), ("src/cuda/a.cu", "a")] {
        std::fs::create_dir_all(dir.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(path), kernel(name)).unwrap();
    }
    let settings = crate::project::Settings::parse("kernels = [\"kernels\", \"src/cuda\"]", "t".as_ref()).unwrap();
    let project = Project::new(dir.path(), None, settings, &crate::config::Config::default());
    let read = read_project(&project).unwrap();
    assert_eq!(
        read.iter().map(|s| (s.file, s.path)).collect::<Vec<_>>(),
        [
            ("a.cu", "src/cuda/a.cu"),
            ("b.cu", "kernels/b.cu"),
            ("ceilings.cu", "<kernelgate>/ceilings.cu"),
            ("planted.cu", "<kernelgate>/planted.cu")
        ]
    );
    assert_eq!(project_kernels_sha256(&read), kernels_sha256(&read[..2]), "the library's own are not the project's");
    std::fs::write(dir.path().join("src/cuda/b.cu"), kernel("b2")).unwrap();
    let err = read_project(&project).unwrap_err().to_string();
    assert!(err.starts_with("src/cuda/b.cu: has the file name of kernels/b.cu"), "{err}");
    std::fs::remove_file(dir.path().join("src/cuda/b.cu")).unwrap();
    std::fs::write(dir.path().join("src/cuda/planted.cu"), kernel("p")).unwrap();
    let err = read_project(&project).unwrap_err().to_string();
    assert!(err.starts_with("src/cuda/planted.cu: has the name of one of kernelgate's own kernel files"), "{err}");
}

#[test]
fn a_file_carries_the_projects_nvrtc_options_and_an_unknown_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("third_party")).unwrap();
    for name in ["a", "b"] {
        let text = format!("extern \"C\" __global__ void {name}(float* x) {{ x[0] = 1; }}\n");
        std::fs::write(dir.path().join(format!("kernels/{name}.cu")), text).unwrap();
    }
    let text = "[nvrtc]\noptions = [\"--use_fast_math\"]\n[nvrtc.files.\"b.cu\"]\noptions = [\"-DB=1\"]\ninclude = [\"third_party\"]\n";
    let settings = crate::project::Settings::parse(text, "t".as_ref()).unwrap();
    let project = Project::new(dir.path(), None, settings, &crate::config::Config::default());
    let read = read_project(&project).unwrap();
    let options = |file: &str| read.iter().find(|s| s.file == file).unwrap().options.to_vec();
    assert_eq!(options("a.cu"), ["--use_fast_math"]);
    let include = format!("--include-path={}", dir.path().join("third_party").display());
    assert_eq!(options("b.cu"), ["--use_fast_math", "-DB=1", include.as_str()]);
    assert!(options("planted.cu").is_empty(), "the library's own files keep kernelgate's options");
    let text = "[nvrtc.files.\"c.cu\"]\noptions = [\"-DC=1\"]\n";
    let settings = crate::project::Settings::parse(text, "t".as_ref()).unwrap();
    let project = Project::new(dir.path(), None, settings, &crate::config::Config::default());
    let err = read_project(&project).unwrap_err().to_string();
    assert!(err.contains("[nvrtc.files.\"c.cu\"] names no kernel file of the kernel folders"), "{err}");
    // A misspelt file in the project's file: its line, and the file meant.
    let file = dir.path().join("kernelgate.toml");
    let text = "[nvrtc]\noptions = [\"--use_fast_math\"]\n\n[nvrtc.files.\"bb.cu\"]\noptions = [\"-DB=1\"]\n";
    std::fs::write(&file, text).unwrap();
    let settings = crate::project::Settings::parse(text, &file).unwrap();
    let project = Project::new(dir.path(), Some(file), settings, &crate::config::Config::default());
    let err = read_project(&project).unwrap_err().to_string();
    assert!(err.contains("kernelgate.toml:4"), "{err}");
    assert!(err.contains("names no kernel file of the kernel folders; did you mean b.cu? name a file"), "{err}");
}

#[test]
fn a_child_reading_other_kernels_than_its_run_stops() {
    let sources = for_tests();
    assert_eq!(sources.kernels_sha256(), kernels_sha256(sources.as_slice()));
    assert!(same_as_parent(sources, &kernels_sha256(sources.as_slice())).is_ok());
    let err = same_as_parent(sources, &"0".repeat(64)).unwrap_err().to_string();
    assert!(err.starts_with("kernels: changed while the run went on (the run read kernels 000000000000"), "{err}");
    // Another read of the same folders is the same kernels; one file fewer is not.
    let again = Sources::new(sources.iter().rev().copied().collect());
    assert!(same_as_parent(&again, &sources.kernels_sha256()).is_ok(), "the order they are handed in is not kept");
    let fewer = Sources::new(sources.iter().filter(|s| s.file != "transpose.cu").copied().collect());
    assert!(same_as_parent(&fewer, &sources.kernels_sha256()).is_err());
}

#[test]
fn a_kernel_gone_since_the_build_is_named_with_the_fix() {
    let sources = for_tests();
    assert!(sources.declares(&k::transpose::transpose_naive).is_ok());
    assert!(sources.declares(&k::blocksum::block_sum.with("128, 4")).is_ok());
    let gone = Kernel::new("transpose.cu", "transpose_renamed");
    let err = sources.declares(&gone).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "kernels/transpose.cu: no longer declares the extern \"C\" __global__ kernel `transpose_renamed`"
        ),
        "{err}"
    );
    assert!(err.contains("`transpose_naive`"), "what the file declares: {err}");
    assert!(
        err.contains(
            "rename `k::transpose::transpose_renamed` in the case table too (`grep -rnw transpose_renamed` \
             over its files finds it), then bless the new name: KERNELGATE_BLESS=1 cargo test --release --test \
             kernels -- compile/transpose.cu/"
        ),
        "the constant to rename and the bless: {err}"
    );
    let err = sources.declares(&Kernel::new("blocksum.cu", "block_max<1>")).unwrap_err().to_string();
    assert!(err.contains("kernel template `block_max`"), "{err}");
    let err = sources.declares(&Kernel::new("gone.cu", "g")).unwrap_err().to_string();
    assert!(err.starts_with("gone.cu: is gone from the kernel folders since the crate was built"), "{err}");
    // Nothing read: every file is gone.
    let err = Sources::default().declares(&k::transpose::transpose_naive).unwrap_err().to_string();
    assert!(err.starts_with("transpose.cu: is gone from the kernel folders"), "{err}");
}

#[test]
fn generated_constants_point_into_their_files() {
    let sources = for_tests();
    let kernel = k::transpose::transpose_shared_padded;
    assert_eq!(kernel.file, "transpose.cu");
    assert!(sources.of(&kernel).unwrap().entries.contains(&"transpose_shared_padded"));
    // The helper is `__device__`, not an entry point.
    assert!(!sources.of(&k::vectorization::saxpy_vec4).unwrap().entries.contains(&"saxpy_vec4_body"));
}

#[test]
fn a_file_is_found_by_its_name_with_its_path_and_options() {
    let sources = for_tests();
    let transpose = sources.get("transpose.cu").unwrap();
    assert_eq!((transpose.file, transpose.path), ("transpose.cu", "kernels/transpose.cu"));
    assert_eq!(sources.path_of("transpose.cu"), "kernels/transpose.cu");
    assert_eq!(sources.path_of("planted.cu"), "<kernelgate>/planted.cu", "the library's own are found too");
    assert_eq!(sources.path_of("gone.cu"), "gone.cu", "a file the run did not read is named as given");
    assert!(sources.get("gone.cu").is_none() && sources.options_of("gone.cu").is_empty());
    assert_eq!(sources.options_of("transpose.cu"), transpose.options);
    let files: Vec<&str> = sources.iter().map(|s| s.file).collect();
    assert_eq!(files, sources.as_slice().iter().map(|s| s.file).collect::<Vec<_>>());
    assert_eq!(sources.project_kernels_sha256(), project_kernels_sha256(sources.as_slice()));
}

#[test]
fn a_template_instance_is_named_by_its_name_expression_once() {
    let a = k::blocksum::block_sum.with(" 256, 8 ");
    assert_eq!(a, Kernel::new("blocksum.cu", "block_sum<256, 8>"));
    assert!(a.is_instance() && !k::smem::stage_reversed.is_instance());
    assert!(std::ptr::eq(a.entry, k::blocksum::block_sum.with("256, 8").entry), "interned");
    assert_eq!(for_tests().of(&a).unwrap().templates, ["block_sum"]);
}

#[test]
#[should_panic(expected = "give the template arguments")]
fn an_unbalanced_template_argument_list_is_a_case_table_error() {
    let _ = k::blocksum::block_sum.with("cub::WarpReduce<float");
}
