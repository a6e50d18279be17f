//! The one table of every `KERNELGATE_*` variable: its name, the values it takes with their
//! default, a line on what it does, and which programs read it.
//!
//! Everything else comes from this table (as ripgrep's `crates/core/flags/defs.rs` defines each flag
//! once and generates its help and man page from it): the parser ([`Config::from_lookup`]) takes
//! each typed variable's range, choices and default from its entry; the unknown-variable check
//! ([`Config::from_env`]) accepts exactly the [`accepted`] names; `kernelgate vars --markdown`
//! prints [`markdown`], which is the table of `docs/options.md` (`tests/docs.rs` checks that the
//! file holds it, and that every `KERNELGATE_*` name in the sources and docs is in it).
//!
//! The type of an entry, [`Var`] with its [`Value`], [`Range`] and [`Reader`], is `entry.rs`'s.

use super::*;

pub use super::entry::{Range, Reader, Value, Var};

/// The names [`Config::from_env`] accepts, in table order.
pub fn accepted() -> impl Iterator<Item = &'static str> {
    VARS.iter().filter(|v| v.accepted()).map(|v| v.name)
}

/// The table as Markdown, one row per variable: the table of `docs/options.md`, as
/// `kernelgate vars --markdown` prints it.
pub fn markdown() -> String {
    let mut out =
        String::from("| variable | values | default | meaning | read by |\n| --- | --- | --- | --- | --- |\n");
    for v in VARS {
        out += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            v.name,
            cell(&v.values()),
            cell(&v.default_shown()),
            cell(v.meaning),
            cell(&v.readers())
        );
    }
    out
}

