//! Every shell command that README.md and docs/*.md tell a user to run, run here where it needs no
//! GPU, so that a documented command that no longer runs as written fails CI.
//!
//! The commands are the lines of ```` ```sh ````, ```` ```bash ````, ```` ```shell ```` and
//! ```` ```console ```` blocks (a console block's `$ ` lines), of indented code blocks, and the
//! inline code spans that begin with a program (`kernelgate …`, `cargo …`, `scripts/…`, `git …`,
//! …; [`PROGRAMS`]). Workflow files (```` ```yaml ````) are a CI system's recipes: the suite
//! commands in them need a GPU runner, and pull-requests.md says they were not run here.
//!
//! Each command is read as the docs write it: `cargo run --release --bin kernelgate --`,
//! `target/release/kernelgate` and `.gpu/bin/kernelgate` are the `kernelgate` program; a synopsis
//! (`[--metric median|all|NAME]`, `bmf|nvbench`, `TRIAL...`) stands for every command it allows,
//! each of which is classified and run on its own. [`RULES`] says, for each, whether it runs here
//! and with which exit code (the one the docs promise), or why not (a GPU, the network, a whole
//! build, a tool CI lacks, the user's own files); a command no rule covers fails the test, naming
//! its file and line, so new docs cannot pass unseen. A command that runs has its placeholders
//! (`<stem>`, `OLD`, `FILE`) replaced from [`PLACEHOLDERS`] by committed fixtures and is run by
//! bash in a copy of the project's data (kernels/, baselines/ without the benchmark archives,
//! tests/fixtures/, a history imported from `baselines/*/runs`, the A/A run records of
//! `benchmark/b2.tgz` in `target/kernelgate/runs/`, as a run leaves them), with the built
//! `kernelgate` first on `PATH`; a command that writes gets a fresh copy. It must exit with the
//! code its rule gives, never 2 (a command line the program refuses) and never with a panic.
//!
//! An inline span that only names a command (`kernelgate history gate`, `kernelgate compare
//! --alpha`, `scripts/nightly`) is checked to exist: `kernelgate … --help` lists each flag it
//! names, and a script is a file of the repository. A span written `cargo run --release --bin
//! kernelgate -- …` is typed as it stands, so it is a command.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::markdown::{self, Kind};

/// Why a command is not run here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    /// It needs a GPU: the suite's GPU trials, staged binaries on a runner, ncu profiling,
    /// compute-sanitizer.
    Gpu,
    /// It downloads or uploads: PyPI, apt, a git remote.
    Network,
    /// It builds the crate or runs the whole test suite (this test included).
    Slow,
    /// It needs a program that CI's image does not have.
    Tool,
    /// It acts on the user's own files, repository or processes (a fix a message names).
    Yours,
    /// A pattern or a mention, not a command line (`kernelgate diff …`, `cargo run`).
    Pattern,
}

/// What a documented command needs besides the `kernelgate` program and bash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// NVRTC and nvdisasm (`scripts/get-nvrtc`); without them the command is not run, or fails
    /// under `KERNELGATE_REQUIRE_NVRTC=1` (CI).
    CompileTools,
    /// python3; without it the command is not run, or fails under `KERNELGATE_REQUIRE_PYTHON=1`.
    Python,
}

