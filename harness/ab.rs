//! Same-run A/B (`KERNELGATE_AB=<rev>`): each case's kernel as this build has it (B) against the
//! same kernel as `kernels/*.cu` held it at a git revision (A), compiled with the same NVRTC
//! options, both checked against the CPU reference, and timed in one process on one GPU in pairs
//! ([`crate::measure::measure_pairs`]); judged on the pairs ([`crate::gate::paired`]). No baseline
//! is needed, so the gate holds on any GPU of a pool: what differs between machines moves A and B
//! alike.

use crate::case::Case;
use crate::config::Config;
use crate::gate::{Decided, Judged, Verdict};
use crate::gpu::Gpu;
use crate::measure::{measure_pairs, nvtx_ranges};
use crate::record::CaseResult;
use crate::{check, gate, program};
use libtest_mimic::Failed;
use std::collections::BTreeMap;
use std::path::Path;

/// The `kernels/*.cu` files at one git revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    /// The revision as given (`HEAD`, `main`, a commit id).
    pub rev: String,
    /// The full commit id it names.
    pub commit: String,
    /// File name (`transpose.cu`) to its text at that commit.
    files: BTreeMap<String, String>,
}

impl Revision {
    /// Reads `kernels/*.cu` at `rev` from the objects of the git repository at or above `root`
    /// (git2; the working tree is not touched).
    ///
    /// # Errors
    /// A sentence naming the problem: no repository, a revision that names no commit, no
    /// `kernels/` folder at that commit, a file that is not UTF-8.
    pub fn read(root: &Path, rev: &str) -> Result<Revision, String> {
        let repo = git2::Repository::discover(root).map_err(|e| {
            format!("KERNELGATE_AB needs a git repository at or above {}: {}", root.display(), e.message())
        })?;
        let commit = repo.revparse_single(rev).and_then(|o| o.peel_to_commit()).map_err(|e| {
            format!(
                "{rev} is not a commit of {}: {}; fetch it (`git fetch origin {rev}`), or name a commit whose \
                     objects this repository has (a shallow or ref-less copy lacks them)",
                root.display(),
                e.message()
            )
        })?;
        let tree = commit.tree().map_err(|e| e.message().to_string())?;
        let kernels = tree
            .get_path(Path::new("kernels"))
            .and_then(|entry| entry.to_object(&repo))
            .and_then(|o| o.peel_to_tree())
            .map_err(|_| format!("commit {} ({rev}) has no kernels/ folder", commit.id()))?;
        let mut files = BTreeMap::new();
        for entry in kernels.iter() {
            let Some(name) = entry.name().ok().filter(|n| n.ends_with(".cu")) else { continue };
            let blob = entry.to_object(&repo).and_then(|o| o.peel_to_blob()).map_err(|e| e.message().to_string())?;
            let text = String::from_utf8(blob.content().to_vec())
                .map_err(|_| format!("kernels/{name} at {rev} is not UTF-8"))?;
            files.insert(name.to_string(), text);
        }
        Ok(Revision { rev: rev.to_string(), commit: commit.id().to_string(), files })
    }

    /// The text of `file` at this revision, if it existed there.
    pub fn source(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }
}

/// What an A/B trial came to.
#[derive(Debug)]
pub enum AbResult {
    /// The kernel's file is the same at both revisions: nothing to time. The sentence says so.
    Identical(String),
    /// The kernel is new (its file or entry point is not there at the revision): time it alone.
    New(String),
    /// Timed in pairs and judged.
    Timed {
        /// The trial's result (B's samples; the comparison is the paired one).
        result: Box<CaseResult>,
        /// The verdict with its reason.
        judged: Judged,
        /// B's kept samples, for the run record.
        kept: Vec<f64>,
    },
}

