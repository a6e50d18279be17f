//! The docs against the code, on the CPU: `docs/options.md` holds the table of every
//! `KERNELGATE_*` variable that `kernelgate::config::vars` defines; every `KERNELGATE_*` name in
//! the sources, scripts and docs is one of them, and every one of them is read somewhere; every
//! relative link in `README.md` and `docs/*.md` leads to a file (and heading) that exists; the
//! README stays at most 200 lines.

mod support;

use kernelgate::config::vars::{self, VARS};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use support::markdown::{Kind, docs, files, lines, read, root};

const BEGIN: &str = "<!-- vars:begin (generated: cargo run --release --bin kernelgate -- vars --markdown) -->\n";
const END: &str = "<!-- vars:end -->";

#[test]
fn options_md_holds_the_variables_table() {
    let path = root().join("docs/options.md");
    let text = read(&path);
    let expected = vars::markdown();
    let table = text
        .split_once(BEGIN)
        .and_then(|(_, rest)| rest.split_once(END))
        .map(|(table, _)| table)
        .unwrap_or_else(|| panic!("{}: no table between the lines\n{BEGIN}and\n{END}", path.display()));
    if table != expected {
        // The whole file as it should be, to copy over the committed one.
        let fixed = root().join("target/kernelgate/options.md");
        let (head, rest) = text.split_once(BEGIN).unwrap();
        let tail = &rest[rest.find(END).unwrap()..];
        std::fs::create_dir_all(fixed.parent().unwrap()).unwrap();
        std::fs::write(&fixed, format!("{head}{BEGIN}{expected}{tail}")).unwrap();
        panic!(
            "docs/options.md's table is not harness/config/vars.rs's VARS. Regenerate it: \
             `cargo run --release --bin kernelgate -- vars --markdown` prints the table, and {} is the \
             whole file with it (cp {} docs/options.md). The table:\n{expected}",
            fixed.display(),
            fixed.display()
        );
    }
}

/// Every `KERNELGATE_[A-Z_]+` in `text`, with its line. A name that ends in `_` is a prefix
/// (`format!("KERNELGATE_REQUIRE_{what}")`, `starts_with("KERNELGATE_")`).
fn names(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("KERNELGATE_") {
            let tail = &rest[at + "KERNELGATE_".len()..];
            let len = tail.bytes().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_').count();
            out.push((format!("KERNELGATE_{}", &tail[..len]), i + 1));
            rest = &tail[len..];
        }
    }
    out
}

/// Names with the prefix that are not variables, with why.
const NOT_VARIABLES: &[(&str, &str)] = &[
    ("KERNELGATE_BIN", "scripts/benchmark-calibration: the name of its first argument, the kernelgate program"),
    ("KERNELGATE_X", "docs/troubleshooting.md: any variable, in the message an invalid value gets"),
];

