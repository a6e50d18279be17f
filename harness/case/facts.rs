//! What the `kernelgate` program knows of a project's cases: the case table lives in the project's
//! test binary, so every run of it writes the facts the program's commands need
//! (`<output folder>/cases.json`, [`FILE`]), and the program reads them there. One program then
//! serves every project, as nextest's serves every crate's test binaries.
//!
//! The facts are of every case at its nominal work and the library's planted family: each trial's
//! host-bound reason ([`Case::host_bound`]) for `kernelgate compare` and `kernelgate history gate`,
//! the vendor references ([`Case::vendor_reference`]) for `kernelgate diff`, the launches, the
//! arguments passed and the SASS expectations for `kernelgate compile`, and the files the test
//! binary is built from ([`crate::Build::inputs`]) for `kernelgate bisect`'s warning.

use super::{Case, SassExpectation};
use crate::error::{Error, Result};
use crate::model::VendorReference;
use crate::resources::{Arity, LaunchShape};
use crate::sass::Declared;
use crate::source::Kernel;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file name of the facts in the project's output folder (`KERNELGATE_OUT_DIR`, default
/// `target/kernelgate`).
pub const FILE: &str = "cases.json";

/// The version of the file's layout; a file of another version is refused with the fix (run the
/// suite again).
pub const SCHEMA: u32 = 1;

/// The facts of a case table ([`Facts::of`]), as written to [`FILE`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// [`SCHEMA`].
    pub schema: u32,
    /// One per case, sorted by trial name.
    pub trials: Vec<TrialFacts>,
    /// Every distinct launch ([`crate::resources::launches`]).
    pub launches: Vec<LaunchFact>,
    /// The arguments of every launch step ([`crate::resources::arities`]).
    pub arities: Vec<ArityFact>,
    /// Every SASS expectation a case declares on a kernel ([`crate::sass::declared`]).
    pub sass: Vec<SassFact>,
    /// The files and folders the test binary is built from, relative to the project root
    /// ([`crate::Build::inputs`]).
    #[serde(default)]
    pub inputs: Vec<String>,
    /// The hash of those files as the binary was built from them ([`crate::Build::inputs_sha256`]);
    /// empty in a file written before it was recorded. [`Facts::stale`] compares it with the tree.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inputs_sha256: String,
    /// Every trial the test binary lists, in its order (compile and lesson trials included), for
    /// `kernelgate plan` ([`crate::pool::plan`]); empty in a file written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listed: Vec<String>,
    /// The commit the test binary records its runs under (`crate::record::GitState::commit`: the
    /// commit it was built from, which a staged binary or a runner image keeps wherever it runs),
    /// for `kernelgate plan`, whose jobs' results `kernelgate merge` matches by it; empty in a file
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub commit: String,
}

/// One trial's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialFacts {
    /// The trial name, `family/variant/size`.
    pub trial: String,
    /// Why its time is the host's, not the kernel's ([`Case::host_bound`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bound: Option<String>,
    /// The vendor library it times when it is its family's reference ([`Case::vendor_reference`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
}

/// One launch shape ([`LaunchShape`]) with its kernel by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchFact {
    /// Kernel file name.
    pub file: String,
    /// Entry point or template instance (`block_sum<256, 8>`).
    pub entry: String,
    /// Preprocessor definitions of the kernel's build ([`Kernel::defines`]); none for the file as it
    /// is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, bytes.
    pub shared_dynamic: u32,
}

/// One launch step's argument count ([`Arity`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArityFact {
    /// Kernel file name.
    pub file: String,
    /// Entry point or template instance.
    pub entry: String,
    /// Preprocessor definitions of the kernel's build ([`Kernel::defines`]); none for the file as it
    /// is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    /// Arguments passed.
    pub args: usize,
    /// What each argument passes ([`Arity::passed`]); empty in a file written before it was
    /// recorded (then only the count is checked; the sizes such a file records are not read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<crate::compile::Passed>,
    /// The trial that launches it.
    pub trial: String,
}