/// One A/B trial on `gpu`: B (this build) and A (`revision`) compiled, each checked on its own
/// fresh inputs, then timed in pairs on one set of buffers and judged with `tests` cases in the
/// family (Bonferroni). `harness_error` turns a compile or driver error into the trial's failure
/// (the suite's retires the GPU on a sticky error).
///
/// # Errors
/// A failed trial: a wrong result of either version (the message names which), a compile or
/// driver error.
pub fn run_case(
    config: &Config,
    seed: u64,
    revision: &Revision,
    gpu: &Gpu,
    case: &Case,
    tests: usize,
    harness_error: impl Fn(crate::Error) -> Failed + Copy,
) -> Result<AbResult, Failed> {
    let files: Vec<&str> = {
        let mut f: Vec<&str> = case.kernels().iter().map(|k| k.file).collect();
        f.sort_unstable();
        f.dedup();
        f
    };
    let list = files.iter().map(|f| format!("kernels/{f}")).collect::<Vec<_>>().join(", ");
    if let Some(missing) = files.iter().find(|f| revision.source(f).is_none()) {
        return Ok(AbResult::New(format!("kernels/{missing} does not exist at {}", revision.rev)));
    }
    if case.kernels().iter().all(|k| revision.source(k.file) == Some(k.source().source)) {
        return Ok(AbResult::Identical(format!(
            "{list} identical at {} ({}): not timed",
            revision.rev,
            &revision.commit[..12]
        )));
    }
    let compiled_b = program::compile(gpu, case).map_err(harness_error)?;
    let compiled_a = match program::compile_from(gpu, case, |k| revision.source(k.file)) {
        Ok(Some(c)) => c,
        Ok(None) => unreachable!("every file exists at the revision (checked above)"),
        Err(crate::Error::Driver { .. }) => {
            return Ok(AbResult::New(format!(
                "{list} at {} lacks an entry point of {}",
                revision.rev,
                case.kernel_names()
            )));
        }
        Err(e) => return Err(Failed::from(format!("{list} at {}: {e}", revision.rev))),
    };
    let module_b = compiled_b.module_sha256.clone();
    println!(
        "kernelgate: {}: A = {list} at {} (module {}), B = this build (module {})",
        case.name(),
        revision.rev,
        &compiled_a.module_sha256[..12],
        &module_b[..12]
    );
    let checked_a =
        check::check_case(gpu, case, &compiled_a, seed, check::SharedStart::Poisoned).map_err(harness_error)?;
    let mut bound_a = checked_a.map_err(|m| Failed::from(format!("A ({list} at {}): {m}", revision.rev)))?;
    let mut bound = check::check_case(gpu, case, &compiled_b, seed, check::SharedStart::Poisoned)
        .map_err(harness_error)?
        .map_err(Failed::from)?;
    let ranges = nvtx_ranges(case);
    // Each version replays its own bound buffers (a graph captures its buffers' addresses); both
    // hold the same inputs, drawn from the trial's seed.
    let pairs = measure_pairs(
        gpu,
        &config.stopping,
        config.warmup,
        config.effect_floor_pct() / 100.0,
        check::trial_seed(seed, &case.name()),
        || program::run(gpu, case, &compiled_a, &mut bound_a),
        || program::run(gpu, case, &compiled_b, &mut bound),
    )
    .map_err(harness_error)?;
    drop(ranges);
    let samples_b = pairs.as_samples_of_b();
    let (a, b, throttled) = pairs.kept();
    let policy = gate::Policy {
        alpha: config.alpha,
        effect_floor: config.effect_floor_pct() / 100.0,
        ..gate::Policy::default()
    };
    let judged = judge_pairs(&a, &b, samples_b.invalid_reason(), &policy, tests, revision)?;
    let summary = crate::stats::summarize(if b.is_empty() { &pairs.b } else { &b });
    let result = CaseResult {
        trial: case.name(),
        kernel: case.kernel_names(),
        summary,
        stop: pairs.stop,
        wall_s: pairs.wall_s,
        bytes: case.bytes,
        flops: case.flops,
        module_sha256: module_b,
        sm_clock_mhz: samples_b.median_sm_mhz(),
        throttled,
        throttle_reasons: samples_b.throttle_reasons(),
        other_processes: pairs.other_processes.clone(),
        verdict: judged.verdict,
        decided_by: "time (A/B)".into(),
        comparison: judged.comparison.clone(),
        invalid_reason: samples_b.invalid_reason(),
        resources: program::resources(gpu, case, &compiled_b),
    };
    let kept = crate::stats::evenly_spaced(&b, config.baseline_samples);
    Ok(AbResult::Timed { result: Box::new(result), judged, kept })
}

