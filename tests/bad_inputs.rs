//! The bad-input corpus (tests/fixtures/bad-inputs.csv): every input gives a clear error that names
//! the file, line or variable and the fix, and leaves every file that was there byte-identical.
//! Also: truncation of each file of a small store at every line and at every byte.

mod support;

use kernelgate::gate::baseline::Baseline;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The good store every bad input is made from.
fn good_store() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store")
}

/// A copy of the good store in a new temporary folder.
fn copy_store(sealed: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(good_store()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    if !sealed {
        std::fs::remove_file(dir.path().join("manifest.json")).unwrap();
    }
    // As a folder some writer has written before: readers take the shared lock and read once.
    std::fs::write(dir.path().join(".kernelgate.lock"), "").unwrap();
    dir
}

/// Every file in `dir` with the SHA-256-free fingerprint a test needs: its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != ".kernelgate.lock")
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// `\n` and `\xHH` escapes of the corpus's `write` edits.
fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'\\', Some(b'n')) => {
                out.push(b'\n');
                i += 2;
            }
            (b'\\', Some(b'x')) => {
                out.push(u8::from_str_radix(&text[i + 2..i + 4], 16).unwrap());
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Applies one corpus edit to `file` in `dir` (`*`: every CSV file).
fn edit(dir: &Path, file: &str, kind: &str, a: &str, b: &str) {
    if file == "*" {
        for name in ["baseline.csv", "samples.csv", "run_to_run.csv"] {
            edit(dir, name, kind, a, b);
        }
        return;
    }
    let path = dir.join(file);
    let old = std::fs::read(&path).unwrap_or_default();
    let text = String::from_utf8_lossy(&old).into_owned();
    let new: Vec<u8> = match kind {
        "cut_lines" => text.lines().take(a.parse().unwrap()).map(|l| format!("{l}\n")).collect::<String>().into(),
        "cut_bytes" => old[..a.parse().unwrap()].to_vec(),
        "replace" => {
            assert!(text.contains(a), "{file} has no {a:?}");
            text.replacen(a, b, 1).into()
        }
        "replace_all" => text.replace(a, b).into(),
        "append" => format!("{text}{a}\n").into(),
        "write" => unescape(a),
        "delete" => {
            std::fs::remove_file(&path).unwrap();
            return;
        }
        other => panic!("unknown edit {other}"),
    };
    std::fs::write(&path, new).unwrap();
}

fn kernelgate(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = support::command(support::kernelgate_binary());
    cmd.args(args).env_remove("KERNELGATE_MIN_EFFECT").env_remove("KERNELGATE_ALPHA");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// The error of one corpus row, after checking that nothing it touched changed.
fn run_row(row: &csv::StringRecord) -> String {
    let field = |i: usize| row.get(i).unwrap_or_default();
    let (input, seal, file, kind, a, b) = (field(1), field(2), field(3), field(4), field(5), field(6));
    match input {
        "env" => {
            let value = kind.to_string();
            let err = kernelgate::Config::from_lookup(|name| (name == file).then(|| value.clone())).unwrap_err();
            err.to_string()
        }
        "cli" => {
            let store = copy_store(true);
            let before = contents(store.path());
            let path = store.path().to_string_lossy().into_owned();
            let args: Vec<String> = kind.split(' ').map(|w| w.replace("STORE", &path)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let baselines = tempfile::tempdir().unwrap();
            let g = baselines.path().join("g");
            std::fs::create_dir(&g).unwrap();
            for (name, bytes) in &before {
                std::fs::write(g.join(name), bytes).unwrap();
            }
            let b = baselines.path().to_string_lossy().into_owned();
            // The row's own variable (if any) comes last, so it wins over the default folder.
            let mut env = vec![("KERNELGATE_BASELINES", b.as_str())];
            env.extend(file.split_once('='));
            let (code, text) = kernelgate(&args, &env);
            assert!(code == 1 || code == 2, "{}: exit {code}: {text}", field(0));
            assert_eq!(contents(store.path()), before, "{}: nothing changed", field(0));
            assert_eq!(contents(&g), before, "{}: nothing changed", field(0));
            text
        }
        "store" | "compare" => {
            let dir = copy_store(seal == "sealed");
            edit(dir.path(), file, kind, a, b);
            let before = contents(dir.path());
            let text = if input == "store" {
                let loaded = Baseline::load(dir.path()).unwrap_err().to_string();
                // A writer refuses the same folder, and writes nothing either.
                let written = Baseline::update(dir.path(), |base| Ok(Some(base.remove(&["copy/vec4/1048576".into()]))))
                    .unwrap_err()
                    .to_string();
                assert_eq!(loaded, written, "{}: load and update refuse alike", field(0));
                loaded
            } else {
                let good = good_store().to_string_lossy().into_owned();
                let (code, text) = kernelgate(&["compare", &good, &dir.path().to_string_lossy()], &[]);
                assert_eq!(code, 1, "{}: {text}", field(0));
                text
            };
            assert_eq!(contents(dir.path()), before, "{}: every file byte-identical", field(0));
            text
        }
        other => panic!("unknown input kind {other}"),
    }
}

#[test]
fn every_bad_input_is_named_with_its_fix_and_changes_nothing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad-inputs.csv");
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let mut count = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let message = run_row(&row);
        for part in row.get(7).unwrap_or_default().split('|') {
            assert!(message.contains(part), "{}: {part:?} missing from:\n{message}", row.get(0).unwrap());
        }
        count += 1;
    }
    assert!(count >= 40, "the corpus has {count} inputs");
}

#[test]
fn a_store_cut_at_any_line_or_byte_is_refused_by_name() {
    let good = contents(&good_store());
    for name in ["baseline.csv", "samples.csv", "run_to_run.csv"] {
        let full = &good[name];
        let lines = full.iter().filter(|&&b| b == b'\n').count();
        let mut cuts: Vec<usize> =
            full.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1).take(lines - 1).collect();
        cuts.push(0);
        cuts.extend((0..full.len()).step_by(13));
        for cut in cuts {
            let dir = copy_store(true);
            std::fs::write(dir.path().join(name), &full[..cut]).unwrap();
            let before = contents(dir.path());
            let e = Baseline::load(dir.path()).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(&format!("holds {cut} bytes")) && e.contains("reseal"), "{e}");
            assert!(Baseline::update(dir.path(), |_| Ok(Some(()))).is_err());
            assert_eq!(contents(dir.path()), before);
        }
    }
}