/// One SASS expectation on one kernel ([`Declared`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SassFact {
    /// Kernel file name.
    pub file: String,
    /// The kernel as the SASS table names it ([`Kernel::name`]: entry point or template instance,
    /// and its definitions).
    pub entry: String,
    /// Instruction class ([`crate::sass::CLASSES`]).
    pub class: String,
    /// Inclusive lower bound, instructions.
    pub min: Option<u64>,
    /// Inclusive upper bound, instructions.
    pub max: Option<u64>,
    /// The lesson.
    pub why: String,
    /// The trial that declared it.
    pub trial: String,
}

/// `text` as a `&'static str`: the facts are read once per command, into the library's `'static`
/// kernel and expectation types.
fn leak(text: &str) -> &'static str {
    text.to_string().leak()
}

fn kernel(file: &str, entry: &str, defines: &[String]) -> Kernel {
    let kernel = Kernel::new(leak(file), leak(entry));
    Kernel { defines: defines.iter().map(|d| leak(d)).collect::<Vec<_>>().leak(), ..kernel }
}

/// The definitions of `kernel`, as the facts keep them.
fn defines(kernel: &Kernel) -> Vec<String> {
    kernel.defines.iter().map(|d| d.to_string()).collect()
}

impl Facts {
    /// The facts of `cases` (a table's every case at nominal work, and the planted family) of a
    /// test binary built from `inputs` ([`crate::Build::inputs`]).
    pub fn of(cases: &[Case], inputs: &[&str]) -> Facts {
        let mut trials: Vec<TrialFacts> = cases
            .iter()
            .map(|c| TrialFacts { trial: c.name(), host_bound: c.host_bound(), vendor: c.vendor.map(str::to_string) })
            .collect();
        trials.sort_by(|a, b| a.trial.cmp(&b.trial));
        let launches = crate::resources::launches(cases)
            .into_iter()
            .map(|l| LaunchFact {
                file: l.kernel.file.into(),
                entry: l.kernel.entry.into(),
                defines: defines(&l.kernel),
                block: l.block,
                shared_dynamic: l.shared_dynamic,
            })
            .collect();
        let arities = crate::resources::arities(cases)
            .into_iter()
            .map(|a| ArityFact {
                file: a.kernel.file.into(),
                entry: a.kernel.entry.into(),
                defines: defines(&a.kernel),
                args: a.args,
                passed: a.passed,
                trial: a.trial,
            })
            .collect();
        let sass = crate::sass::declared(cases)
            .into_iter()
            .map(|d| SassFact {
                file: d.file.into(),
                entry: d.function.into(),
                class: d.expectation.class.into(),
                min: d.expectation.min,
                max: d.expectation.max,
                why: d.expectation.why.into(),
                trial: d.trial,
            })
            .collect();
        Facts {
            schema: SCHEMA,
            trials,
            launches,
            arities,
            sass,
            inputs: inputs.iter().map(|i| i.to_string()).collect(),
            inputs_sha256: String::new(),
            listed: Vec::new(),
            commit: String::new(),
        }
    }

    /// These facts with the hash of the files their test binary was built from (`BUILD`'s
    /// [`crate::Build::inputs_sha256`]), for [`Facts::stale`].
    pub fn built_from(mut self, inputs_sha256: &str) -> Facts {
        self.inputs_sha256 = inputs_sha256.to_string();
        self
    }