#[test]
fn every_kernelgate_name_is_in_the_table_and_every_variable_is_read() {
    let table: BTreeSet<&str> = VARS.iter().map(|v| v.name).collect();
    let known = |name: &str| {
        table.contains(name)
            || NOT_VARIABLES.iter().any(|(n, _)| *n == name)
            || (name.ends_with('_') && table.iter().any(|v| v.starts_with(name)))
    };
    let vars_rs = root().join("harness/config/vars.rs");
    let mut sources = files("harness", &[]);
    sources.extend(files("scripts", &[]));
    sources.extend(files("tests", &["tests/fixtures"]));
    sources.extend([".ci/run", "build.rs", ".config/nextest.toml"].map(|p| root().join(p)));
    let mut unknown = Vec::new();
    let mut used: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in sources.iter().chain(&docs()) {
        for (name, line) in names(&read(path)) {
            if !known(&name) {
                unknown.push(format!("{}:{line}: {name}", path.strip_prefix(root()).unwrap().display()));
            }
            if *path != vars_rs && !path.starts_with(root().join("docs")) && *path != root().join("README.md") {
                used.entry(name).or_insert_with(|| path.clone());
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "KERNELGATE_* names that harness/config/vars.rs's VARS does not define (add the variable there, \
         or fix the name):\n{}",
        unknown.join("\n")
    );
    let unread: Vec<&str> = table.iter().copied().filter(|name| !used.contains_key(*name)).collect();
    assert!(unread.is_empty(), "in VARS, but no source or script outside vars.rs names them: {unread:?}");
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_lowercase().next().unwrap()),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings (`## Title`), with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in lines(text).into_iter().filter(|l| l.kind == Kind::Prose).map(|l| l.text) {
        let hashes = line.bytes().take_while(|b| *b == b'#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = anchor(&line[hashes..]);
            let mut a = base.clone();
            let mut n = 0;
            while out.contains(&a) {
                n += 1;
                a = format!("{base}-{n}");
            }
            out.insert(a);
        }
    }
    out
}

/// The targets of the Markdown links `[text](target)` in `text`, outside code, with their line.
fn links(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for line in lines(text).into_iter().filter(|l| l.kind == Kind::Prose) {
        // Code spans hold no links.
        let prose: String = line.text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let Some(end) = tail.find(')') else { break };
            out.push((tail[..end].to_string(), line.number));
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for doc in docs() {
        let text = read(&doc);
        let here = doc.strip_prefix(root()).unwrap().display().to_string();
        for (target, line) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() { doc.clone() } else { doc.parent().unwrap().join(file) };
            if !path.exists() {
                broken.push(format!("{here}:{line}: {target}: no such file"));
            } else if !(fragment.is_empty() || path.is_file() && anchors(&read(&path)).contains(fragment)) {
                broken.push(format!("{here}:{line}: {target}: no heading with the anchor #{fragment}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// resource-gate.md gives nvdisasm's search order as `kernelgate::toolkit::places` makes it: the
/// variable first (and alone), then each place the code searches, in the code's order. The places
/// come from the code with the variables' values standing for their names.
#[test]
fn the_nvdisasm_search_order_of_the_docs_is_the_codes() {
    use kernelgate::toolkit::{Places, places};
    let spec = &kernelgate::sass::nvdisasm::SPEC;
    let text = read(&root().join("docs/resource-gate.md"));
    let at = text.find("`KERNELGATE_NVDISASM` when it is set").expect("the search in resource-gate.md");
    let paragraph = &text[at..at + text[at..].find("\n- ").expect("the next item")];
    let set = |k: &str| (k == spec.env_var).then(|| "/opt/nvdisasm".to_string());
    assert_eq!(places(spec, &set, "/r".as_ref()), Places::Given("/opt/nvdisasm".into()), "the variable, alone");
    let env = |k: &str| match k {
        "CUDA_HOME" => Some("/cuda-home".to_string()),
        "CUDA_PATH" => Some("/cuda-path".to_string()),
        "PATH" => Some("/path-folder".to_string()),
        _ => None,
    };
    let Places::Search(searched) = places(spec, &env, "/root".as_ref()) else { panic!("no variable set") };
    let mut last = 0;
    for place in searched {
        let named = place
            .display()
            .to_string()
            .replace("/root/", "<project root>/")
            .replace("/cuda-home/", "$CUDA_HOME/")
            .replace("/cuda-path/", "$CUDA_PATH/")
            .replace("/path-folder/nvdisasm", "the folders of `PATH`");
        let found = paragraph.find(&named).unwrap_or_else(|| panic!("{named} is not named: {paragraph}"));
        assert!(found > last, "{named} is out of the code's order: {paragraph}");
        last = found;
    }
}

/// The README is what a newcomer reads in five minutes; the rest is in docs/.
#[test]
fn the_readme_is_short() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(lines <= 200, "README.md has {lines} lines; at most 200: move reference text into docs/ (docs/README.md)");
}

#[test]
fn the_checks_themselves() {
    assert_eq!(anchor("Same-run A/B: the pull-request gate"), "same-run-ab-the-pull-request-gate");
    assert_eq!(
        anchor("Reading an existing capture: `kernelgate import-ncu`"),
        "reading-an-existing-capture-kernelgate-import-ncu"
    );
    assert_eq!(anchors("# a\n## a\n```\n# b\n```\n"), BTreeSet::from(["a".to_string(), "a-1".to_string()]));
    assert_eq!(links("see [x](a.md#b) and `[y](no)`\n  ```\n[z](code)\n  ```\n"), vec![("a.md#b".to_string(), 1)]);
    let kinds: Vec<Kind> = lines("a\n```sh\nls\n```\nb\n  ```\n  x\n  ```\n").iter().map(|l| l.kind).collect();
    use Kind::{Code, Fence, Prose};
    assert_eq!(kinds, [Prose, Fence, Code("sh"), Fence, Prose, Fence, Code(""), Fence]);
    assert_eq!(
        names("KERNELGATE_AB=1 KERNELGATE_REQUIRE_{x} \"KERNELGATE_\""),
        [("KERNELGATE_AB", 1), ("KERNELGATE_REQUIRE_", 1), ("KERNELGATE_", 1)].map(|(n, l)| (n.to_string(), l))
    );
}

/// The fenced block that follows the line that starts with `marker` in `text` (without its fences).
fn block_after(text: &str, marker: &str) -> String {
    let rest = &text[text.find(marker).unwrap_or_else(|| panic!("no line {marker:?}"))..];
    let fence = rest.split_once('\n').expect("a line after the marker").1;
    assert!(fence.starts_with("```"), "a fence right after the marker: {fence:.40}");
    let body = fence.split_once('\n').expect("the block").1;
    body[..body.find("\n```").expect("a closing fence")].to_string()
}

/// The committed run CSV of 8c8c911 (schema 5) as the current schema writes it: the module's
/// options and element types (schema 7; empty: that run did not record them) and the median
/// interval's columns (empty too), the seed as hex, the bus id after `pci:` (schema 6).
fn as_current_schema(text: &str) -> String {
    use kernelgate::record::{RUN_CSV_SCHEMA, pci_text, seed_text};
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let old: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| old.iter().position(|c| c == name).unwrap();
    let (module, statistic) = (col("module_sha256") + 1, col("statistic"));
    let mut header = old.clone();
    header.splice(statistic..statistic, ["median_ci_low_s".to_string(), "median_ci_high_s".to_string()]);
    header.splice(module..module, ["compile_options".to_string(), "element_types".to_string()]);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    for record in reader.records() {
        let mut row: Vec<String> = record.unwrap().iter().map(String::from).collect();
        row[0] = RUN_CSV_SCHEMA.to_string();
        row[col("seed")] = seed_text(row[col("seed")].parse().unwrap());
        row[col("pci_bus_id")] = pci_text(&row[col("pci_bus_id")]);
        row.splice(statistic..statistic, [String::new(), String::new()]);
        row.splice(module..module, [String::new(), String::new()]);
        w.write_record(&row).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

/// reading-results.md's Python example (csv and sqlite3 only) runs on a run CSV of the current schema and of
/// schema 5 and on a history imported from it, and gives the seed exactly; history.md's sqlite3
/// query runs on that history. Without python3 (not one of the README's prerequisites) the
/// example is skipped, said on stderr, and the query still runs (through rusqlite);
/// `KERNELGATE_REQUIRE_PYTHON=1` makes its absence a failure.
#[test]
fn the_loading_examples_run() {
    let committed = root().join("baselines/nvidia-h200-sm90/runs/20261201T165209Z-8c8c911.csv");
    let old = read(&committed);
    let tmp = tempfile::tempdir().unwrap();
    let new = tmp.path().join("runs/20261201T165209Z-8c8c911.csv");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::write(&new, as_current_schema(&old)).unwrap();
    assert!(read(&new).contains(",pci:00000000:00:06.0,4223.206434886277,0xe8c012517de17ad1,1.0,"));
    let history = tmp.path().join("history");
    let imported =
        kernelgate::history::import(std::slice::from_ref(&new), &history, None, "baselines".as_ref()).unwrap();
    assert_eq!((imported.runs, imported.new_rows), (1, old.lines().count() - 1));
    let store = history.join("nvidia-h200-sm90.sqlite");

    let example = block_after(&read(&root().join("docs/reading-results.md")), "<!-- run by tests/docs.rs:");
    let python = support::python3_found("docs/reading-results.md's Python example");
    for csv in [&new, &committed].into_iter().filter(|_| python) {
        let o = std::process::Command::new("python3")
            .arg("-")
            .arg(csv)
            .arg(&store)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write as _;
                child.stdin.take().unwrap().write_all(example.as_bytes())?;
                child.wait_with_output()
            })
            .expect("python3, which ran a moment ago");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}\n{out}{}", csv.display(), String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("\nKERNELGATE_SEED=16771425153541307089\n"), "the seed exactly: {out}");
        assert!(out.contains("coalescing/copy/67108864: median 0.000202"), "{out}");
        assert_eq!(out.lines().filter(|l| l.contains(": median ")).count(), 77, "{out}");
        assert_eq!(out.lines().filter(|l| l.starts_with("8c8c911 20261201T165209Z ")).count(), 77, "{out}");
    }

    let howto = read(&root().join("docs/history.md"));
    let query = howto.split("nvidia-h200-sm90.sqlite \\\n      \"").nth(1).unwrap().split('"').next().unwrap();
    let conn = rusqlite::Connection::open(&store).unwrap();
    let mut stmt = conn.prepare(query).unwrap();
    let rows: Vec<(String, f64)> =
        stmt.query_map([], |r| Ok((r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 77);
    assert!(rows.iter().all(|(trial, median)| !trial.is_empty() && *median > 0.0), "{rows:?}");
}