/// What to do with a command.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// Run it: it exits with `exit`; `fresh`: it writes the project's data (a baseline, the
    /// history), so it gets a copy of its own; `shows`: a text its stdout and stderr must hold
    /// (the docs quote it), or "".
    Run { exit: i32, fresh: bool, needs: Needs, shows: &'static str },
    /// Do not run it, for this reason.
    Skip(Why, &'static str),
}

const fn run(exit: i32) -> Rule {
    Rule::Run { exit, fresh: false, needs: Needs::Nothing, shows: "" }
}

/// A command that writes the baselines or the history: run in a copy of its own.
const fn run_fresh(exit: i32) -> Rule {
    Rule::Run { exit, fresh: true, needs: Needs::Nothing, shows: "" }
}

const fn run_needing(needs: Needs, exit: i32, shows: &'static str) -> Rule {
    Rule::Run { exit, fresh: false, needs, shows }
}

const fn skip(why: Why, reason: &'static str) -> Rule {
    Rule::Skip(why, reason)
}

const SUITE: &str = "the suite itself: its GPU trials need a GPU (without one they are ignored, and its compile \
                     trials are what `cargo test --release` runs anyway, this test's own run included)";

/// Each documented command (after its `VAR=value` words, its program read as `kernelgate`, a
/// synopsis expanded; placeholders not yet replaced) against these patterns in order, `*`
/// matching any text; the first whole match decides.
const RULES: &[(&str, Rule)] = &[
    // The kernelgate program on the committed data.
    ("kernelgate history runs", run(0)),
    ("kernelgate history import baselines/*/runs", run(0)),
    ("kernelgate history import <baselines>/*/runs", run(0)),
    ("kernelgate history sync", run_fresh(0)),
    ("kernelgate history sync --fetch *", skip(Why::Network, "fetches the notes from a git remote")),
    ("kernelgate history show *", run(0)),
    ("kernelgate history changes*", run(0)),
    // The committed history's newest run (8c8c911) has two `regressed` trials: exit 3, as
    // history.md and reading-results.md's exit codes say.
    ("kernelgate history gate --format json | jq .outcome", run_needing(Needs::Python, 3, "regressed")),
    ("kernelgate history gate*", run(3)),
    ("kernelgate history previous --run *", run(0)),
    // The committed history holds no A/B run, so no control: the command says where they come from.
    ("kernelgate history quality*", run(0)),
    ("kernelgate diff *", run(0)),
    ("kernelgate export --format *", run(0)),
    ("kernelgate baseline list", run(0)),
    ("kernelgate baseline show *", run(0)),
    ("kernelgate baseline remove *", run_fresh(0)),
    ("kernelgate baseline calibrate *", run_fresh(0)),
    ("kernelgate baseline bless *", run_fresh(0)),
    ("kernelgate baseline reseal *", run_fresh(0)),
    // --scale 1.02 slows the run's samples by 2 %: the gate finds regressions (exit 3), as
    // baselines.md means it to.
    ("kernelgate compare * --scale 1.02*", run(3)),
    ("kernelgate compare *", run(0)),
    (
        "kernelgate import-ncu *.ncu-rep*",
        skip(Why::Tool, "reads a .ncu-rep through Nsight Compute's ncu, which CI does not have"),
    ),
    ("kernelgate import-ncu *", run(0)),
    ("kernelgate vars", run(0)),
    ("kernelgate lessons *", run(0)),
    (
        "kernelgate compile <the edited copy of vectorization.cu> --arch sm_90",
        run_needing(
            Needs::CompileTools,
            1,
            "copy_vec4: instructions 17 → 23, global_ld 1 → 4, global_ld.32 0 → 4, global_ld.128 1 → 0",
        ),
    ),
    // An instance no case launches has no blessed rows: the gates fail it (exit 3), by its name.
    ("kernelgate compile draft/*", skip(Why::Yours, "a draft kernel of the user's (tested in compile_command.rs)")),
    ("kernelgate compile * --instance *", run_needing(Needs::CompileTools, 3, "block_sum<64, 2>: not in")),
    ("kernelgate compile *", run_needing(Needs::CompileTools, 0, "")),
    ("kernelgate bisect *", skip(Why::Gpu, "times commits in same-run A/B steps of the suite")),
    ("kernelgate init", skip(Why::Yours, "writes a scaffold into the user's project (tested in init.rs)")),
    ("kernelgate init *", skip(Why::Yours, "writes a scaffold into the user's project (tested in init.rs)")),
    ("kernelgate …", skip(Why::Pattern, "any kernelgate command")),
    ("tar xzf baselines/nvidia-h200-sm90/benchmark/b2.tgz -C /tmp", run(0)),
    ("mkdir -p out/lessons", run(0)),
    ("scripts/benchmark-report *", run_needing(Needs::Python, 0, "## A/A")),
    // The suite and cargo.
    ("cargo test --release --test kernels*", skip(Why::Gpu, SUITE)),
    ("cargo test --release", skip(Why::Slow, "every test of the crate: the command that runs this one")),
    ("cargo test --release --lib", skip(Why::Slow, "the library's unit tests: `cargo test --release` runs them")),
    ("cargo test", skip(Why::Pattern, "named: the suite's one process against nextest's many")),
    ("cargo build --release", skip(Why::Slow, "builds the crate again without its dev-dependencies")),
    ("cargo build", skip(Why::Pattern, "named: the build a change of CUDA_HOME repeats")),
    ("cargo build -v", skip(Why::Slow, "builds the user's crate to show why cargo rebuilds cudarc")),
    ("cargo doc --no-deps -p kernelgate --open", skip(Why::Slow, "builds the library's docs and opens a browser")),
    (
        "cargo doc --manifest-path <kernelgate>/harness/Cargo.toml --no-deps --open",
        skip(Why::Slow, "builds the library's docs and opens a browser"),
    ),
    ("cargo doc -p kernelgate", skip(Why::Pattern, "named: what fails in an adopter's crate")),
    ("cargo install --locked --path <kernelgate>/harness", skip(Why::Slow, "installs the kernelgate program")),
    (
        "cargo run --release --manifest-path <kernelgate>/harness/Cargo.toml *",
        skip(Why::Yours, "in the user's project"),
    ),
    ("<kernelgate>/scripts/get-nvrtc *", skip(Why::Network, "downloads NVRTC into the user's project")),
    ("kernelgate = { git = *", skip(Why::Pattern, "a line of the user's Cargo.toml")),
    ("cargo install cargo-nextest --locked", skip(Why::Network, "downloads and builds cargo-nextest")),
    ("cargo nextest run --release*", skip(Why::Gpu, "the suite under cargo-nextest (not in CI's image)")),
    (".gpu/bin/kernels*", skip(Why::Gpu, "the staged suite on a GPU runner")),
    (".gpu/bin/", skip(Why::Pattern, "the staged binaries' folder (scripts/stage)")),
    ("ncu --nvtx *", skip(Why::Gpu, "profiles a trial with Nsight Compute")),
    ("ncu --import *", skip(Why::Tool, "Nsight Compute's ncu, which CI does not have")),
    (
        "examples/adopter/scripts/build-modules*",
        skip(Why::Tool, "nvcc, which CI does not have (scripts/get-nvrtc unpacks NVRTC and ptxas, not nvcc)"),
    ),
    ("ncu --csv *", skip(Why::Tool, "Nsight Compute's ncu, which CI does not have")),
    ("compute-sanitizer *", skip(Why::Gpu, "the sanitizer's child on the GPU")),
    ("nvidia-smi *", skip(Why::Gpu, "locks a GPU's clocks")),
    // Scripts.
    (
        "scripts/get-nvrtc",
        skip(
            Why::Network,
            "downloads NVRTC, nvdisasm, the toolkit's headers and CCCL from PyPI; .ci/run runs it first",
        ),
    ),
    ("scripts/stage", skip(Why::Slow, "builds the suite and the CLI in release and copies them into .gpu/bin")),
    ("scripts/nightly*", skip(Why::Gpu, "the nightly gate on a GPU runner")),
    ("scripts/gpu-suite *", skip(Why::Gpu, "runs the staged suite on a runner")),
    ("scripts/gpu-benchmark *", skip(Why::Gpu, "the gate's benchmark on a runner")),
    // The runner image (docs/runners.md): .ci/run runs its steps without docker.
    (
        "scripts/runner-image build *",
        skip(Why::Slow, "builds and stages the binaries (scripts/stage) into a folder; .ci/run runs it"),
    ),
    ("eval \"$(scripts/runner-image env *)\"", run(0)),
    (
        "scripts/runner-image check *",
        skip(Why::Slow, "the compile trials with the binaries of `build`; .ci/run runs it after build"),
    ),
    (
        "docker build *",
        skip(Why::Tool, "docker's daemon, which CI lacks; .ci/run runs the image's steps with scripts/runner-image"),
    ),
    ("docker run *", skip(Why::Gpu, "the runner image on a GPU host (the NVIDIA Container Toolkit)")),
    // Downloads, other tools, the user's own state.
    ("apt-get install *", skip(Why::Network, "installs Debian packages")),
    ("python3 -m pip install *", skip(Why::Network, "installs nvbench's script's packages from PyPI")),
    ("python3 -m venv .venv && .venv/bin/pip install *", skip(Why::Network, "installs NVRTC from PyPI")),
    ("git push *", skip(Why::Network, "pushes the notes to a remote")),
    ("git fetch *", skip(Why::Network, "fetches from a remote")),
    ("git notes --ref=kernelgate merge *", skip(Why::Network, "merges the notes the fetch above brought")),
    ("git notes --ref=kernelgate add *", skip(Why::Yours, "an example of a note line kernelgate did not write")),
    ("git notes --ref=kernelgate edit *", skip(Why::Yours, "opens the user's note in an editor")),
    ("git checkout -- *", skip(Why::Yours, "restores the user's damaged baseline folder")),
    (
        "git clean -ffdx*",
        skip(Why::Pattern, "what a CI system's checkout step runs in a kept checkout, quoted; it deletes target/"),
    ),
    ("git log --first-parent *", skip(Why::Yours, "reads the user's own commits")),
    ("git reflog refs/notes/kernelgate", skip(Why::Yours, "lists where the user's notes ref was")),
    ("git update-ref*", skip(Why::Yours, "moves or removes the user's notes ref")),
    ("git remote -v", skip(Why::Yours, "lists the user's remotes")),
    ("git submodule add *", skip(Why::Network, "clones kernelgate into the user's repository")),
    ("git notes --ref=kernelgate show *", skip(Why::Yours, "shows the user's note of a commit")),
    ("kill *", skip(Why::Yours, "ends or resumes the user's stopped process")),
    ("sqlite3 FILE.damaged .recover | sqlite3 FILE", skip(Why::Yours, "recovers the user's damaged history store")),
    (
        "sqlite3 -readonly *",
        skip(Why::Tool, "the sqlite3 program is not in CI's image; tests/docs.rs runs this query through rusqlite"),
    ),
    ("iconv *", skip(Why::Yours, "converts the user's UTF-16 capture")),
];

/// The words that begin an inline code span holding a command; a word ending in `/` is a folder
/// whose files are programs.
const PROGRAMS: &[&str] = &[
    "kernelgate",
    "target/release/kernelgate",
    ".gpu/bin/",
    "cargo",
    "scripts/",
    ".ci/",
    "ncu",
    "compute-sanitizer",
    "nvidia-smi",
    "python3",
    "git",
    "sqlite3",
    "tar",
    "mkdir",
    "apt-get",
    "kill",
    "iconv",
];

/// What each placeholder of a command that runs stands for: a committed fixture, as the
/// workspace holds it ([`workspace`]). Replaced in this order, where the text is not part of a
/// longer word.
const PLACEHOLDERS: &[(&str, &str)] = &[
    // A run's outputs in target/kernelgate/runs/: the committed run of 8c8c911 for a run CSV, one
    // of benchmark/b2.tgz's A/A run records (commit 93b90bf, as the H200 wrote them) for a record.
    ("<stem>.csv", "20261201T165209Z-8c8c911.csv"),
    ("<stem>-baseline", "20261130T042332Z-93b90bf-baseline"),
    ("BASE RUN", "baselines/nvidia-h200-sm90 target/kernelgate/runs/20261130T042332Z-93b90bf-baseline"),
    // The committed history: its runs of two commits, one run of each.
    ("OLD NEW", "72a91c3 8c8c911"),
    ("<A> <B>", "72a91c3 8c8c911"),
    ("diff …", "diff 72a91c3 8c8c911"),
    ("COMMIT", "72a91c3"),
    ("RUN_ID", "20261201T165209Z"),
    ("RUN_CSV", "baselines/nvidia-h200-sm90/runs/20261201T165209Z-8c8c911.csv"),
    ("<its run CSV>", "baselines/nvidia-h200-sm90/runs/20261201T165209Z-8c8c911.csv"),
    ("<its exit code>", "0"),
    ("CODE", "0"),
    ("NAME", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("--markdown FILE", "--markdown report.md"),
    ("--html FILE", "--html report.html"),
    ("TRIAL", "transpose/shared/8192x8192"),
    ("FOLDER", "baselines/nvidia-h200-sm90"),
    // The project's baselines folder (`baselines = ...` of kernelgate.toml): this repository's.
    ("<baselines>", "baselines"),
    ("<folder>", "baselines/nvidia-h200-sm90"),
    // kernelgate compile: a small file of the suite, and the edit resource-gate.md describes.
    ("kernels/x.cu", "kernels/coalescing.cu"),
    ("<the edited copy of vectorization.cu>", "tmp/edited/vectorization.cu"),
    ("capture.csv", "harness/tests/fixtures/ncu/ncu-2025.3.1-h200/saxpy_raw.csv"),
    // The lessons CSVs that the recipe in lessons.md writes: the committed ten runs of it.
    ("out/lessons/runs", "baselines/nvidia-h200-sm90/runs/lessons"),
    // The ten runs of ci.md's calibration: b2.tgz's nine A/A runs (the blessed run is the tenth).
    ("target/cal/*/runs/*-baseline", "tmp/b2/aa/*/runs/*-baseline"),
    // baselines.md extracts b2.tgz into /tmp; here into the workspace's tmp/.
    ("-C /tmp", "-C tmp"),
    ("/tmp/b2/", "tmp/b2/"),
    // scripts/benchmark-report: a benchmark output folder (b2's) and an A/A run CSV of the schema
    // it reads (2 or 3).
    ("--aa-csv RUN.csv", "--aa-csv baselines/nvidia-h200-sm90/runs/20261130T034039Z-64fef93.csv"),
    ("OUT", "tmp/b2"),
    // jq is not in CI's image: the same selection in python3.
    ("| jq .outcome", "| python3 -c 'import json, sys; print(json.load(sys.stdin)[\"outcome\"])'"),
];

// ---------------------------------------------------------------------------------------------
// Finding the commands.

/// A command the docs hold, at its file and line, as written (whitespace collapsed).
#[derive(Clone, Debug, PartialEq, Eq)]
struct DocCommand {
    file: String,
    line: usize,
    text: String,
    /// An inline code span (which may only name a command) rather than a code block's line.
    inline: bool,
}

/// The commands of the Markdown `text` of `file`, in order of their lines.
fn doc_commands(file: &str, text: &str) -> Vec<DocCommand> {
    let lines = markdown::lines(text);
    let mut out = Vec::new();
    // Fenced shell blocks.
    let mut block: Vec<(usize, &str)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Kind::Code(info) = line.kind {
            let console = info == "console";
            if ["sh", "bash", "shell", "console"].contains(&info) {
                let text = line.text.trim_start();
                if console {
                    if let Some(cmd) = text.strip_prefix("$ ") {
                        block.push((line.number, cmd));
                    }
                } else {
                    block.push((line.number, text));
                }
            }
            let ends = lines.get(i + 1).is_none_or(|next| next.kind == Kind::Fence);
            if ends && !block.is_empty() {
                out.extend(shell_lines(&block).into_iter().map(|(line, text)| DocCommand {
                    file: file.to_string(),
                    line,
                    text,
                    inline: false,
                }));
                block.clear();
            }
        }
    }
    // Indented code blocks: four spaces after a blank line that follows a paragraph, a heading or
    // a table (not a list item, whose indented lines continue it).
    let mut i = 0;
    let mut indented = vec![false; lines.len()];
    while i < lines.len() {
        let starts = lines[i].kind == Kind::Prose
            && lines[i].text.starts_with("    ")
            && i >= 2
            && lines[i - 1].text.trim().is_empty()
            && lines[..i - 1]
                .iter()
                .rev()
                .find(|l| !l.text.trim().is_empty())
                .is_some_and(|l| l.kind == Kind::Prose && !l.text.starts_with(' ') && !is_list_item(l.text));
        if !starts {
            i += 1;
            continue;
        }
        let mut block = Vec::new();
        while i < lines.len() && lines[i].kind == Kind::Prose && lines[i].text.starts_with("    ") {
            indented[i] = true;
            block.push((lines[i].number, lines[i].text.trim_start()));
            i += 1;
        }
        out.extend(shell_lines(&block).into_iter().map(|(line, text)| DocCommand {
            file: file.to_string(),
            line,
            text,
            inline: false,
        }));
    }
    // Inline code spans, in paragraphs of prose (a table row, a heading: each on its own).
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    let flush = |paragraph: &mut Vec<(usize, &str)>, out: &mut Vec<DocCommand>| {
        for (line, span) in code_spans(paragraph) {
            if is_command(&span) {
                out.push(DocCommand { file: file.to_string(), line, text: span, inline: true });
            }
        }
        paragraph.clear();
    };
    for (i, line) in lines.iter().enumerate() {
        let text = line.text.trim_start();
        if line.kind != Kind::Prose || indented[i] || text.is_empty() {
            flush(&mut paragraph, &mut out);
            continue;
        }
        let alone = text.starts_with('|') || text.starts_with('#');
        if alone || is_list_item(text) {
            flush(&mut paragraph, &mut out);
        }
        paragraph.push((line.number, line.text));
        if alone {
            flush(&mut paragraph, &mut out);
        }
    }
    flush(&mut paragraph, &mut out);
    out.sort_by_key(|c| c.line);
    out
}

/// `- item`, `* item`, `1. item`.
fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ") || t.starts_with("* ") || {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && t[digits..].starts_with(". ")
    }
}