/// The verdict of paired samples, with the sentence that explains it.
fn judge_pairs(
    a: &[f64],
    b: &[f64],
    invalid: Option<String>,
    policy: &gate::Policy,
    tests: usize,
    revision: &Revision,
) -> Result<Judged, Failed> {
    let plain = |reason: String| Judged {
        verdict: Verdict::Invalid,
        decided: Decided::Conditions,
        comparison: None,
        moved: Vec::new(),
        reason,
    };
    if let Some(why) = invalid {
        return Ok(plain(why));
    }
    let zeros = a.iter().chain(b).filter(|&&x| x == 0.0).count();
    if zeros > 0 {
        return Ok(plain(format!(
            "{zeros} samples read 0 s, below the timer's resolution: the kernel is too short to time alone"
        )));
    }
    let c = gate::paired::compare_paired(a, b, policy, tests).map_err(|e| Failed::from(e.to_string()))?;
    let reason = match c.too_noisy() {
        Some(why) => why,
        None => format!(
            "B (this build) vs A ({} = {}): median per-pair ratio {:+.2}% over {} pairs (medians {} vs {}), one-sided \
             Wilcoxon signed-rank p = {:.2e}, x{tests} cases (Bonferroni) = {:.2e} against alpha {}, effect floor {:.2}%",
            revision.rev,
            &revision.commit[..12],
            100.0 * c.delta,
            a.len(),
            crate::units::duration(c.median_s),
            crate::units::duration(c.baseline_median_s),
            c.p_value,
            c.p_adjusted,
            policy.alpha,
            100.0 * c.min_effect
        ),
    };
    let decided = if c.verdict == Verdict::Invalid { Decided::Conditions } else { Decided::Time };
    Ok(Judged { verdict: c.verdict, decided, comparison: Some(c), moved: Vec::new(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_reads_kernels_from_git_objects() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
        std::fs::write(dir.path().join("kernels/a.cu"), "extern \"C\" __global__ void k() {}\n").unwrap();
        std::fs::write(dir.path().join("kernels/notes.txt"), "not a kernel").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("kernels/a.cu")).unwrap();
        index.add_path(Path::new("kernels/notes.txt")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let id = repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[]).unwrap();
        // The working tree moves on; the revision still reads the committed text.
        std::fs::write(dir.path().join("kernels/a.cu"), "changed").unwrap();
        let r = Revision::read(dir.path(), "HEAD").unwrap();
        assert_eq!(r.commit, id.to_string());
        assert_eq!(r.source("a.cu"), Some("extern \"C\" __global__ void k() {}\n"));
        assert_eq!(r.source("notes.txt"), None, "only .cu files");
        assert_eq!(r.source("b.cu"), None);
        let e = Revision::read(dir.path(), "nope").unwrap_err();
        assert!(e.contains("nope is not a commit"), "{e}");
        let outside = tempfile::tempdir().unwrap();
        assert!(Revision::read(outside.path(), "HEAD").unwrap_err().contains("needs a git repository"));
    }

    #[test]
    fn pairs_are_judged_with_a_sentence_naming_both_versions() {
        let revision = Revision { rev: "main".into(), commit: "0123456789abcdef0123".into(), files: BTreeMap::new() };
        let a: Vec<f64> = (0..400).map(|i| 1e-4 * (1.0 + 0.001 * f64::from(i % 7))).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 1.05).collect();
        let j = judge_pairs(&a, &b, None, &gate::Policy::default(), 35, &revision).unwrap();
        assert_eq!(j.verdict, Verdict::Regressed);
        assert!(
            j.reason
                .starts_with("B (this build) vs A (main = 0123456789ab): median per-pair ratio +5.00% over 400 pairs"),
            "{}",
            j.reason
        );
        let j = judge_pairs(
            &a,
            &b,
            Some("other processes computed on the GPU (pids [3])".into()),
            &gate::Policy::default(),
            35,
            &revision,
        )
        .unwrap();
        assert_eq!(j.verdict, Verdict::Invalid);
    }
}
