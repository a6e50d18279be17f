//! The diff report as GitHub-flavoured Markdown, sized for a CI step summary
//! (`$GITHUB_STEP_SUMMARY`) or a pull-request comment: a one-line summary, a table of the changed
//! trials (time old -> new, change, verdict, what explains it), then, inside a collapsed `<details>`
//! block, every trial's time and every metric of the changed trials. The page stays under
//! [`MAX_CHARS`]: GitHub refuses a comment longer than 65,536 characters; the HTML page holds
//! everything.
//!
//! Every piece of data (trial, kernel and metric names, side labels, verdicts) goes through
//! [`escape`], so a name cannot break the table or inject HTML (GFM, sections 2.4 "Backslash
//! escapes", 4.10 "Tables" and 6.6 "Raw HTML": <https://github.github.com/gfm/>).

use super::diff::{Diff, MetricDiff, Presence, TrialDiff, percent};
use crate::units::{duration, format_value};
use std::fmt::Write as _;

/// Largest Markdown [`render`] writes, in characters: under GitHub's 65,536-character limit on an
/// issue or pull-request comment body (its API answers "Body is too long (maximum is 65536
/// characters)"), with room for a caller's header.
pub const MAX_CHARS: usize = 60_000;

/// Said under the changed trials: the verdict column is not this diff's judgement.
const VERDICT_NOTE: &str = "\n*new run's verdict*: what the new side's runs were told by their own gate (against \
                            their baseline or A/B revision; the most severe of several runs), not a judgement of \
                            this diff.\n";

/// Renders `diff` as Markdown (pure). Trials in the diff's order; metrics by kernel and name. Rows
/// that would pass [`MAX_CHARS`] are left out, and the page says how many.
pub fn render(diff: &Diff) -> String {
    let mut out = String::new();
    writeln!(out, "### kernelgate diff: {}\n", escape(&diff.summary())).unwrap();
    writeln!(
        out,
        "old: {} on {} -> new: {} on {}\n",
        side(&diff.old.label),
        side(&diff.old.gpu),
        side(&diff.new.label),
        side(&diff.new.gpu)
    )
    .unwrap();
    for note in &diff.notes {
        writeln!(out, "> **Note:** {}\n", escape(note)).unwrap();
    }
    let changed: Vec<&TrialDiff> = diff.changed().collect();
    if changed.is_empty() {
        writeln!(out, "No trial changed: every time moved by less than 1 % and no verdict asks for attention.\n")
            .unwrap();
    } else {
        out.push_str("| trial | time old -> new | change | new run's verdict | what explains it |\n");
        out.push_str("|:--|--:|--:|:--|:--|\n");
        for t in changed {
            // `change()` is kernelgate's own text (numbers, `x`, `->`): nothing to escape.
            let explanation: Vec<String> =
                t.explanation.iter().map(|f| format!("{} {}", escape(&f.metric), f.change())).collect();
            writeln!(
                out,
                "| {} | {} -> {} | {} | {} | {} |",
                escape(&t.trial),
                time(t.old_s),
                time(t.new_s),
                t.delta().map(percent).unwrap_or_default(),
                verdict(t),
                explanation.join("; "),
            )
            .unwrap();
        }
        out.push_str(VERDICT_NOTE);
        out.push('\n');
    }
    writeln!(
        out,
        "<details><summary>All {}: the time of each, every metric of the changed ones</summary>\n",
        crate::units::count(diff.trials.len(), "trial")
    )
    .unwrap();
    out.push_str("| trial | metric | old | new | change |\n");
    out.push_str("|:--|:--|--:|--:|--:|\n");
    let closing = "\n</details>\n";
    let mut rows = Vec::new();
    for t in &diff.trials {
        rows.push(format!(
            "| {} | time (median) | {} | {} | {} |\n",
            escape(&t.trial),
            time(t.old_s),
            time(t.new_s),
            t.delta().map(percent).unwrap_or_default()
        ));
        if !t.changed() {
            continue;
        }
        for m in &t.metrics {
            rows.push(format!(
                "| {} | {} | {} | {} | {} |\n",
                escape(&t.trial),
                escape(&t.metric_name(m)),
                value(m.old, m),
                value(m.new, m),
                m.delta().map(percent).unwrap_or_default()
            ));
        }
    }
    let room = MAX_CHARS.saturating_sub(out.len() + closing.len() + 120);
    let mut used = 0;
    let kept = rows.iter().take_while(|r| {
        used += r.len();
        used <= room
    });
    let kept: Vec<&String> = kept.collect();
    let left_out = rows.len() - kept.len();
    out.extend(kept.into_iter().map(String::as_str));
    if left_out > 0 {
        writeln!(out, "\n{left_out} more rows left out to fit a comment; the HTML report has them all.").unwrap();
    }
    out.push_str(closing);
    out
}

/// `text` safe in a GFM paragraph or table cell: ASCII punctuation that Markdown gives a meaning
/// (`\` `` ` `` `*` `_` `[` `]` `|` `~` `#` `!`) backslash-escaped; `<`, `>` and `&` as HTML entities
/// (so no tag survives); line breaks as spaces (a table row is one line).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn side(text: &str) -> String {
    if text.is_empty() { "(unnamed)".into() } else { escape(text) }
}