/// The commands of a shell block's lines: comments dropped, a line ending in `\` joined with the
/// next, a `for`/`while` loop over several lines joined into one command (`…; do …; done`), each
/// at the line it starts on.
fn shell_lines(block: &[(usize, &str)]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut depth = 0;
    for &(number, raw) in block {
        let text = strip_comment(raw).trim().to_string();
        if text.is_empty() {
            continue;
        }
        let (start, mut cmd) = open.take().unwrap_or((number, String::new()));
        if !cmd.is_empty() {
            let sep = if cmd.ends_with('\\') {
                cmd.pop();
                " "
            } else if cmd.ends_with(" do") || cmd.ends_with(" then") {
                " "
            } else {
                "; "
            };
            cmd = format!("{}{sep}{text}", cmd.trim_end());
        } else {
            cmd = text.clone();
        }
        let first = text.split_whitespace().next().unwrap_or("");
        if ["for", "while", "until", "if"].contains(&first) && !text.ends_with("done") && !text.ends_with("fi") {
            depth += 1;
        }
        if (first == "done" || first == "fi") && depth > 0 {
            depth -= 1;
        }
        if cmd.ends_with('\\') || depth > 0 {
            open = Some((start, cmd));
        } else {
            out.push((start, collapse(&cmd)));
        }
    }
    if let Some((start, cmd)) = open {
        out.push((start, collapse(&cmd)));
    }
    out
}