    /// Why these facts may not be the project's cases any more, when they may not: the files their
    /// test binary was built from ([`Facts::inputs`]) differ now, under the project root `root`,
    /// from what they were at its build (a case table edited since, not rebuilt), so the cases,
    /// launches and definitions read here are the old binary's. `None` when they are the same, or
    /// the facts do not record the hash.
    pub fn stale(&self, root: &Path) -> Option<String> {
        use crate::history::provenance::{files_sha256, inputs_on_disk};
        if self.inputs_sha256.is_empty() {
            return None;
        }
        let inputs: Vec<&str> = self.inputs.iter().map(String::as_str).collect();
        (files_sha256(&inputs_on_disk(root, &inputs)) != self.inputs_sha256).then(|| {
            format!(
                "were written by a test binary built from other files than the tree's now (what is under {} \
                 changed since its build): the cases, launches and definitions read here are that binary's; rebuild \
                 and list them (`cargo test --release --test kernels -- --list`)",
                self.inputs.join(", ")
            )
        })
    }

    /// Where the facts of the project whose output folder is `out_dir` are.
    pub fn path(out_dir: &Path) -> PathBuf {
        out_dir.join(FILE)
    }

    /// Writes the facts to [`Facts::path`] of `out_dir` (created if missing), replacing the file
    /// whole (a temporary file renamed over it), so a reader never sees half of it.
    ///
    /// # Errors
    /// [`Error::Io`] naming the folder or the file.
    pub fn write(&self, out_dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(out_dir).map_err(Error::io(out_dir))?;
        let path = Self::path(out_dir);
        let text = serde_json::to_string_pretty(self).expect("facts serialize") + "\n";
        let mut file = crate::paths::temp_file_in(out_dir).map_err(Error::io(out_dir))?;
        // Through the `File`: the temporary file's own name never reaches a message.
        std::io::Write::write_all(file.as_file_mut(), text.as_bytes()).map_err(Error::io(&path))?;
        file.persist(&path).map_err(|e| Error::io(&path)(e.error))?;
        Ok(path)
    }