/// A table cell: a `|` would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `KERNELGATE_AB`.
pub const AB: Var = Var {
    name: "KERNELGATE_AB",
    value: Value::Text("a git revision: a branch, tag or commit"),
    default: Some("unset"),
    meaning: "same-run A/B: time every kernel against its source at this revision, whose kernels are A",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_AB_B`.
pub const AB_B: Var = Var {
    name: "KERNELGATE_AB_B",
    value: Value::Text("a git revision"),
    default: Some("the kernel folders here"),
    meaning: "the B side's kernels from another revision (what `kernelgate bisect` sets); only with `KERNELGATE_AB`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_AB_CONTROLS`. Default 4: enough that a runner's false-positive rate builds up over
/// a few dozen A/B runs (`kernelgate history quality`), few enough to add little to a run (each
/// control is one more paired trial); issue 41 of kernelgate's tracker and nvbench's requests for a
/// standing measurement of the comparison's own error (NVIDIA/nvbench#415, #478) are its reason.
pub const AB_CONTROLS: Var = Var {
    name: "KERNELGATE_AB_CONTROLS",
    value: Value::Whole { default: 4, min: 0, max: 1000 },
    default: None,
    meaning: "A/B only: how many cases whose kernel files are the same at both revisions are timed anyway, drawn \
              at random (KERNELGATE_SEED replays the draw), as A/A controls of the gate; 0: none",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_AB_IDENTICAL`.
pub const AB_IDENTICAL: Var = Var {
    name: "KERNELGATE_AB_IDENTICAL",
    value: Value::Choice { values: &["skip", "time"], default: Some("skip") },
    default: None,
    meaning: "`time`: time cases whose two versions compile to the same PTX or the same SASS (A/A checks); only with `KERNELGATE_AB`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_ALPHA`.
pub const ALPHA: Var = Var {
    name: "KERNELGATE_ALPHA",
    value: Value::Number {
        default: DEFAULT_ALPHA,
        range: Range { lo: 0.0, lo_open: true, hi: 0.5, says: "a probability above 0, at most 0.5" },
    },
    default: None,
    meaning: "family-wise significance level of the gate (criterion.rs's); `kernelgate compare --alpha`",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_BASELINES`.
pub const BASELINES: Var = Var {
    name: "KERNELGATE_BASELINES",
    value: Value::Text("an existing folder (a bless creates it)"),
    default: Some("`baselines` in `kernelgate.toml`, else `<root>/baselines`"),
    meaning: "folder of the per-GPU baseline folders and of `<arch>/resources.csv` (the resource gate)",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_BASELINE_SAMPLES`. At most 100 000, a policy: the baseline's samples file holds one
/// row per kept sample of every trial, and the rank tests of the gate (`gate/timing.rs`) gain
/// nothing from more than a run takes in its 15 s timeout for the fastest kernels.
pub const BASELINE_SAMPLES: Var = Var {
    name: "KERNELGATE_BASELINE_SAMPLES",
    value: Value::Whole { default: 1000, min: 1, max: 100_000 },
    default: None,
    meaning: "samples kept per trial when blessing, evenly spaced over the run",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_BLESS`.
pub const BLESS: Var = Var {
    name: "KERNELGATE_BLESS",
    value: Value::Flag,
    default: None,
    meaning: "1: write the trials run into the baseline: timed trials into their GPU's, compile trials into \
              `baselines/<arch>/resources.csv`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_BLESS_GOLDEN`.
pub const BLESS_GOLDEN: Var = Var {
    name: "KERNELGATE_BLESS_GOLDEN",
    value: Value::Text("any value"),
    default: Some("unset"),
    meaning: "set: the Markdown golden test rewrites `harness/tests/fixtures/report/synthetic.md` when it differs \
              (`cargo test --release --lib`; the suite refuses it)",
    read_by: &[Reader::UnitTest("harness/report/markdown.rs")],
};
/// `KERNELGATE_COMMIT`.
pub const COMMIT: Var = Var {
    name: "KERNELGATE_COMMIT",
    value: Value::Text("a commit id (40 hex digits; a longer one is refused), or any revision git2 can parse"),
    default: Some("the built commit"),
    meaning: "commit to record instead of the one built into the binary",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_COMPARE`.
pub const COMPARE: Var = Var {
    name: "KERNELGATE_COMPARE",
    value: Value::Choice { values: &["time", "cycles"], default: Some("time") },
    default: None,
    meaning: "`cycles`: compare seconds x SM clock (NVML) instead of seconds; `kernelgate compare` too",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_DEVICES`.
pub const DEVICES: Var = Var {
    name: "KERNELGATE_DEVICES",
    value: Value::Text("`all`, or CUDA ordinals separated by commas, each once (`0,1`)"),
    default: Some("`0`"),
    meaning: "GPUs to run on, one trial per GPU at a time",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_FAIL_ON`.
pub const FAIL_ON: Var = Var {
    name: "KERNELGATE_FAIL_ON",
    value: Value::Text("`regressed` plus any of `ambiguous`, `invalid`, separated by commas"),
    default: Some("`regressed`"),
    meaning: "verdicts that fail a trial; the list must include `regressed`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_HISTORY`.
pub const HISTORY: Var = Var {
    name: "KERNELGATE_HISTORY",
    value: Value::Text("a folder, or `off`"),
    default: Some("`history` in `kernelgate.toml`, else `<root>/.kernelgate/history`"),
    meaning: "where each run is appended to the history, or `off` (refused by the `kernelgate` commands that need \
              a history)",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_ISOLATE`.
pub const ISOLATE: Var = Var {
    name: "KERNELGATE_ISOLATE",
    value: Value::Flag,
    default: None,
    meaning: "1: check each selected trial first in a child process (crash isolation)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_JUNIT`.
pub const JUNIT: Var = Var {
    name: "KERNELGATE_JUNIT",
    value: Value::Text("a file in an existing folder"),
    default: Some("unset"),
    meaning: "write the run's JUnit XML to this file (one testcase per trial)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_KERNEL_TIMEOUT`.
pub const KERNEL_TIMEOUT: Var = Var {
    name: "KERNELGATE_KERNEL_TIMEOUT",
    value: Value::Number {
        default: DEFAULT_KERNEL_TIMEOUT_S,
        range: Range { lo: 0.0, lo_open: true, hi: 86_400.0, says: "seconds above 0, at most 86400" },
    },
    default: None,
    meaning: "seconds one trial may take in the checked child, compile and CPU reference included; only with \
              `KERNELGATE_SANITIZE` or `KERNELGATE_ISOLATE` (refused alone: nothing else would apply it)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_MAX_NOISE`.
pub const MAX_NOISE: Var = Var {
    name: "KERNELGATE_MAX_NOISE",
    value: Value::Number {
        default: 0.5,
        range: Range { lo: 0.0, lo_open: true, hi: 100.0, says: "a percentage above 0, at most 100" },
    },
    default: None,
    meaning: "`noise` stopping rule: stddev / mean in percent (nvbench)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_MIN_EFFECT`.
pub const MIN_EFFECT: Var = Var {
    name: "KERNELGATE_MIN_EFFECT",
    value: Value::Number {
        default: DEFAULT_MIN_EFFECT_PCT,
        range: Range { lo: 0.0, lo_open: false, hi: MAX_MIN_EFFECT_PCT, says: "a percentage from 0 to 50" },
    },
    default: Some("1 (A/B: 0.5)"),
    meaning: "smallest change called a regression, percent; `kernelgate compare --min-effect`",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_MIN_SAMPLES`. At most 100 000, a policy: sampling ends at `KERNELGATE_TIMEOUT`
/// whatever the minimum (`measure.rs`), so a larger minimum only makes every trial time out.
pub const MIN_SAMPLES: Var = Var {
    name: "KERNELGATE_MIN_SAMPLES",
    value: Value::Whole { default: 10, min: 1, max: 100_000 },
    default: None,
    meaning: "fewest samples per case (nvbench's default)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_MIN_TIME`. Default 0.25 s, half nvbench's 0.5 s: kernelgate's choice, measured on
/// an H200 (BENCHMARK.md, "Where the time goes, and the prefetcher"). Under the precision rule 75 of 77 cases stopped
/// within 6 % of the minimum time whether it was 0.5 s or 0.25 s (the interval was narrow enough by
/// then), two whole-suite runs at 0.25 s moved no more between runs than two at 0.5 s, and the
/// suite took 48-50 s instead of 70-75 s.
pub const MIN_TIME: Var = Var {
    name: "KERNELGATE_MIN_TIME",
    value: Value::Number {
        default: 0.25,
        range: Range { lo: 0.0, lo_open: false, hi: 3600.0, says: "seconds from 0 to 3600" },
    },
    default: None,
    meaning: "least total GPU time of the samples, seconds (nvbench's is 0.5)",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_NCU`.
pub const NCU: Var = Var {
    name: "KERNELGATE_NCU",
    value: Value::Flag,
    default: None,
    meaning: "1: profile the selection with ncu and check counter expectations",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: Some("1") }],
};
/// `KERNELGATE_NCU_CLOCK_CONTROL`.
pub const NCU_CLOCK_CONTROL: Var = Var {
    name: "KERNELGATE_NCU_CLOCK_CONTROL",
    value: Value::Choice { values: &["none", "base"], default: Some("none") },
    default: None,
    meaning: "ncu `--clock-control`: `none` leaves the clocks alone, `base` locks them",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_NCU_PATH`.
pub const NCU_PATH: Var = Var {
    name: "KERNELGATE_NCU_PATH",
    value: Value::Text("an executable"),
    default: Some("`ncu`"),
    meaning: "the ncu executable; `kernelgate import-ncu --ncu`",
    read_by: &[Reader::Suite, Reader::Cli],
};
/// `KERNELGATE_NOTES`.
pub const NOTES: Var = Var {
    name: "KERNELGATE_NOTES",
    value: Value::Flag,
    default: None,
    meaning: "1: also add the run to the git note of its commit (`refs/notes/kernelgate`)",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: Some("1") }],
};
/// `KERNELGATE_NVRTC`.
pub const NVRTC: Var = Var {
    name: "KERNELGATE_NVRTC",
    value: Value::Text("a `libnvrtc.so.13`, or its folder"),
    default: Some("searched"),
    meaning: "the NVRTC (and so the ptxas whose figures the resource gate gates) to compile with; when set, \
              nothing else is searched ([the search](running.md#which-nvrtc-a-run-uses))",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_NVDISASM`.
pub const NVDISASM: Var = Var {
    name: "KERNELGATE_NVDISASM",
    value: Value::Text("an `nvdisasm` executable"),
    default: Some("searched"),
    meaning: "the nvdisasm that reads the compile trials' cubins for the SASS gate; when set, nothing else is \
              searched ([the search](resource-gate.md#the-sass-gate))",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_PTXAS`.
pub const PTXAS: Var = Var {
    name: "KERNELGATE_PTXAS",
    value: Value::Text("a `ptxas` executable"),
    default: Some("searched"),
    meaning: "the ptxas that assembles prebuilt PTX modules for their compile trials (the resource and SASS \
              gates); when set, nothing else is searched ([prebuilt modules](adding-kernels.md#prebuilt-ptx-modules))",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_OUT_DIR`.
pub const OUT_DIR: Var = Var {
    name: "KERNELGATE_OUT_DIR",
    value: Value::Text("a folder"),
    default: Some("`out_dir` in `kernelgate.toml`, else `<root>/target/kernelgate`"),
    meaning: "where `runs/*.csv` (and the run's other files) go",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: None }],
};
/// `KERNELGATE_PLANTED`.
pub const PLANTED: Var = Var {
    name: "KERNELGATE_PLANTED",
    value: Value::Flag,
    default: None,
    meaning: "1: add the `planted/` family of deliberately buggy kernels",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_PRECISION`.
pub const PRECISION: Var = Var {
    name: "KERNELGATE_PRECISION",
    value: Value::Number {
        default: DEFAULT_PRECISION,
        range: Range { lo: 0.0, lo_open: true, hi: 1.0, says: "a fraction of the effect floor above 0, at most 1" },
    },
    default: None,
    meaning: "`precision` stopping rule: the median's 95 % CI half-width as a fraction of the effect floor",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_PARENT_KERNELS`.
pub const PARENT_KERNELS: Var = Var {
    name: "KERNELGATE_PARENT_KERNELS",
    value: Value::Text("a SHA-256, 64 hex digits"),
    default: Some("unset"),
    meaning: "the kernels_sha256 of the run that started this child (ncu's, the sanitizer's): a child that reads other kernels/ (edited during the run) stops",
    read_by: &[Reader::Child],
};
/// `KERNELGATE_PROFILE_TRIALS`.
pub const PROFILE_TRIALS: Var = Var {
    name: "KERNELGATE_PROFILE_TRIALS",
    value: Value::Text("trial names, one per line"),
    default: Some("unset"),
    meaning: "makes the test binary the ncu-profiled child: it runs these trials' checked launches once each",
    read_by: &[Reader::Child],
};
/// `KERNELGATE_REFERENCE`.
pub const REFERENCE: Var = Var {
    name: "KERNELGATE_REFERENCE",
    value: Value::Choice { values: &["baseline", "gpu"], default: Some("baseline") },
    default: None,
    meaning: "what a run's time is gated against: `baseline`, the committed baseline (a runner that blessed it); \
              `gpu`, the same physical GPU's own earlier runs: the suite records its time verdicts against the \
              baseline without failing on them (counters and the other gates fail as ever; A/B runs are \
              unaffected), and the nightly gates time with `kernelgate history gate --reference gpu`, a GPU new \
              to the pool by a same-run A/B run ([a pool's nightly](ci.md#a-pools-nightly))",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: None }],
};
/// `KERNELGATE_REQUIRE_CHROMIUM`.
pub const REQUIRE_CHROMIUM: Var = Var {
    name: "KERNELGATE_REQUIRE_CHROMIUM",
    value: Value::Flag,
    default: None,
    meaning: "1: a missing `chromium` fails the HTML reports' browser tests instead of skipping them (CI sets it)",
    read_by: &[Reader::Test("tests/report_html.rs"), Reader::Test("tests/ab_report.rs")],
};
/// `KERNELGATE_REQUIRE_GPU`.
pub const REQUIRE_GPU: Var = Var {
    name: "KERNELGATE_REQUIRE_GPU",
    value: Value::Flag,
    default: None,
    meaning: "1: a missing GPU fails the GPU trials instead of ignoring them",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: Some("1") }],
};
/// `KERNELGATE_REQUIRE_NVRTC`.
pub const REQUIRE_NVRTC: Var = Var {
    name: "KERNELGATE_REQUIRE_NVRTC",
    value: Value::Flag,
    default: None,
    meaning: "1: a missing libnvrtc fails the compile trials, resource gate included, instead of ignoring them, \
              and a missing nvdisasm fails them instead of skipping the SASS gate (CI sets it)",
    read_by: &[
        Reader::Suite,
        Reader::Test("tests/support/mod.rs"),
        Reader::UnitTest("harness/compile/"),
        Reader::UnitTest("harness/nvrtc.rs"),
    ],
};
/// `KERNELGATE_REQUIRE_PYTHON`.
pub const REQUIRE_PYTHON: Var = Var {
    name: "KERNELGATE_REQUIRE_PYTHON",
    value: Value::Flag,
    default: None,
    meaning: "1: a missing `python3` fails the tests that run it instead of skipping them: nvbench's own \
              `nvbench_compare.py` reading `kernelgate export --format nvbench`, reading-results.md's Python example, \
              the documented commands that need it (CI sets it)",
    read_by: &[Reader::Test("tests/exports.rs"), Reader::Test("tests/docs.rs"), Reader::Test("tests/docs_commands.rs")],
};
/// `KERNELGATE_REQUIRE_XMLLINT`.
pub const REQUIRE_XMLLINT: Var = Var {
    name: "KERNELGATE_REQUIRE_XMLLINT",
    value: Value::Flag,
    default: None,
    meaning: "1: a missing `xmllint` (Debian `libxml2-utils`) fails the JUnit schema check instead of skipping it \
              (CI sets it)",
    read_by: &[Reader::Test("tests/suite_reports.rs")],
};
/// `KERNELGATE_RUN_FILE`.
pub const RUN_FILE: Var = Var {
    name: "KERNELGATE_RUN_FILE",
    value: Value::Text("a file in an existing folder"),
    default: Some("unset"),
    meaning: "append the absolute path of the run CSV the run wrote to this file, one line (none when no trial was \
              timed); `scripts/nightly` reads its run from it",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/nightly", default: Some("OUT_DIR/run-csv.txt") }],
};
/// `KERNELGATE_SANITIZE`.
pub const SANITIZE: Var = Var {
    name: "KERNELGATE_SANITIZE",
    value: Value::Choice { values: &SANITIZE_TOOLS, default: None },
    default: None,
    meaning: "check the selection under that compute-sanitizer tool",
    read_by: &[Reader::Suite],
};
/// The compute-sanitizer tools `KERNELGATE_SANITIZE` accepts (Compute Sanitizer user manual,
/// "Compute Sanitizer Tools").
pub const SANITIZE_TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];
/// `KERNELGATE_SANITIZER_PATH`.
pub const SANITIZER_PATH: Var = Var {
    name: "KERNELGATE_SANITIZER_PATH",
    value: Value::Text("an executable"),
    default: Some("`compute-sanitizer` (else `/usr/local/cuda/bin/compute-sanitizer`)"),
    meaning: "the compute-sanitizer executable; only with `KERNELGATE_SANITIZE`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_SANITIZE_SCALE`.
pub const SANITIZE_SCALE: Var = Var {
    name: "KERNELGATE_SANITIZE_SCALE",
    value: Value::Number {
        default: 1.0,
        range: Range { lo: 1.0 / 64.0, lo_open: false, hi: 1.0, says: "a decimal number from 0.015625 (1/64) to 1" },
    },
    default: None,
    meaning: "the work of the cases the sanitizer's child checks, under their nominal names (the suite still times \
              them at full size); only with `KERNELGATE_SANITIZE`",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_SANITIZE_TRIALS`.
pub const SANITIZE_TRIALS: Var = Var {
    name: "KERNELGATE_SANITIZE_TRIALS",
    value: Value::Text("trial names, one per line"),
    default: Some("unset"),
    meaning: "makes the test binary the checked child (sanitized or isolated): it checks these trials once each",
    read_by: &[Reader::Child],
};
/// `KERNELGATE_SEED`.
pub const SEED: Var = Var {
    name: "KERNELGATE_SEED",
    value: Value::Text("a whole number below 2^64, decimal or 0x hex"),
    default: Some("new each run"),
    meaning: "input seed; the run prints it, set it to replay",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_STOP`.
pub const STOP: Var = Var {
    name: "KERNELGATE_STOP",
    value: Value::Choice { values: &["precision", "noise"], default: Some("precision") },
    default: None,
    meaning: "what ends sampling after the minimums",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_TEST_HISTORY_CHILD`.
pub const TEST_HISTORY_CHILD: Var = Var {
    name: "KERNELGATE_TEST_HISTORY_CHILD",
    value: Value::Text("a folder"),
    default: Some("unset"),
    meaning: "the history store that the child of the killed-writer test appends to (set by that test)",
    read_by: &[Reader::UnitTest("harness/history/store/tests.rs")],
};
/// `KERNELGATE_TIMEOUT`.
pub const TIMEOUT: Var = Var {
    name: "KERNELGATE_TIMEOUT",
    value: Value::Number {
        default: 15.0,
        range: Range { lo: 0.0, lo_open: true, hi: 86_400.0, says: "seconds above 0, at most 86400" },
    },
    default: None,
    meaning: "wall-clock limit of one case's sampling, seconds (nvbench)",
    read_by: &[Reader::Suite, Reader::Script { path: "scripts/gpu-benchmark", default: Some("1") }],
};
/// `KERNELGATE_WARMUP`. At most 10 000, a policy (nvbench's cold measurement warms up with one
/// launch, `nvbench/detail/measure_cold.cuh`); the warm-up also ends at `KERNELGATE_TIMEOUT`.
pub const WARMUP: Var = Var {
    name: "KERNELGATE_WARMUP",
    value: Value::Whole { default: 1, min: 0, max: 10_000 },
    default: None,
    meaning: "untimed launches before sampling; the warm-up ends at `KERNELGATE_TIMEOUT` too",
    read_by: &[Reader::Suite],
};
/// `KERNELGATE_WORK_SCALE`.
pub const WORK_SCALE: Var = Var {
    name: "KERNELGATE_WORK_SCALE",
    value: Value::Number {
        default: 1.0,
        range: Range { lo: 0.5, lo_open: false, hi: 2.0, says: "a decimal number from 0.5 to 2" },
    },
    default: None,
    meaning: "power benchmark only: run every case at about this many times its work (such a run cannot bless)",
    read_by: &[Reader::Suite],
};

/// Every `KERNELGATE_*` variable, sorted by name.
pub const VARS: &[Var] = &[
    AB,
    AB_B,
    AB_CONTROLS,
    AB_IDENTICAL,
    ALPHA,
    BASELINES,
    BASELINE_SAMPLES,
    BLESS,
    BLESS_GOLDEN,
    COMMIT,
    COMPARE,
    DEVICES,
    FAIL_ON,
    HISTORY,
    ISOLATE,
    JUNIT,
    KERNEL_TIMEOUT,
    MAX_NOISE,
    MIN_EFFECT,
    MIN_SAMPLES,
    MIN_TIME,
    NCU,
    NCU_CLOCK_CONTROL,
    NCU_PATH,
    NOTES,
    NVDISASM,
    NVRTC,
    OUT_DIR,
    PARENT_KERNELS,
    PLANTED,
    PRECISION,
    PROFILE_TRIALS,
    PTXAS,
    REFERENCE,
    REQUIRE_CHROMIUM,
    REQUIRE_GPU,
    REQUIRE_NVRTC,
    REQUIRE_PYTHON,
    REQUIRE_XMLLINT,
    RUN_FILE,
    SANITIZE,
    SANITIZER_PATH,
    SANITIZE_SCALE,
    SANITIZE_TRIALS,
    SEED,
    STOP,
    TEST_HISTORY_CHILD,
    TIMEOUT,
    WARMUP,
    WORK_SCALE,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    #[test]
    fn names_are_sorted_unique_and_prefixed() {
        let names: Vec<&str> = VARS.iter().map(|v| v.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted, "VARS must be sorted by name, each once");
        for v in VARS {
            let rest = v.name.strip_prefix("KERNELGATE_").unwrap_or_else(|| panic!("{}: no prefix", v.name));
            assert!(!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'), "{}", v.name);
            assert!(!v.read_by.is_empty() && !v.meaning.is_empty(), "{}: who reads it, and what for?", v.name);
            if let Value::Choice { values, default: Some(d) } = v.value {
                assert!(values.contains(&d), "{}: default {d} is not one of its values", v.name);
            }
        }
    }

    /// The parser asks for exactly the variables the table says the suite or `kernelgate` read:
    /// a variable added to the parser and not to the table (or the reverse) fails here.
    #[test]
    fn the_parser_reads_exactly_the_suites_and_the_clis_variables() {
        let asked = Mutex::new(BTreeSet::new());
        Config::from_lookup(|name| {
            asked.lock().unwrap().insert(name.to_string());
            None
        })
        .unwrap();
        let asked = asked.into_inner().unwrap();
        let table: BTreeSet<String> = VARS
            .iter()
            .filter(|v| v.read_by.iter().any(|r| matches!(r, Reader::Suite | Reader::Cli)))
            .map(|v| v.name.to_string())
            .collect();
        assert_eq!(asked, table);
    }

    /// Each default is the table's: a typed variable's default is what an empty environment gives.
    #[test]
    fn defaults_are_the_tables() {
        let c = Config::default();
        assert_eq!(c.alpha, ALPHA.number_default());
        assert_eq!(c.stopping.min_samples, MIN_SAMPLES.whole_default());
        assert_eq!(c.stopping.min_time_s, MIN_TIME.number_default());
        assert_eq!(c.stopping.max_noise_pct, MAX_NOISE.number_default());
        assert_eq!(c.stopping.timeout_s, TIMEOUT.number_default());
        assert_eq!(c.stopping.criterion, Criterion::Precision { fraction: PRECISION.number_default() });
        assert_eq!((c.warmup, c.baseline_samples), (WARMUP.whole_default(), BASELINE_SAMPLES.whole_default()));
        assert_eq!((c.work_scale, c.sanitize_scale), (WORK_SCALE.number_default(), SANITIZE_SCALE.number_default()));
        assert_eq!(MIN_EFFECT.default, Some(&*format!("{DEFAULT_MIN_EFFECT_PCT} (A/B: {DEFAULT_AB_MIN_EFFECT_PCT})")));
        assert_eq!(KERNEL_TIMEOUT.number_default(), DEFAULT_KERNEL_TIMEOUT_S);
        assert_eq!(c.ncu_path, PathBuf::from("ncu"));
        assert_eq!(NCU_PATH.default, Some("`ncu`"));
    }

    /// The unknown-variable check accepts every variable a program reads, except those only the
    /// library's unit tests read; its message lists the options, not the children's variables.
    #[test]
    fn accepted_and_listed() {
        let accepted: Vec<&str> = accepted().collect();
        assert!(accepted.contains(&"KERNELGATE_REQUIRE_CHROMIUM") && accepted.contains(&"KERNELGATE_PROFILE_TRIALS"));
        assert!(!accepted.contains(&"KERNELGATE_BLESS_GOLDEN") && !accepted.contains(&"KERNELGATE_TEST_HISTORY_CHILD"));
        assert!(!SANITIZE_TRIALS.is_option() && !PROFILE_TRIALS.is_option() && REQUIRE_XMLLINT.is_option());
    }

    #[test]
    fn markdown_rows() {
        let table = markdown();
        assert_eq!(table.lines().count(), VARS.len() + 2);
        assert!(
            table.contains(
                "| `KERNELGATE_ALPHA` | a probability above 0, at most 0.5 | 0.05 | family-wise significance level"
            ),
            "{table}"
        );
        assert!(table.contains("| `KERNELGATE_STOP` | `precision` or `noise` | `precision` |"), "{table}");
        assert!(table.contains("| `KERNELGATE_TIMEOUT` | seconds above 0, at most 86400 | 15 |"), "{table}");
        assert_eq!(
            REQUIRE_NVRTC.readers(),
            "suite, `tests/support/mod.rs`, unit tests (`harness/compile/`, `harness/nvrtc.rs`)"
        );
    }
}