/// `line` without a shell comment: from a `#` at its start or after a blank, outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => return &line[..i],
            None => {}
        }
        prev = c;
    }
    line
}

/// Runs of whitespace as one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The code spans of a paragraph (its lines with their numbers), each at the line it starts on,
/// whitespace collapsed; in a table row, `\|` is `|`.
fn code_spans(paragraph: &[(usize, &str)]) -> Vec<(usize, String)> {
    let mut text = String::new();
    let mut starts = Vec::new();
    for (number, line) in paragraph {
        starts.push((text.len(), *number));
        text.push_str(line);
        text.push('\n');
    }
    let line_at = |at: usize| starts.iter().rev().find(|(s, _)| *s <= at).map_or(0, |(_, n)| *n);
    let table = paragraph.first().is_some_and(|(_, l)| l.trim_start().starts_with('|'));
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let ticks = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let body = i + ticks;
        // The closing run of exactly as many backticks.
        let mut j = body;
        let close = loop {
            match text[j..].find('`') {
                None => break None,
                Some(k) => {
                    let at = j + k;
                    let run = bytes[at..].iter().take_while(|b| **b == b'`').count();
                    if run == ticks {
                        break Some(at);
                    }
                    j = at + run;
                }
            }
        };
        let Some(close) = close else { break };
        let mut span = collapse(&text[body..close]);
        if table {
            span = span.replace("\\|", "|");
        }
        out.push((line_at(i), span));
        i = close + ticks;
    }
    out
}

/// The words of `text` after its leading `NAME=value` assignments, and those assignments.
fn split_env(text: &str) -> (Vec<&str>, Vec<&str>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let n = words
        .iter()
        .take_while(|w| {
            w.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            })
        })
        .count();
    (words[..n].to_vec(), words[n..].to_vec())
}

/// Whether an inline span is (or names) a command: it begins with a program of [`PROGRAMS`], and
/// is more than one external program's bare name (`python3`, `ncu`).
fn is_command(span: &str) -> bool {
    let (_, words) = split_env(span);
    let Some(first) = words.first() else { return false };
    let program = PROGRAMS.iter().any(|p| if p.ends_with('/') { first.starts_with(p) } else { first == p });
    let bare_name = words.len() == 1 && !first.contains('/') && *first != "kernelgate";
    program && !bare_name
}

