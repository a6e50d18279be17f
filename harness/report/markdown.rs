//! The diff report as GitHub-flavoured Markdown, sized for a CI step summary
//! (`$GITHUB_STEP_SUMMARY`) or a pull-request comment: the status line first (the diff's own
//! summary), each side with its runs and GPUs, a four-column table of the changed trials (the
//! diff's own change worded and marked 🔴 slower / 🟢 faster, time old -> new, the new run's own
//! gate verdict, which is a separate question), what explains each change in a collapsed
//! `<details>` block, then, in another, every trial's time and every metric of the changed trials. The page stays under
//! [`MAX_CHARS`]: GitHub refuses a comment longer than 65,536 characters; rows of either table that
//! do not fit are left out, and the page says how many and that the HTML page holds everything.
//!
//! Every piece of data (trial, kernel and metric names, side labels, verdicts) goes through
//! [`escape`], so a name cannot break the table or inject HTML (GFM, sections 2.4 "Backslash
//! escapes", 4.10 "Tables" and 6.6 "Raw HTML": <https://github.github.com/gfm/>), cannot notify
//! anyone (`@user`, `@org/team`), cannot become a link (GFM 6.9 "Autolinks (extension)": `www.`,
//! `scheme://`, e-mail addresses), and cannot reorder what is shown with a bidirectional control
//! character.

use super::diff::{Change, Diff, MetricDiff, Presence, TrialDiff, percent};
use crate::units::{duration, format_value};
use std::fmt::Write as _;

/// Largest Markdown [`render`] writes, in bytes (so at most as many characters): under GitHub's
/// 65,536-character limit on an issue or pull-request comment body (its API answers "Body is too
/// long (maximum is 65536 characters)"), with room for a caller's header.
pub const MAX_CHARS: usize = 60_000;

/// Said under the changed trials: what the change column compares, and that the gate column is
/// not this diff's judgement.
const VERDICT_NOTE: &str = "\n*change*: the new side's median time against the old side's, 🔴 slower or 🟢 faster \
                            from 1 % on. *new run's own gate*: what the new side's runs were told by their own \
                            gate (against their baseline or A/B revision, which may have been blessed on another \
                            GPU; the most severe of several runs), not a judgement of this diff.\n";

/// Said under the changed trials when a row shows its change's interval ([`interval_text`]).
const INTERVAL_NOTE: &str = "In brackets: the change's 95 % confidence interval in %, from the sides' runs (the \
                             spread of their medians, or one run's interval of its median); *within noise* where \
                             it holds 0.\n";

/// Said under the changed trials when a row shows its % of the vendor reference.
const VENDOR_NOTE: &str = "Under a time, where the runs timed one: the speed as % of the vendor library's \
                           reference of the trial's family and size (its median over the trial's).\n";

/// The columns of the changed trials' table: four, so that it fits a pull-request comment (812 px
/// wide on github.com); what explains each change follows the table.
pub const CHANGED_HEAD: &str = "| trial | change | time old -> new | new run's own gate |\n|:--|:--|--:|:--|\n";

/// Room kept for the lines that say what was left out (each under 200 bytes).
const LEFT_OUT_ROOM: usize = 400;