fn time(s: Option<f64>) -> String {
    s.map_or("absent".into(), duration)
}

fn value(v: Option<f64>, m: &MetricDiff) -> String {
    v.map_or("absent".into(), |v| escape(&format_value(v, &m.unit)))
}

/// `**regressed** (time)`; `added, no-baseline`; `removed`.
fn verdict(t: &TrialDiff) -> String {
    let v = escape(&t.verdict);
    let by = if t.decided_by.is_empty() { String::new() } else { format!(" ({})", escape(&t.decided_by)) };
    match t.presence {
        Presence::Removed => "removed".into(),
        Presence::Added => format!("added, {v}{by}"),
        Presence::Both if t.verdict == "regressed" || t.verdict == "invalid" => format!("**{v}**{by}"),
        Presence::Both => format!("{v}{by}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::{row, side as diff_side, synthetic};
    use crate::report::diff::{Measurement, diff};

    #[test]
    fn golden() {
        let expected = include_str!("../../tests/fixtures/report/synthetic.md");
        let got = render(&synthetic());
        if got != expected && std::env::var_os("KERNELGATE_BLESS_GOLDEN").is_some() {
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/report/synthetic.md"), &got).unwrap();
        }
        assert_eq!(got, expected, "rendered Markdown differs from tests/fixtures/report/synthetic.md");
    }

    #[test]
    fn hostile_names_are_escaped() {
        assert_eq!(escape("a|b<script>*x*"), r"a\|b&lt;script&gt;\*x\*");
        assert_eq!(escape("l1tex__t `x` [y](z)\n#1 ~ & !"), r"l1tex\_\_t \`x\` \[y\](z) \#1 \~ &amp; \!");
        let hostile = "a|b<script>*x*";
        let old =
            [Measurement { kernel: hostile.into(), ..row(&format!("f/{hostile}/1"), "median", "s", 1.0, "unchanged") }];
        let new = [
            Measurement { kernel: hostile.into(), ..row(&format!("f/{hostile}/1"), "median", "s", 2.0, "regressed") },
            Measurement { kernel: hostile.into(), ..row(&format!("f/{hostile}/1"), "c_|_", "", 2.0, "regressed") },
        ];
        let mut new_side = diff_side("<b>new</b>");
        new_side.gpu = "gpu|x".into();
        let text = render(&diff(&diff_side("old"), &old, &new_side, &new));
        assert!(!text.contains("<script>") && !text.contains("<b>"), "{text}");
        assert!(text.contains(r"f/a\|b&lt;script&gt;\*x\*/1"), "{text}");
        assert!(text.contains(r"&lt;b&gt;new&lt;/b&gt; on gpu\|x"), "{text}");
        // Every table row keeps its column count: unescaped pipes only as cell borders.
        for line in text.lines().filter(|l| l.starts_with('|')) {
            let cells = line.replace(r"\|", "").matches('|').count();
            assert_eq!(cells, 6, "{cells} borders in {line}");
        }
    }

    #[test]
    fn a_large_diff_fits_a_comment_and_says_what_it_left_out() {
        // 300 regressed trials of 40 counters each: far more than a comment holds.
        let mut old = Vec::new();
        let mut new = Vec::new();
        for t in 0..300 {
            let trial = format!("family/kernel_{t}/4096x4096");
            old.push(row(&trial, "median", "s", 1e-4, "unchanged"));
            new.push(row(&trial, "median", "s", 2e-4, "regressed"));
            for c in 0..40 {
                old.push(row(&trial, &format!("l1tex__counter_{c}.sum"), "", 1.0, "unchanged"));
                new.push(row(&trial, &format!("l1tex__counter_{c}.sum"), "", 3.0, "regressed"));
            }
        }
        let text = render(&diff(&diff_side("a"), &old, &diff_side("b"), &new));
        assert!(text.len() <= MAX_CHARS, "{} characters", text.len());
        assert!(text.contains("more rows left out to fit a comment"), "{}", &text[text.len() - 300..]);
        assert!(text.ends_with("</details>\n"));
        // An unchanged trial shows its time only.
        let rows = [row("a/k/1", "median", "s", 1.0, "unchanged"), row("a/k/1", "c", "", 1.0, "unchanged")];
        let text = render(&diff(&diff_side("a"), &rows, &diff_side("b"), &rows));
        assert!(text.contains("| a/k/1 | time (median) |") && !text.contains("| a/k/1 | c |"), "{text}");
    }

    #[test]
    fn nothing_changed_says_so() {
        let rows = [row("a/k/1", "median", "s", 1.0, "unchanged")];
        let text = render(&diff(&diff_side("a"), &rows, &diff_side("b"), &rows));
        assert!(
            text.starts_with("### kernelgate diff: 1 within 1 % (1 trial); new runs' verdicts: 1 unchanged\n"),
            "{text}"
        );
        assert!(text.contains("No trial changed"), "{text}");
    }
}