/// The command as kernelgate is run: `cargo run --release --bin kernelgate -- X`,
/// `target/release/kernelgate X` and `.gpu/bin/kernelgate X` are `kernelgate X`.
fn normalize(words: &[&str]) -> String {
    let text = words.join(" ");
    for program in ["cargo run --release --bin kernelgate --", "cargo run --release --bin kernelgate"] {
        if let Some(rest) = text.strip_prefix(program)
            && (rest.is_empty() || rest.starts_with(' '))
        {
            return format!("kernelgate{rest}");
        }
    }
    for program in ["target/release/kernelgate", ".gpu/bin/kernelgate"] {
        if let Some(rest) = text.strip_prefix(program)
            && (rest.is_empty() || rest.starts_with(' '))
        {
            return format!("kernelgate{rest}");
        }
    }
    text
}

/// The body of a loop (`for i in …; do BODY; done`), or the command itself.
fn loop_body(text: &str) -> &str {
    let first = text.split_whitespace().next().unwrap_or("");
    if ["for", "while", "until"].contains(&first)
        && let Some((_, rest)) = text.split_once("; do ")
        && let Some(body) = rest.strip_suffix("; done")
    {
        return body;
    }
    text
}

// ---------------------------------------------------------------------------------------------
// A synopsis, expanded.

/// One piece of a synopsis: a word with its alternatives (`bmf|nvbench`), or an optional group.
#[derive(Debug, Clone)]
enum Piece {
    Word(Vec<String>),
    Optional(Vec<Piece>),
}

/// Every command a synopsis allows: each `[...]` group left out and put in, each `a|b` (a `|`
/// inside a word) as each alternative, `X...` as one `X`. A `|` between blanks is a pipe.
fn expand(text: &str) -> Vec<String> {
    fn parse(words: &mut std::vec::IntoIter<String>) -> Vec<Piece> {
        let mut out = Vec::new();
        while let Some(word) = words.next() {
            if let Some(rest) = word.strip_prefix('[')
                && !rest.is_empty()
                && !word.starts_with("[[")
            {
                // An optional group: from here to the word that closes it.
                let mut group = vec![rest.to_string()];
                let mut closed = close_bracket(&mut group);
                while !closed && let Some(next) = words.next() {
                    group.push(next);
                    closed = close_bracket(&mut group);
                }
                out.push(Piece::Optional(parse(&mut group.into_iter())));
                continue;
            }
            let word = word.strip_suffix("...").filter(|w| !w.is_empty()).map(String::from).unwrap_or(word);
            let alternatives: Vec<String> =
                if word.contains('|') && word != "|" && word != "||" && !word.contains(['\'', '"']) {
                    word.split('|').map(String::from).collect()
                } else {
                    vec![word]
                };
            out.push(Piece::Word(alternatives));
        }
        out
    }
    /// Whether the group's last word closes it (`x]` or `x]...`); drops the bracket.
    fn close_bracket(group: &mut [String]) -> bool {
        let last = group.last_mut().unwrap();
        for end in ["]...", "]"] {
            if let Some(w) = last.strip_suffix(end) {
                *last = w.to_string();
                return true;
            }
        }
        false
    }
    fn variants(pieces: &[Piece]) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = vec![Vec::new()];
        for piece in pieces {
            let choices: Vec<Vec<String>> = match piece {
                Piece::Word(alternatives) => alternatives.iter().map(|a| vec![a.clone()]).collect(),
                Piece::Optional(inner) => std::iter::once(Vec::new()).chain(variants(inner)).collect(),
            };
            out = out
                .iter()
                .flat_map(|head| choices.iter().map(move |c| head.iter().chain(c).cloned().collect::<Vec<String>>()))
                .collect();
        }
        out
    }
    // Quoted text is one word here, so that a `|` or `[` inside quotes stays as it is.
    let pieces = parse(&mut shell_words(text).into_iter());
    let mut out: Vec<String> = variants(&pieces).into_iter().map(|w| w.join(" ")).collect();
    out.dedup();
    out
}

