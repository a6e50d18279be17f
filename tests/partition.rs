//! `--partition count:K/N` in the suite binary: N shards list and run every selected trial once
//! between them, in sizes that differ by at most one, and a value outside nextest's form stops
//! the run with exit code 2 naming the flag.

mod support;

use std::collections::BTreeSet;

/// The trial names `--list` prints, with `args`.
fn listed(args: &[&str]) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let (code, text) = support::kernels(&[&["--list"], args].concat(), &[], out.path());
    assert_eq!(code, 0, "{text}");
    text.lines().filter_map(|l| l.strip_suffix(": test")).map(String::from).collect()
}

#[test]
fn the_shards_hold_every_selected_trial_once() {
    for filter in [&[][..], &["transpose"][..]] {
        let all = listed(filter);
        assert!(all.len() > 10, "{all:?}");
        let mut seen = BTreeSet::new();
        let mut sizes = Vec::new();
        for k in 1..=3 {
            let shard = listed(&[filter, &["--partition", &format!("count:{k}/3")]].concat());
            sizes.push(shard.len());
            for name in shard {
                assert!(seen.insert(name.clone()), "{name} in two shards");
            }
        }
        assert_eq!(seen, all.iter().cloned().collect::<BTreeSet<_>>(), "filter {filter:?}");
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
    }
    assert_eq!(listed(&["--partition=count:1/1"]), listed(&[]));
}

/// A shard's run counts the trials its filter leaves out as libtest does, and runs its share of
/// the rest (no GPU here: the GPU trials are ignored, the compile trials run where NVRTC is).
#[test]
fn a_shard_counts_the_filtered_out_trials_as_the_whole_run_does() {
    let out = tempfile::tempdir().unwrap();
    let summary = |text: &str| text.lines().find(|l| l.starts_with("test result:")).unwrap().to_string();
    let count = |line: &str, what: &str| -> usize {
        let at = line.find(&format!(" {what}")).unwrap();
        line[..at].rsplit(' ').next().unwrap().parse().unwrap()
    };
    let (code, whole) = support::kernels(&["transpose"], &[], out.path());
    assert_eq!(code, 0, "{whole}");
    let whole = summary(&whole);
    let (mut ran, mut filtered) = (0, Vec::new());
    for k in 1..=2 {
        let (code, text) = support::kernels(&["transpose", "--partition", &format!("count:{k}/2")], &[], out.path());
        assert_eq!(code, 0, "{text}");
        assert!(text.contains(&format!("kernelgate: --partition count:{k}/2: ")), "{text}");
        let line = summary(&text);
        ran += count(&line, "passed") + count(&line, "ignored") + count(&line, "failed");
        filtered.push(count(&line, "filtered out"));
    }
    assert_eq!(filtered, [count(&whole, "filtered out"); 2], "{whole}");
    assert_eq!(ran, count(&whole, "passed") + count(&whole, "ignored") + count(&whole, "failed"), "{whole}");
}

#[test]
fn a_value_outside_nextests_form_is_refused() {
    let out = tempfile::tempdir().unwrap();
    for bad in ["2/3", "count:4/3", "hash:1/2"] {
        let (code, text) = support::kernels(&["--list", "--partition", bad], &[], out.path());
        assert_eq!(code, 2, "{bad}: {text}");
        assert!(text.contains(&format!("kernelgate: --partition {bad:?} is invalid: count:K/N")), "{text}");
    }
}

#[test]
fn the_help_names_the_flag_before_libtests_own() {
    let out = tempfile::tempdir().unwrap();
    let (code, text) = support::kernels(&["--help"], &[], out.path());
    assert_eq!(code, 0, "{text}");
    let ours = text.find("--partition count:K/N").expect("the flag is in --help");
    let libtest = text.find("--list").expect("libtest's own help follows");
    assert!(ours < libtest && text.contains("kernelgate vars"), "{text}");
}