/// Renders `diff` as Markdown (pure), at most [`MAX_CHARS`] long. Trials in the diff's order;
/// metrics by kernel and name. The changed trials' table comes first and may use all the room
/// left after the summary and notes; rows of it that do not fit are left out, then rows of the
/// `<details>` table, and the page says how many of each and that the HTML page (`kernelgate
/// diff ... --html FILE`) lists them all.
pub fn render(diff: &Diff) -> String {
    let mut out = String::new();
    writeln!(out, "### kernelgate diff: {}\n", escape(&diff.summary())).unwrap();
    for (which, d) in [("old", &diff.old), ("new", &diff.new)] {
        let pooled = super::diff::change::pooled(d);
        let pooled = if pooled.is_empty() { String::new() } else { format!("; {}", escape(&pooled)) };
        writeln!(out, "- {which}: {} on {}{pooled}", side(&d.label), side(&d.gpu)).unwrap();
    }
    out.push('\n');
    for note in super::diff::change::pooled_notes(diff).iter().chain(&diff.notes) {
        writeln!(out, "> **Note:** {}\n", escape(note)).unwrap();
    }
    paired(diff, &mut out);
    let details_head = format!(
        "<details><summary>All {}: the time of each, every metric of the changed ones</summary>\n\n\
         | trial | metric | old | new | change |\n|:--|:--|--:|--:|--:|\n",
        crate::units::count(diff.trials.len(), "trial")
    );
    let closing = "\n</details>\n";
    // What every page has besides the rows of its two tables.
    let fixed = |out: &str| out.len() + details_head.len() + closing.len() + LEFT_OUT_ROOM;
    let changed: Vec<&TrialDiff> = diff.changed().collect();
    if changed.is_empty() {
        writeln!(out, "No trial changed: every time moved by less than 1 % and no verdict asks for attention.\n")
            .unwrap();
    } else {
        let head = CHANGED_HEAD;
        let rows: Vec<String> = changed.iter().map(|t| changed_row(diff, t)).collect();
        let room = MAX_CHARS.saturating_sub(
            fixed(&out) + head.len() + VERDICT_NOTE.len() + INTERVAL_NOTE.len() + VENDOR_NOTE.len() + 3,
        );
        let (kept, left_out) = fit(&rows, room);
        out.push_str(head);
        out.extend(kept.iter().map(|r| r.as_str()));
        if left_out > 0 {
            writeln!(
                out,
                "\n{} left out of this table to keep the report under {MAX_CHARS} characters (a pull-request \
                 comment's limit); the HTML report (`kernelgate diff ... --html FILE`) lists every trial.",
                crate::units::count(left_out, "more changed trial")
            )
            .unwrap();
        }
        out.push_str(VERDICT_NOTE);
        if changed.iter().any(|t| t.interval().is_some()) {
            out.push('\n');
            out.push_str(INTERVAL_NOTE);
        }
        let vendor = |t: &&TrialDiff| super::vendor::diff_text(diff, t, &diff.vendors).is_some();
        if changed[..kept.len()].iter().any(vendor) {
            out.push('\n');
            out.push_str(VENDOR_NOTE);
        }
        out.push('\n');
        let room = MAX_CHARS.saturating_sub(fixed(&out));
        explained(&changed[..kept.len()], &mut out, room);
    }
    out.push_str(&details_head);
    let mut rows = Vec::new();
    for t in &diff.trials {
        rows.push(format!(
            "| {} | time (median) | {} | {} | {} |\n",
            escape(&t.trial),
            time(t.old_s),
            time(t.new_s),
            t.delta().map(percent).unwrap_or_default()
        ));
        // A trial on one side only has nothing to compare: its time row says where it is.
        if !t.changed() || t.presence != Presence::Both {
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
    let room = MAX_CHARS.saturating_sub(out.len() + closing.len() + LEFT_OUT_ROOM);
    let (kept, left_out) = fit(&rows, room);
    out.extend(kept.iter().map(|r| r.as_str()));
    if left_out > 0 {
        writeln!(
            out,
            "\n{left_out} more rows left out to fit a comment; the HTML report (`kernelgate diff ... --html FILE`) has \
             them all."
        )
        .unwrap();
    }
    out.push_str(closing);
    out
}

/// The paired-evidence table ([`super::diff::paired_rows`]), at most a quarter of the page.
fn paired(diff: &Diff, out: &mut String) {
    let rows: Vec<String> = super::diff::paired_rows(diff)
        .iter()
        .map(|cells| {
            // Trial, verdict and run come from the data; the numbers are this crate's own text.
            let shown: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| if (1..=3).contains(&i) { c.clone() } else { escape(c) })
                .collect();
            format!("| {} |\n", shown.join(" | "))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    writeln!(out, "#### Same-run A/B of these two commits\n").unwrap();
    writeln!(out, "| {} |\n|:--|--:|--:|--:|:--|:--|", super::diff::PAIRED_COLUMNS.join(" | ")).unwrap();
    // Half of what is left, so that the changed trials' table keeps room of its own.
    let (kept, left_out) = fit(&rows, MAX_CHARS.saturating_sub(out.len() + LEFT_OUT_ROOM) / 2);
    out.extend(kept.iter().map(|r| r.as_str()));
    if left_out > 0 {
        writeln!(
            out,
            "\n{left_out} more paired rows (the smallest changes) left out to fit a comment; the HTML report \
             (`kernelgate diff ... --html FILE`) lists every pair."
        )
        .unwrap();
    }
    out.push('\n');
}

/// The leading rows of `rows` whose lengths add up to at most `room` bytes, and how many are left.
fn fit(rows: &[String], room: usize) -> (&[String], usize) {
    let mut used = 0;
    let n = rows.iter().take_while(|r| {
        used += r.len();
        used <= room
    });
    let n = n.count();
    (&rows[..n], rows.len() - n)
}

/// One row of the changed trials' table ([`CHANGED_HEAD`]): the diff's own change worded and
/// marked (🔴 slower, 🟢 faster), then the times (and under them, where the trial has a vendor
/// reference, its % of it old -> new: [`super::vendor::diff_text`]), then the new run's own gate.
fn changed_row(diff: &Diff, t: &TrialDiff) -> String {
    let change = t.change();
    let word = match change {
        Change::Slower => format!("🔴 **{}**", change.word()),
        Change::Faster => format!("🟢 **{}**", change.word()),
        _ => change.word().to_string(),
    };
    let pct = t.delta().filter(|d| d.is_finite()).map_or(String::new(), |d| format!(" {}", percent(d)));
    let pct = format!("{pct}{}", interval_lines(t, "<br>"));
    // The speed against the vendor reference under the time: kernelgate's own text (numbers, `%`,
    // `->` and a library name of the case table), nothing to escape.
    let vendor = super::vendor::diff_text(diff, t, &diff.vendors).map_or(String::new(), |v| format!("<br>{v}"));
    format!(
        "| {} | {word}{pct} | {} -> {}{vendor} | {} |\n",
        escape(&t.trial),
        time(t.old_s),
        time(t.new_s),
        verdict(t),
    )
}

/// The change's 95 % interval for a cell, after the change: ` [+1.8, +2.4]`, and ` within noise`
/// where it holds 0 ([`super::diff::interval`]); empty without one. Digits, signs, brackets and
/// words only.
pub fn interval_text(t: &TrialDiff) -> String {
    interval_lines(t, " ")
}

/// [`interval_text`] with `sep` before the interval and before `within noise` (the Markdown's
/// `<br>`: a table as wide as its longest lines must fit an 812 px comment).
fn interval_lines(t: &TrialDiff, sep: &str) -> String {
    t.interval().map_or(String::new(), |i| {
        let noise = if i.straddles_zero() { format!("{sep}within noise") } else { String::new() };
        format!("{sep}{}{noise}", super::diff::interval::text(&i))
    })
}

/// What explains each change of `changed` that has an explanation, one line per trial inside a
/// collapsed `<details>` block, in at most `room` bytes (lines that do not fit are counted).
fn explained(changed: &[&TrialDiff], out: &mut String, room: usize) {
    // `change()` is kernelgate's own text (numbers, `x`, `->`): nothing to escape.
    let lines: Vec<String> = changed
        .iter()
        .filter(|t| !t.explanation.is_empty())
        .map(|t| {
            let factors: Vec<String> =
                t.explanation.iter().map(|f| format!("{} {}", escape(&f.metric), f.change())).collect();
            format!(
                "- {} ({} {}): {}\n",
                escape(&t.trial),
                t.change().word(),
                t.delta().map(percent).unwrap_or_default(),
                factors.join("; ")
            )
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    let head = format!(
        "<details><summary>What explains each change ({})</summary>\n\n",
        crate::units::count(lines.len(), "trial")
    );
    let closing = "\n</details>\n\n";
    let (kept, left_out) = fit(&lines, room.saturating_sub(head.len() + closing.len()) / 2);
    out.push_str(&head);
    out.extend(kept.iter().map(|r| r.as_str()));
    if left_out > 0 {
        writeln!(out, "\n{left_out} more left out to fit a comment; the HTML report has them all.").unwrap();
    }
    out.push_str(closing);
}

/// Zero width space (U+200B): put after `@`, inside `://` and after `www`, it keeps the text as it
/// reads while GitHub neither links it nor notifies anyone. A backslash or an HTML entity is not
/// enough for a mention: GitHub finds mentions in the rendered text, after escapes and entities are
/// resolved (openjdk/skara pull request 1548 found `&#64;` still mentions; an invisible character
/// after `@` does not).
const ZWSP: char = '\u{200B}';

/// `text` safe in a GFM paragraph or table cell of a report meant for a pull-request comment:
/// - ASCII punctuation that Markdown gives a meaning (`\` `` ` `` `*` `_` `[` `]` `|` `~` `#` `!`)
///   backslash-escaped; `<`, `>` and `&` as HTML entities (so no tag survives);
/// - no live mention and no autolink: a zero width space after each `@` (`@user`, `@org/team`,
///   e-mail addresses), between `:` and `//` (`https://…`), and between `www` and `.`;
/// - bidirectional controls and other control characters shown as `[U+202E]` (escaped like any
///   `[`), so they cannot reorder what is displayed (Unicode `Bidi_Control`, the "Trojan Source"
///   characters, CVE-2021-42574) and nothing is silently dropped;
/// - line breaks and tabs as spaces (a table row is one line).
pub fn escape(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => {
                out.push('@');
                out.push(ZWSP);
            }
            ':' if chars.get(i + 1..i + 3) == Some(&['/', '/']) => {
                out.push(':');
                out.push(ZWSP);
            }
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => {
                out.push(ZWSP);
                out.push('.');
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if super::hidden(c) => write!(out, "\\[U+{:04X}\\]", u32::from(c)).unwrap(),
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

/// The new run's own gate: `regressed (time)`; `no-baseline (conditions)`; empty for a trial only
/// in the old runs (the change column says where it is).
fn verdict(t: &TrialDiff) -> String {
    let v = escape(&t.verdict);
    let by = if t.decided_by.is_empty() { String::new() } else { format!(" ({})", escape(&t.decided_by)) };
    match t.presence {
        Presence::Removed => String::new(),
        Presence::Added | Presence::Both => format!("{v}{by}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::{row, side as diff_side, synthetic};
    use crate::report::diff::{Measurement, diff};

    #[test]
    fn golden() {
        let expected = include_str!("../tests/fixtures/report/synthetic.md");
        let got = render(&synthetic());
        if got != expected && std::env::var_os("KERNELGATE_BLESS_GOLDEN").is_some() {
            std::fs::write(crate::source::fixture_path("report/synthetic.md"), &got).unwrap();
        }
        assert_eq!(got, expected, "rendered Markdown differs from harness/tests/fixtures/report/synthetic.md");
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
        // Every table row keeps its table's column count: unescaped pipes only as cell borders.
        let mut header = 0;
        let mut previous_in_table = false;
        for line in text.lines() {
            let in_table = line.starts_with('|');
            if in_table {
                let cells = line.replace(r"\|", "").matches('|').count();
                if !previous_in_table {
                    header = cells;
                    assert!(header == 5 || header == 6, "a table of {header} borders: {line}");
                }
                assert_eq!(cells, header, "{cells} borders in {line}");
            }
            previous_in_table = in_table;
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
    fn trials_of_one_side_only_are_named_and_not_filled_with_absent_metrics() {
        // The new side ran a filtered selection: the old side's other trials are only in the old runs.
        let mut old = vec![row("a/k/1", "median", "s", 1.0, "unchanged")];
        for t in 0..50 {
            old.push(row(&format!("b/k{t}/1"), "median", "s", 1.0, "unchanged"));
            old.extend((0..40).map(|c| row(&format!("b/k{t}/1"), &format!("c{c}"), "", 1.0, "unchanged")));
        }
        let new = [row("a/k/1", "median", "s", 1.0, "unchanged")];
        let text = render(&diff(&diff_side("a"), &old, &diff_side("b"), &new));
        assert!(text.starts_with("### kernelgate diff: 1 within 1 %, 50 only in the old runs (51 trials)"), "{text}");
        assert!(text.contains("| b/k0/1 | only in the old runs | 1.000 s -> absent |  |"), "{text}");
        assert!(!text.contains("| b/k0/1 | c0 |"), "no metric rows for a trial with nothing to compare: {text}");
        assert!(text.len() < 12_000, "{} characters", text.len());
    }

    #[test]
    fn mentions_autolinks_and_bidi_controls_are_neutralised() {
        let z = ZWSP;
        assert_eq!(escape("@octocat and @github/security"), format!("@{z}octocat and @{z}github/security"));
        assert_eq!(escape("a@b.example"), format!("a@{z}b.example"));
        assert_eq!(escape("https://evil.example/x?a=1"), format!("https:{z}//evil.example/x?a=1"));
        assert_eq!(escape("WWW.evil.example"), format!("WWW{z}.evil.example"));
        assert_eq!(escape("a: b, 10:30"), "a: b, 10:30", "only `://` is broken");
        assert_eq!(escape("fam/\u{202E}gnp.exe/1"), r"fam/\[U+202E\]gnp.exe/1");
        assert_eq!(escape("\u{2066}x\u{2069}\u{200F}\u{1b}[31m\t"), r"\[U+2066\]x\[U+2069\]\[U+200F\]\[U+001B\]\[31m ");
        // In a whole report: no `@` followed by a name, no `://`, no bidi control.
        let name = "fam/@octocat https://evil.example \u{202E}x/1";
        let rows = |v: f64| vec![row(name, "median", "s", v, "regressed")];
        let text = render(&diff(&diff_side("by @alice"), &rows(1.0), &diff_side("b"), &rows(2.0)));
        assert!(!text.contains("@o") && !text.contains("@a") && !text.contains("://"), "{text}");
        assert!(!text.chars().any(|c| c != '\n' && crate::report::hidden(c)), "{text:?}");
    }

    #[test]
    fn ten_thousand_changed_trials_fit_and_the_cut_is_said() {
        // Half of 10,000 trials 5 % slower, as the turn-3 field report 19 (made-up times).
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for t in 0..10_000 {
            let trial = format!("fam{}/kernel_{t}/4096", t % 12);
            let m = 1e-4 * (1.0 + t as f64 / 10_000.0);
            old.push(row(&trial, "median", "s", m, "unchanged"));
            new.push(row(&trial, "median", "s", if t % 2 == 0 { m * 1.05 } else { m }, "unchanged"));
        }
        let text = render(&diff(&diff_side("a"), &old, &diff_side("b"), &new));
        assert!(text.len() <= MAX_CHARS, "{} characters", text.len());
        let kept = text.lines().filter(|l| l.starts_with("| fam") && l.contains(" -> ")).count();
        assert!(kept > 100, "the changed table keeps what fits: {kept} rows");
        let said = format!("{} more changed trials left out of this table", 5000 - kept);
        assert!(text.contains(&said), "{said:?} not in the report");
        assert!(text.contains("lists every trial"), "where the full list is");
        assert!(text.ends_with("</details>\n"));
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