/// `text` split at blanks outside quotes, each word as written (quotes kept).
fn shell_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                word.push(c)
            }
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                word.push(c)
            }
            None if c.is_whitespace() => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            None => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether `pattern` (`*` any text) matches the whole of `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The index of the rule that decides `command`, if any.
fn rule_for(command: &str) -> Option<usize> {
    RULES.iter().position(|(pattern, _)| glob(pattern, command))
}

/// `command` with every placeholder of [`PLACEHOLDERS`] replaced (where the placeholder is not
/// part of a longer word), and the indices of those used.
fn substitute(command: &str) -> (String, Vec<usize>) {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut text = command.to_string();
    let mut used = Vec::new();
    for (i, (from, to)) in PLACEHOLDERS.iter().enumerate() {
        let mut at = 0;
        while let Some(found) = text[at..].find(from) {
            let start = at + found;
            let end = start + from.len();
            let before = text[..start].chars().next_back();
            let after = text[end..].chars().next();
            let edge = |c: Option<char>, inner: Option<char>| !(c.is_some_and(word) && inner.is_some_and(word));
            if edge(before, from.chars().next()) && edge(after, from.chars().next_back()) {
                text.replace_range(start..end, to);
                used.push(i);
                at = start + to.len();
            } else {
                at = end;
            }
        }
    }
    (text, used)
}

/// The placeholders left in a command that is to run: `<…>`, `…`, or a word in capitals
/// (`FILE`, `TRIAL`), outside quotes and assignments.
fn placeholders_left(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = command;
    while let Some(a) = rest.find('<') {
        let tail = &rest[a + 1..];
        match tail.find('>') {
            Some(b) if tail.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                out.push(format!("<{}>", &tail[..b]));
                rest = &tail[b + 1..];
            }
            _ => rest = tail,
        }
    }
    if command.contains('…') {
        out.push("…".to_string());
    }
    for word in shell_words(command) {
        if word.starts_with(['\'', '"']) || word.contains('=') {
            continue;
        }
        let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
        if !bare.is_empty()
            && bare.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && bare.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && bare == word.trim_end_matches("...")
        {
            out.push(bare.to_string());
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// kernelgate's commands, from its own --help.

/// The command paths of the `kernelgate` program (`["history", "gate"]`), from its help: each
/// command's `Commands:` section.
fn command_tree() -> Vec<Vec<String>> {
    fn children(path: &[String]) -> Vec<String> {
        let o = kernelgate(path, &["--help"]);
        assert!(o.status.success(), "kernelgate {} --help: {}", path.join(" "), text(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let Some((_, section)) = out.split_once("\nCommands:\n") else { return Vec::new() };
        section
            .lines()
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| *name != "help")
            .map(String::from)
            .collect()
    }
    let mut out = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        for child in children(&path) {
            let mut p = path.clone();
            p.push(child);
            todo.push(p.clone());
            out.push(p);
        }
    }
    out
}

/// The built `kernelgate` with `path` and `args`, in the project root.
fn kernelgate(path: &[String], args: &[&str]) -> Output {
    support::command(support::kernelgate_binary()).current_dir(markdown::root()).args(path).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// When `command` (`kernelgate …`) only names a command: its command path and the flags (with
/// their lower-case values) it names, no argument.
fn named(command: &str, tree: &[Vec<String>]) -> Option<(Vec<String>, Vec<String>)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    if words.first() != Some(&"kernelgate") {
        return None;
    }
    let mut path: Vec<String> = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let mut next = path.clone();
        next.push(words[i].to_string());
        if !tree.contains(&next) {
            break;
        }
        path = next;
        i += 1;
    }
    let mut flags = Vec::new();
    while i < words.len() {
        let w = words[i];
        let value =
            |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        // A flag, or the value of the flag before it.
        let flag = w.starts_with("--") && value(&w[2..]);
        if !(flag || i > 1 && words[i - 1].starts_with("--") && value(w)) {
            return None;
        }
        flags.push(w.to_string());
        i += 1;
    }
    Some((path, flags))
}

// ---------------------------------------------------------------------------------------------
// Where commands run.

/// A copy of the project's data in which documented commands run as in a checkout after a run.
struct Workspace {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

/// `from` copied to `to`, symbolic links as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let kind = e.file_type().unwrap();
        let target = to.join(e.file_name());
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &target).unwrap();
        } else if kind.is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The data the documented commands read, laid out as in a checkout after a GPU run: Cargo.toml,
/// kernels/, baselines/ (of benchmark/ only b2.tgz), tests/fixtures/, scripts/ (a link), the
/// history of `kernelgate history import baselines/*/runs` in .kernelgate/history/, b2.tgz
/// extracted in tmp/ and its A/A run records with the committed run of 8c8c911 in
/// target/kernelgate/runs/, the copy of vectorization.cu that resource-gate.md edits in
/// tmp/edited/, a git repository (no commits: `history sync` reads notes from one), `.nvrtc`
/// linked to the checkout's (`scripts/get-nvrtc`'s), and `.bin/kernelgate`, the built program.
fn workspace() -> Workspace {
    let root = markdown::root();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::copy(root.join("Cargo.toml"), ws.join("Cargo.toml")).unwrap();
    copy_tree(&root.join("kernels"), &ws.join("kernels"));
    copy_tree(&root.join("tests/fixtures"), &ws.join("tests/fixtures"));
    copy_tree(&root.join("harness/tests/fixtures"), &ws.join("harness/tests/fixtures"));
    std::os::unix::fs::symlink(root.join("scripts"), ws.join("scripts")).unwrap();
    for e in std::fs::read_dir(root.join("baselines")).unwrap() {
        let e = e.unwrap();
        let to = ws.join("baselines").join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(e.path()).unwrap() {
                let f = f.unwrap();
                if f.file_name() == "benchmark" {
                    continue;
                }
                if f.file_type().unwrap().is_dir() {
                    copy_tree(&f.path(), &to.join(f.file_name()));
                } else {
                    std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
                }
            }
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let b2 = "baselines/nvidia-h200-sm90/benchmark/b2.tgz";
    std::fs::create_dir_all(ws.join(b2).parent().unwrap()).unwrap();
    std::fs::copy(root.join(b2), ws.join(b2)).unwrap();
    std::fs::create_dir_all(ws.join("tmp/edited")).unwrap();
    let tar = std::process::Command::new("tar").args(["xzf", b2, "-C", "tmp"]).current_dir(&ws).output().unwrap();
    assert!(tar.status.success(), "tar: {}", text(&tar));
    let runs = ws.join("target/kernelgate/runs");
    std::fs::create_dir_all(&runs).unwrap();
    // The case facts a run of the suite binary leaves there, which the kernelgate program reads.
    support::write_case_facts(&ws.join("target/kernelgate"));
    for aa in std::fs::read_dir(ws.join("tmp/b2/aa")).unwrap() {
        let aa = aa.unwrap().path().join("runs");
        if aa.is_dir() {
            copy_tree(&aa, &runs);
        }
    }
    for f in std::fs::read_dir(root.join("baselines/nvidia-h200-sm90/runs")).unwrap() {
        let f = f.unwrap();
        if f.file_name().to_string_lossy().starts_with("20261201T165209Z-8c8c911") {
            std::fs::copy(f.path(), runs.join(f.file_name())).unwrap();
        }
    }
    // resource-gate.md's SASS gate example: copy_vec4's float4 copy as four float copies.
    let source = markdown::read(&root.join("kernels/vectorization.cu"));
    let body = "    if (i < n4) out[i] = in[i];\n";
    assert_eq!(source.matches(body).count(), 1, "kernels/vectorization.cu: copy_vec4's body is no longer {body:?}");
    let edited = source.replacen(
        body,
        "    if (i < n4) {\n        const float* s = (const float*)(in + i);\n        float* d = (float*)(out + i);\n        \
         d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];\n    }\n",
        1,
    );
    std::fs::write(ws.join("tmp/edited/vectorization.cu"), edited).unwrap();
    git2::Repository::init(&ws).unwrap();
    if root.join(".nvrtc").exists() {
        std::os::unix::fs::symlink(root.join(".nvrtc"), ws.join(".nvrtc")).unwrap();
    }
    std::fs::create_dir_all(ws.join(".bin")).unwrap();
    std::os::unix::fs::symlink(support::kernelgate_binary(), ws.join(".bin/kernelgate")).unwrap();
    let import = support::command(support::kernelgate_binary())
        .args(["history", "import", "baselines/nvidia-h200-sm90/runs"])
        .current_dir(&ws)
        .env_remove("KERNELGATE_HISTORY")
        .output()
        .unwrap();
    assert!(import.status.success(), "history import: {}", text(&import));
    Workspace { _dir: dir, path: ws }
}

impl Workspace {
    /// A copy of this workspace; with `link_inputs` (for a command that writes the baselines or
    /// the history, and only reads the rest), kernels/, tests/, tmp/ and target/ are links to this
    /// one's.
    fn copy(&self, link_inputs: bool) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("project");
        std::fs::create_dir_all(&path).unwrap();
        for e in std::fs::read_dir(&self.path).unwrap() {
            let e = e.unwrap();
            let (from, to) = (e.path(), path.join(e.file_name()));
            let kind = e.file_type().unwrap();
            if link_inputs && ["kernels", "tests", "tmp", "target"].contains(&e.file_name().to_str().unwrap()) {
                std::os::unix::fs::symlink(&from, &to).unwrap();
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&from).unwrap(), &to).unwrap();
            } else if kind.is_dir() {
                copy_tree(&from, &to);
            } else {
                std::fs::copy(&from, &to).unwrap();
            }
        }
        Workspace { _dir: dir, path }
    }

    /// `command` run by bash (`pipefail`) in the workspace, the built kernelgate first on `PATH`,
    /// without the caller's `KERNELGATE_*` variables but the compile tools' and CI's switches.
    fn run(&self, command: &str) -> Output {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.path.join(".bin")];
        paths.extend(std::env::split_paths(&path));
        support::command("bash")
            .args(["-o", "pipefail", "-c", command])
            .current_dir(&self.path)
            .env("PATH", std::env::join_paths(paths).unwrap())
            .output()
            .unwrap()
    }
}

// ---------------------------------------------------------------------------------------------
// The test.

/// What became of the documented commands, and of the commands their synopses stand for.
#[derive(Default)]
struct Tally {
    found: usize,
    /// Inline spans that only name a command, checked to exist.
    names: Vec<String>,
    /// Documented commands of which at least one form ran, and the forms that ran.
    commands_run: usize,
    variants_run: usize,
    /// Documented commands of which no form ran, by the reason of the first.
    commands_skipped: BTreeMap<Why, usize>,
    /// The forms not run, by reason, each with its place and rule.
    skipped: BTreeMap<Why, Vec<String>>,
    /// Forms not run for want of NVRTC or python3 here.
    not_run_here: Vec<String>,
    /// The forms run, as run, with their exit codes.
    ran: Vec<String>,
}

#[test]
fn every_documented_command_runs_or_says_why_not() {
    let root = markdown::root();
    let mut commands = Vec::new();
    for doc in markdown::docs() {
        let file = doc.strip_prefix(root).unwrap().display().to_string();
        commands.extend(doc_commands(&file, &markdown::read(&doc)));
    }
    assert!(commands.len() > 50, "found only {} commands in the docs: is the parser broken?", commands.len());
    let tree = command_tree();
    let compile_tools = std::cell::OnceCell::new();
    let python = std::cell::OnceCell::new();
    let template = workspace();
    let shared = template.copy(false);
    let mut rules_used = vec![false; RULES.len()];
    let mut placeholders_used = vec![false; PLACEHOLDERS.len()];
    let mut failures = Vec::new();
    let mut tally = Tally::default();
    for c in &commands {
        tally.found += 1;
        let at = format!("{}:{}", c.file, c.line);
        // A span that names a kernelgate command, or a script: it exists.
        if c.inline {
            let (_, words) = split_env(&c.text);
            // `cargo run --release --bin kernelgate -- vars` is typed as it stands.
            let typed = words.len() > 6 && words[..6] == ["cargo", "run", "--release", "--bin", "kernelgate", "--"];
            if !typed && let Some((path, flags)) = named(&normalize(&words), &tree) {
                tally.names.push(format!("{at}: `{}`", c.text));
                let o = kernelgate(&path, &["--help"]);
                let help = text(&o);
                if !o.status.success() {
                    failures.push(format!("{at}: `{}`: kernelgate {} --help failed: {help}", c.text, path.join(" ")));
                }
                for flag in flags.iter().filter(|f| !help.contains(f.as_str())) {
                    failures.push(format!(
                        "{at}: `{}` names {flag}, which `kernelgate {} --help` does not list",
                        c.text,
                        path.join(" ")
                    ));
                }
                continue;
            }
            if let [word] = words[..]
                && (word.starts_with("scripts/") || word.starts_with(".ci/"))
            {
                tally.names.push(format!("{at}: `{}`", c.text));
                if !root.join(word).exists() {
                    failures.push(format!("{at}: `{}`: {word} is not a file of the repository", c.text));
                }
                continue;
            }
        }
        let body = loop_body(&c.text);
        let variants = expand(body);
        assert!(variants.len() <= 16, "{at}: `{}` expands to {} commands", c.text, variants.len());
        let mut ran = false;
        let mut first_skip = None;
        for variant in variants {
            let (env, words) = split_env(&variant);
            let command = normalize(&words);
            // A program of the repository (a script, CI's entry) must be there, run or not.
            let program = command.split_whitespace().next().unwrap_or("");
            if (program.starts_with("scripts/") || program.starts_with(".ci/")) && !root.join(program).is_file() {
                failures.push(format!("{at}: `{}`: {program} is not a file of the repository", c.text));
            }
            let Some(r) = rule_for(&command) else {
                failures.push(format!(
                    "{at}: `{command}` (from `{}`) is a command the docs tell a user to run, but no rule of \
                     tests/docs_commands.rs covers it. Add one to RULES: `run(<the exit code the docs \
                     promise>)` (`run_fresh` if it writes the baselines or the history), with what its \
                     placeholders stand for in PLACEHOLDERS; or `skip(Why::Gpu | Network | Slow | Tool | \
                     Yours | Pattern, \"why it cannot run in CI\")`",
                    c.text
                ));
                continue;
            };
            rules_used[r] = true;
            let (exit, fresh, needs, shows) = match RULES[r].1 {
                Rule::Skip(why, reason) => {
                    tally.skipped.entry(why).or_default().push(format!("{at}: `{command}`: {reason}"));
                    first_skip.get_or_insert(why);
                    continue;
                }
                Rule::Run { exit, fresh, needs, shows } => (exit, fresh, needs, shows),
            };
            assert!(
                exit != 2 && exit != 101,
                "RULES: {:?} expects exit {exit}: never a bad command line or a panic",
                RULES[r].0
            );
            let available = match needs {
                Needs::Nothing => true,
                Needs::CompileTools => *compile_tools.get_or_init(support::compile_tools_found),
                Needs::Python => {
                    *python.get_or_init(|| support::python3_found("the documented commands that need python3"))
                }
            };
            if !available {
                tally.not_run_here.push(format!("{at}: `{command}` ({needs:?} missing)"));
                continue;
            }
            let (substituted, used) = substitute(&command);
            for i in used {
                placeholders_used[i] = true;
            }
            let left = placeholders_left(&substituted);
            if !left.is_empty() {
                failures.push(format!(
                    "{at}: `{command}` runs here, but tests/docs_commands.rs's PLACEHOLDERS says nothing of \
                     {left:?}: add what each stands for (a committed fixture)"
                ));
                continue;
            }
            let full = env.iter().copied().chain([substituted.as_str()]).collect::<Vec<_>>().join(" ");
            let full = if body == c.text { full } else { c.text.replace(body, &full) };
            let fresh_copy;
            let ws = if fresh {
                fresh_copy = template.copy(true);
                &fresh_copy
            } else {
                &shared
            };
            let o = ws.run(&full);
            let code = o.status.code().unwrap_or(-1);
            let out = text(&o);
            tally.variants_run += 1;
            tally.ran.push(format!("{at}: `{full}`: exit {code}"));
            ran = true;
            let what = format!("{at}: `{command}`, run as `{full}`");
            if out.contains("panicked at") || code == 101 {
                failures.push(format!("{what}: panicked (exit {code}):\n{out}"));
            } else if code == 2 {
                failures.push(format!("{what}: exit 2, a command line the program refuses: fix the docs:\n{out}"));
            } else if code != exit {
                failures.push(format!("{what}: exit {code}, the docs promise {exit}:\n{out}"));
            } else if !out.contains(shows) {
                failures.push(format!("{what}: its output does not show {shows:?}, as the docs quote it:\n{out}"));
            }
        }
        if ran {
            tally.commands_run += 1;
        } else if let Some(why) = first_skip {
            *tally.commands_skipped.entry(why).or_default() += 1;
        }
    }
    for (i, used) in rules_used.iter().enumerate() {
        if !used {
            failures.push(format!("RULES: no documented command matches {:?}: remove the rule", RULES[i].0));
        }
    }
    let nothing_skipped = tally.not_run_here.is_empty();
    for (i, used) in placeholders_used.iter().enumerate() {
        if !used && nothing_skipped {
            failures.push(format!("PLACEHOLDERS: no command that ran uses {:?}: remove it", PLACEHOLDERS[i].0));
        }
    }
    let count = |map: BTreeMap<Why, usize>| {
        let all: usize = map.values().sum();
        let each: Vec<String> = map.iter().map(|(why, n)| format!("{why:?} {n}")).collect();
        format!("{all} ({})", each.join(", "))
    };
    eprintln!(
        "{} documented commands: {} names checked; {} run ({} forms of them after expanding their synopses); \
         {} not run: {}; forms not run: {}; {} forms not run for want of a tool here",
        tally.found,
        tally.names.len(),
        tally.commands_run,
        tally.variants_run,
        tally.commands_skipped.values().sum::<usize>(),
        count(tally.commands_skipped.clone()),
        count(tally.skipped.iter().map(|(why, list)| (*why, list.len())).collect()),
        tally.not_run_here.len()
    );
    eprintln!("run:\n  {}", tally.ran.join("\n  "));
    eprintln!("names checked:\n  {}", tally.names.join("\n  "));
    for (why, list) in &tally.skipped {
        eprintln!("not run ({why:?}):\n  {}", list.join("\n  "));
    }
    // Straight to stderr, as support::skip_without writes: what a missing tool left unchecked is seen.
    for line in &tally.not_run_here {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), "not run here: {line}");
    }
    assert!(failures.is_empty(), "{} documented command(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_parsers_themselves() {
    let md = "Run `kernelgate history runs` or\n`cargo run --release\n--bin kernelgate -- vars`; `python3` alone, \
              `kernelgate: note` and `KERNELGATE_AB=1` are not.\n\n```sh\nscripts/stage   # builds\n\
              KERNELGATE_NCU=1 cargo test --release \\\n    --test kernels\nfor i in $(seq 2); do\n  x $i\ndone\n```\n\n\
              Then:\n\n    kernelgate diff OLD NEW\n\n| a | `sqlite3 A \\| sqlite3 B` |\n";
    let found: Vec<(usize, String, bool)> =
        doc_commands("x.md", md).into_iter().map(|c| (c.line, c.text, c.inline)).collect();
    let own = |l: usize, t: &str, i: bool| (l, t.to_string(), i);
    assert_eq!(
        found,
        [
            own(1, "kernelgate history runs", true),
            own(2, "cargo run --release --bin kernelgate -- vars", true),
            own(6, "scripts/stage", false),
            own(7, "KERNELGATE_NCU=1 cargo test --release --test kernels", false),
            own(9, "for i in $(seq 2); do x $i; done", false),
            own(16, "kernelgate diff OLD NEW", false),
            own(18, "sqlite3 A | sqlite3 B", true),
        ]
    );
    assert_eq!(normalize(&["cargo", "run", "--release", "--bin", "kernelgate", "--", "vars"]), "kernelgate vars");
    assert_eq!(normalize(&[".gpu/bin/kernelgate", "lessons"]), "kernelgate lessons");
    assert_eq!(loop_body("for i in $(seq 2); do x $i; done"), "x $i");
    assert_eq!(
        expand("kernelgate history changes [--metric median|all] [--since COMMIT]"),
        [
            "kernelgate history changes",
            "kernelgate history changes --since COMMIT",
            "kernelgate history changes --metric median",
            "kernelgate history changes --metric median --since COMMIT",
            "kernelgate history changes --metric all",
            "kernelgate history changes --metric all --since COMMIT",
        ]
    );
    assert_eq!(expand("x TRIAL... [y]... | jq .a"), ["x TRIAL | jq .a", "x TRIAL y | jq .a"]);
    assert_eq!(expand("python3 -c 'a|b [c]'"), ["python3 -c 'a|b [c]'"]);
    assert!(glob("kernelgate compare * --scale 1.02*", "kernelgate compare a b --scale 1.02 --cycles"));
    assert!(!glob("kernelgate compare * --scale 1.02*", "kernelgate compare a b"));
    assert!(glob("kernelgate vars", "kernelgate vars") && !glob("kernelgate vars", "kernelgate vars --markdown"));
    assert_eq!(substitute("diff OLD NEW --html FILE").0, "diff 72a91c3 8c8c911 --html report.html");
    assert_eq!(substitute("NAMES CODEX NEW_X").0, "NAMES CODEX NEW_X");
    assert_eq!(placeholders_left("kernelgate baseline remove TRIAL --gpu x"), ["TRIAL"]);
    assert_eq!(placeholders_left("kernelgate export --format bmf runs/<stem>.csv > bmf.json"), ["<stem>"]);
    assert!(placeholders_left("X=1 kernelgate diff a b | python3 -c 'A'").is_empty());
    assert_eq!(strip_comment("a '#b' # c"), "a '#b' ");
}