    /// The facts in `out_dir`, `None` when no suite run wrote them there.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Project`] naming
    /// the file, line and fix when it is not the facts of this kernelgate ([`SCHEMA`]).
    pub fn read(out_dir: &Path) -> Result<Option<Facts>> {
        let path = Self::path(out_dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path)(e)),
        };
        let refuse = |line: Option<usize>, what: String| Error::Project {
            path: path.clone(),
            line,
            message: format!(
                "{what}: it is written by every run of the project's test binary; run it again \
                 (`cargo test --release --test kernels -- --list` is enough)"
            ),
        };
        let facts: Facts = serde_json::from_str(&text)
            .map_err(|e| refuse(Some(e.line()), format!("is not kernelgate's case facts ({e})")))?;
        if facts.schema != SCHEMA {
            return Err(refuse(None, format!("has schema {}, this kernelgate reads {SCHEMA}", facts.schema)));
        }
        Ok(Some(facts))
    }

    /// Why `trial` is host-bound, when it is ([`TrialFacts::host_bound`]).
    pub fn host_bound(&self, trial: &str) -> Option<String> {
        self.trials.iter().find(|t| t.trial == trial).and_then(|t| t.host_bound.clone())
    }

    /// The vendor references ([`crate::report::vendor::references`]'s, from the facts).
    pub fn vendors(&self) -> Vec<VendorReference> {
        self.trials
            .iter()
            .filter_map(|t| Some(VendorReference { trial: t.trial.clone(), vendor: leak(t.vendor.as_deref()?) }))
            .collect()
    }

    /// The launches ([`crate::resources::launches`]'s, from the facts).
    pub fn launches(&self) -> Vec<LaunchShape> {
        self.launches
            .iter()
            .map(|l| LaunchShape {
                kernel: kernel(&l.file, &l.entry, &l.defines),
                block: l.block,
                shared_dynamic: l.shared_dynamic,
            })
            .collect()
    }

    /// The launch steps' arguments ([`crate::resources::arities`]'s, from the facts).
    pub fn arities(&self) -> Vec<Arity> {
        self.arities
            .iter()
            .map(|a| Arity {
                kernel: kernel(&a.file, &a.entry, &a.defines),
                args: a.args,
                passed: a.passed.clone(),
                trial: a.trial.clone(),
            })
            .collect()
    }

    /// The SASS expectations ([`crate::sass::declared`]'s, from the facts).
    pub fn declared(&self) -> Vec<Declared> {
        self.sass
            .iter()
            .map(|s| Declared {
                file: leak(&s.file),
                function: leak(&s.entry),
                expectation: SassExpectation { class: leak(&s.class), min: s.min, max: s.max, why: leak(&s.why) },
                trial: s.trial.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Init, Launch, Param, Step};

    #[test]
    fn facts_of_a_binary_built_from_other_files_than_the_trees_say_so() {
        use crate::history::provenance::{files_sha256, inputs_on_disk};
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/kernels.rs"), "fn cases() {}\n").unwrap();
        let built = files_sha256(&inputs_on_disk(dir.path(), &["tests", "build.rs"]));
        let facts = Facts::of(&[], &["tests", "build.rs"]).built_from(&built);
        assert_eq!(facts.stale(dir.path()), None);
        std::fs::write(dir.path().join("tests/kernels.rs"), "fn cases() { /* a new case */ }\n").unwrap();
        let why = facts.stale(dir.path()).expect("the case table changed since the build");
        assert!(
            why.starts_with(
                "were written by a test binary built from other files than the tree's now (what is under tests, build.rs changed"
            ),
            "{why}"
        );
        assert!(why.ends_with("(`cargo test --release --test kernels -- --list`)"), "{why}");
        // A file of an older kernelgate records no hash: nothing to compare.
        assert_eq!(Facts::of(&[], &["tests"]).stale(dir.path()), None);
    }

    fn cases() -> Vec<Case> {
        let n = 1024;
        let timed = Case::new("t", "copy", "1024", crate::source::k::coalescing::copy_coalesced)
            .launch(Launch::linear(n, 256))
            .params([Param::input(n), Param::output(n)])
            .sass([SassExpectation::class("global_load").present()])
            .vendor_reference("CUB");
        let pageable = Case::program("t", "pageable", "1024")
            .params([
                Param::Host {
                    init: Some(Init::Uniform { lo: -1.0, hi: 1.0 }),
                    elem: crate::case::Elem::F32,
                    len: n,
                    pinned: false,
                },
                Param::output(n),
            ])
            .step(Step::Copy { from: 0, from_offset: 0, to: 1, to_offset: 0, elems: n, stream: 0 });
        vec![timed, pageable]
    }

    #[test]
    fn the_facts_round_trip_through_the_file() {
        let cases = cases();
        let facts = Facts::of(&cases, &["build.rs", "tests"]);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Facts::read(dir.path()).unwrap(), None, "no run wrote them yet");
        let path = facts.write(&dir.path().join("out")).unwrap();
        assert!(path.ends_with("out/cases.json"));
        let read = Facts::read(&dir.path().join("out")).unwrap().unwrap();
        assert_eq!(read, facts);
        assert_eq!(read.launches(), crate::resources::launches(&cases));
        assert_eq!(read.arities(), crate::resources::arities(&cases));
        assert_eq!(read.declared(), crate::sass::declared(&cases));
        assert_eq!(read.vendors(), crate::report::vendor::references(&cases));
        for c in &cases {
            assert_eq!(read.host_bound(&c.name()), c.host_bound(), "{}", c.name());
        }
        assert_eq!(read.host_bound("t/unknown/1"), None);
        assert_eq!(read.inputs, ["build.rs", "tests"]);
    }

    #[test]
    fn a_file_of_another_kind_or_version_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            "{\"schema\": 99, \"trials\": [], \"launches\": [], \"arities\": [], \"sass\": []}",
        )
        .unwrap();
        let err = Facts::read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("cases.json") && err.contains("schema 99") && err.contains("run it again"), "{err}");
        std::fs::write(dir.path().join(FILE), "[\n1]").unwrap();
        let err = Facts::read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("cases.json:2") || err.contains("line"), "{err}");
        assert!(err.contains("is not kernelgate's case facts"), "{err}");
    }
}
