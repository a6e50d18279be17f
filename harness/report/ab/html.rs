//! The A/B report as one self-contained HTML page ([`html`]): the same status, changed trials and
//! every trial as the Markdown comment, readable from 390 px wide, with WCAG 2.1 contrast.

use super::*;

/// The page's body text.
const INK: &str = "#1b1f24";
/// The page's background.
const PAPER: &str = "#ffffff";
/// Hints and `unchanged`.
const MUTED: &str = "#57606a";
/// The background of table headers.
const HEADER: &str = "#f3f5f7";
/// `regressed` (Primer's danger foreground).
const RED: &str = "#cf222e";
/// `improved` (Primer's success foreground).
const GREEN: &str = "#1a7f37";

/// Each verdict but `unchanged` and its colour, from GitHub Primer's light theme: danger (red),
/// success (green), attention (amber), done (purple), muted (grey). The verdict's word is written
/// in white on this colour, and a bar of it marks the verdict's rows and count on the page's white
/// background; so each colour must have a contrast of at least 4.5:1 with white (WCAG 2.1
/// SC 1.4.3, text), which is more than the 3:1 a bar needs (SC 1.4.11, non-text); a unit test
/// checks it, and the page's other text/background pairs. `unchanged` is written in grey with no
/// mark, so that the changed rows stand out.
pub const VERDICT_COLOURS: [(&str, &str); 5] =
    [("regressed", RED), ("improved", GREEN), ("ambiguous", "#9a6700"), ("invalid", "#8250df"), ("no-baseline", MUTED)];

/// What each verdict means, for the page's legend (B the side under test, A the reference).
const VERDICT_MEANING: [(&str, &str); 6] = [
    ("regressed", "B is slower than A by at least the effect floor, significantly (or a gating counter got worse)"),
    ("improved", "B is faster than A by at least the effect floor, significantly"),
    ("ambiguous", "a change of at least the effect floor that is not significant"),
    ("invalid", "the timing was too noisy or the conditions bad: no judgement"),
    (
        "no-baseline",
        "new since A: revision A lacks the trial's kernel, so B was timed alone, with no A to compare with",
    ),
    ("unchanged", "any change is smaller than the effect floor"),
];

/// The HTML page (pure): a self-contained file (a Content-Security-Policy of `default-src 'none'`,
/// no script, nothing loaded, system fonts), readable from 390 px wide: wide tables scroll inside
/// their own frame, and a trial name breaks only after a `/` (from 900 px up, not at all, but in
/// the table of trials not `unchanged`, where a name wraps rather than push what explains the
/// verdict out of view). In
/// order: the status (the count of each verdict, both sides with their full commits, the GPU's
/// name, key, UUID and driver), the trials not `unchanged` with what explains them (the counters
/// that moved, the verdict's sentence), every timed trial (A and B medians, the change with its
/// 95 % interval, the effect floor, pairs, adjusted p), the cases not timed, and a legend. Every
/// name goes through [`crate::report::html::escape`]; a verdict is told by its word and by its colour
/// ([`VERDICT_COLOURS`]).
pub fn html(r: &AbReport) -> String {
    use crate::report::html::{escape, page_start};
    let regressed = r.regressed();
    let status = if regressed { "regressions" } else { "no regression" };
    let title = format!("kernelgate A/B: {status}: B = {} against A = {}", r.b.label, r.a.label);
    let mut out = page_start(&title, &css());
    writeln!(out, "<header class=\"status {}\">", if regressed { "s-regressed" } else { "s-pass" }).unwrap();
    writeln!(out, "<h1>kernelgate A/B: {status}</h1>").unwrap();
    out.push_str("<ul class=\"counts\">");
    for (v, n) in r.counts() {
        write!(out, "<li class=\"{}\"><b>{n}</b> {}</li>", verdict_class(v), escape(v)).unwrap();
    }
    if r.trials.is_empty() {
        out.push_str("<li>nothing timed</li>");
    }
    out.push_str("</ul>\n");
    writeln!(
        out,
        "<p>of {} timed in pairs{}.</p>",
        crate::units::count(r.trials.len(), "trial"),
        if r.not_timed.is_empty() { String::new() } else { format!(", {} not timed", r.not_timed.len()) }
    )
    .unwrap();
    if let Some(line) = super::controls_line(r) {
        // The Markdown's line, escaped for Markdown; here the plain words.
        writeln!(out, "<p>{}</p>", escape(&line.replace('\\', ""))).unwrap();
    }
    writeln!(
        out,
        "<dl class=\"facts\">\n<dt>B, under test</dt><dd>{} <code>{}</code></dd>\n\
         <dt>A, reference</dt><dd>{} <code>{}</code></dd>\n\
         <dt>GPU</dt><dd>{} ({}), UUID <code>{}</code>, driver {}</dd>\n\
         <dt>run</dt><dd>{}; both sides timed in pairs in one process{}</dd>\n</dl>\n</header>",
        escape(&r.b.label),
        escape(&r.b.commit),
        escape(&r.a.label),
        escape(&r.a.commit),
        escape(&r.gpu.name),
        escape(&r.gpu.key),
        escape(&r.gpu.uuid),
        escape(&r.gpu.driver),
        escape(&r.run_id),
        if r.counters { ", with the ncu counters of both compared" } else { "" }
    )
    .unwrap();

    let changed: Vec<&AbTrial> = r.trials.iter().filter(|t| t.verdict != "unchanged").collect();
    writeln!(out, "<h2>Trials that did not come out unchanged ({})</h2>", changed.len()).unwrap();
    if changed.is_empty() {
        let none = if r.trials.is_empty() { "No trial was timed." } else { "Every timed trial came out unchanged." };
        writeln!(out, "<p>{none}</p>").unwrap();
    } else {
        out.push_str(
            "<div class=\"scroll\"><table class=\"changed\">\n<thead><tr><th>trial</th><th>verdict</th>\
             <th class=\"num\">A median</th><th class=\"num\">B median</th><th class=\"num\">change (95 % interval)</th>\
             <th class=\"num\">effect floor</th><th>what explains it</th></tr></thead>\n<tbody>\n",
        );
        for t in &changed {
            let moved: String = t.counters_moved.iter().map(|m| format!("<li>{}</li>", counter_moved(m))).collect();
            writeln!(
                out,
                "<tr class=\"{}\"><td class=\"name\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"explains\">{}<p class=\"why\">{}</p></td></tr>",
                verdict_class(&t.verdict),
                name_cell(&t.trial),
                verdict_word(&t.verdict),
                time(t.a_median_s),
                time(Some(t.b_median_s)),
                change_cell(t),
                pct(t.effect_floor_pct),
                if moved.is_empty() { String::new() } else { format!("<ul class=\"moved\">{moved}</ul>") },
                why(t)
            )
            .unwrap();
        }
        out.push_str("</tbody>\n</table></div>\n");
    }

    if !r.trials.is_empty() {
        writeln!(
            out,
            "<h2>All {} timed</h2>\n<div class=\"scroll\"><table class=\"all\">\n<thead><tr><th>trial</th>\
             <th>verdict</th><th class=\"num\">A median</th><th class=\"num\">B median</th><th class=\"num\">change</th>\
             <th class=\"num\">95 % interval</th><th class=\"num\">effect floor</th><th class=\"num\">pairs</th>\
             <th class=\"num\">p, adjusted</th></tr></thead>\n<tbody>",
            crate::units::count(r.trials.len(), "trial")
        )
        .unwrap();
        for t in &r.trials {
            writeln!(
                out,
                "<tr class=\"{}\"><td class=\"name\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td></tr>",
                verdict_class(&t.verdict),
                name_cell(&t.trial),
                verdict_word(&t.verdict),
                time(t.a_median_s),
                time(Some(t.b_median_s)),
                signed_pct(t.delta_pct),
                interval(t.delta_ci_pct),
                pct(t.effect_floor_pct),
                t.samples,
                t.p_adjusted.map_or_else(|| "-".to_string(), p_value)
            )
            .unwrap();
        }
        out.push_str("</tbody>\n</table></div>\n");
    }

    if !r.not_timed.is_empty() {
        writeln!(
            out,
            "<h2>Not timed ({})</h2>\n<div class=\"scroll\"><table class=\"not-timed\">\n\
             <thead><tr><th>case</th><th>why</th></tr></thead>\n<tbody>",
            r.not_timed.len()
        )
        .unwrap();
        for n in &r.not_timed {
            writeln!(out, "<tr><td class=\"name\">{}</td><td>{}</td></tr>", name_cell(&n.trial), escape(&n.reason))
                .unwrap();
        }
        out.push_str("</tbody>\n</table></div>\n");
    }

    out.push_str(
        "<h2>How to read this</h2>\n<p class=\"hint\">A and B median: the medians of each side&#39;s samples. change: \
         the median per-pair ratio B/A - 1 (+ is B slower), with its 95 % confidence interval. effect floor: the \
         smallest change the gate calls a change. p, adjusted: the one-sided Wilcoxon signed-rank p-value times the \
         trials compared (Bonferroni).</p>\n<dl class=\"legend\">\n",
    );
    for (v, meaning) in VERDICT_MEANING {
        writeln!(out, "<dt>{}</dt><dd>{meaning}</dd>", verdict_word(v)).unwrap();
    }
    out.push_str("</dl>\n</body>\n</html>\n");
    out
}

/// The class of a verdict's row and marks: `v-<verdict>` for the verdicts of
/// [`VERDICT_COLOURS`] and `unchanged`, `v-other` for anything else (so no name reaches a class).
fn verdict_class(verdict: &str) -> &'static str {
    match verdict {
        "regressed" => "v-regressed",
        "improved" => "v-improved",
        "ambiguous" => "v-ambiguous",
        "invalid" => "v-invalid",
        "no-baseline" => "v-no-baseline",
        "unchanged" => "v-unchanged",
        _ => "v-other",
    }
}

/// A trial name for a table cell, escaped: each `/`-ended part kept on one line (`span.seg`, no
/// wrapping inside), a line-break opportunity after each `/`, so a name breaks only there.
fn name_cell(trial: &str) -> String {
    let parts: Vec<String> = trial
        .split_inclusive('/')
        .map(|part| format!("<span class=\"seg\">{}</span>", crate::report::html::escape(part)))
        .collect();
    parts.join("<wbr>")
}

/// A verdict as a word in its colour.
fn verdict_word(verdict: &str) -> String {
    format!("<span class=\"verdict {}\">{}</span>", verdict_class(verdict), crate::report::html::escape(verdict))
}

/// The verdict's sentence under what explains it, escaped: `decided by <what>: <reason>`, or for a
/// trial timed alone (`no-baseline`: new since A) its reason alone, which says what A lacks.
fn why(t: &AbTrial) -> String {
    use crate::report::html::escape;
    if t.verdict == "no-baseline" {
        escape(&t.reason)
    } else {
        format!("decided by {}: {}", escape(&t.decided_by), escape(&t.reason))
    }
}

/// One of [`AbTrial::counters_moved`] (`metric +x.xx% (a -> b, class)`), the metric as code.
fn counter_moved(moved: &str) -> String {
    use crate::report::html::escape;
    match moved.split_once(' ') {
        Some((metric, rest)) => format!("<code>{}</code> {}", escape(metric), escape(rest)),
        None => format!("<code>{}</code>", escape(moved)),
    }
}

/// The change and, under it, its interval.
fn change_cell(t: &AbTrial) -> String {
    match t.delta_ci_pct {
        Some(_) => format!("{}<br><small>{}</small>", signed_pct(t.delta_pct), interval(t.delta_ci_pct)),
        None => signed_pct(t.delta_pct),
    }
}

fn signed_pct(p: Option<f64>) -> String {
    p.map_or_else(|| "-".to_string(), crate::units::signed_pct)
}

fn pct(p: Option<f64>) -> String {
    p.map_or_else(|| "-".to_string(), |p| format!("{p:.2}%"))
}

fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(
        || "-".to_string(),
        |[low, high]| format!("{} to {}", crate::units::signed_pct(low), crate::units::signed_pct(high)),
    )
}

/// A p-value with three decimals, or two significant digits below 0.001.
fn p_value(p: f64) -> String {
    if p >= 0.001 { format!("{p:.3}") } else { format!("{p:.1e}") }
}

/// The page's own rules, after the report pages' shared ones (`crate::report::html::BASE_CSS`): its
/// colours (the constants above and [`VERDICT_COLOURS`]); trial names on one line from 900 px up,
/// but in the table of trials not `unchanged`, whose names wrap after a `/` so that its last
/// column (what explains each verdict) is in view at a desktop's
/// width; a single column of facts below 600 px.
fn css() -> String {
    let mut css = format!(
        "
body {{ max-width: 1280px; color: {INK}; background: {PAPER}; }} th {{ background: {HEADER}; }}
th.num {{ text-align: right; }}
header.status {{ border-left: 6px solid {MUTED}; padding: 2px 0 2px 14px; }}
ul.counts {{ list-style: none; padding: 0; margin: 8px 0 2px; display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 16px; }}
ul.counts li {{ border-left: 4px solid {MUTED}; padding: 0 8px; }}
header.status p {{ margin: 2px 0 8px; }}
dl.facts {{ display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 6px 0; }}
dl.facts dt {{ font-weight: 600; }} dl dd {{ margin: 0; overflow-wrap: anywhere; }}
.scroll {{ overflow-x: auto; max-width: 100%; }} span.seg {{ white-space: nowrap; }}
span.verdict {{ font-weight: 600; padding: 1px 6px; border-radius: 3px; white-space: nowrap; }}
span.v-unchanged {{ color: {MUTED}; font-weight: normal; }}
.why, .hint {{ color: {MUTED}; font-size: 12.5px; margin: 2px 0; }}
ul.moved {{ margin: 0; padding-left: 16px; }}
dl.legend {{ display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 12px; font-size: 13px; }}
@media (min-width: 900px) {{
  table.all td.name, table.not-timed td.name {{ white-space: nowrap; }}
  table.all td.name wbr, table.not-timed td.name wbr {{ display: none; }}
}}
@media (max-width: 600px) {{
  body {{ margin: 12px auto; padding: 0 10px; }} h1 {{ font-size: 19px; }}
  dl.facts, dl.legend {{ grid-template-columns: minmax(0, 1fr); gap: 0; }} dl dd {{ margin-bottom: 6px; }}
}}
"
    );
    writeln!(css, "header.s-regressed {{ border-left-color: {RED}; }} header.s-pass {{ border-left-color: {GREEN}; }}")
        .unwrap();
    for (verdict, colour) in VERDICT_COLOURS {
        writeln!(
            css,
            "ul.counts li.v-{verdict} {{ border-left-color: {colour}; }} \
             tr.v-{verdict} td:first-child {{ border-left: 4px solid {colour}; }} \
             span.v-{verdict} {{ color: {PAPER}; background: {colour}; }}"
        )
        .unwrap();
    }
    css
}

#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::*;

    /// WCAG 2.x's contrast ratio, in one place for both report pages.
    use crate::report::contrast::contrast_ratio as contrast;

    #[test]
    fn the_page_colours_meet_wcag_contrast() {
        assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!(contrast("#777777", "#ffffff") < 4.5, "a near-miss grey fails the check: it can fail");
        for (text, background) in [(INK, PAPER), (MUTED, PAPER), (INK, HEADER), (MUTED, HEADER)] {
            assert!(contrast(text, background) >= 4.5, "{text} on {background}: {:.2}", contrast(text, background));
        }
        // White words on each verdict's colour (text, SC 1.4.3), and its bars on the white page
        // (non-text, SC 1.4.11): the same pair of colours, so 4.5:1 covers both.
        for (verdict, colour) in VERDICT_COLOURS {
            let ratio = contrast(colour, PAPER);
            assert!(ratio >= 4.5, "{verdict}: {colour} against white is {ratio:.2}:1");
        }
        let css = css();
        assert!(css.contains("span.v-regressed { color: #ffffff; background: #cf222e; }"), "{css}");
        assert!(css.contains("tr.v-improved td:first-child { border-left: 4px solid #1a7f37; }"), "{css}");
    }

    #[test]
    fn the_page_leads_with_the_status_then_the_changed_trials_then_every_trial() {
        let page = html(&report(3));
        let body = &page[page.find("<body>\n").unwrap() + 7..];
        assert!(
            body.starts_with("<header class=\"status s-regressed\">\n<h1>kernelgate A/B: regressions</h1>"),
            "{body}"
        );
        assert!(body.contains(
            "<li class=\"v-regressed\"><b>1</b> regressed</li><li class=\"v-unchanged\"><b>2</b> unchanged</li>"
        ));
        assert!(body.contains("<p>of 3 trials timed in pairs, 1 not timed.</p>"), "{body}");
        for fact in [
            "d0553db3a1da32d5e3ede3189718fcb140a0a9e2",
            "c5522fd0000000000000000000000000000000000",
            "NVIDIA H200 (nvidia-h200-sm90), UUID <code>GPU-831f4952-8e33-380c-a667-3d73fb0c06c6</code>, driver 580.159.04",
            "with the ncu counters of both compared",
        ] {
            assert!(body.contains(fact), "{fact}: {body}");
        }
        let at = |s: &str| body.find(s).unwrap_or_else(|| panic!("{s} missing: {body}"));
        assert!(at("Trials that did not come out unchanged (1)") < at("All 3 trials timed"));
        assert!(at("All 3 trials timed") < at("Not timed (1)"));
        let changed = &body[at("<table class=\"changed\">")..at("<table class=\"all\">")];
        assert_eq!(changed.matches("<tr class=").count(), 1, "only the regressed trial: {changed}");
        assert!(changed.contains("<code>l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum</code> +96.68% (2236763"));
        assert!(changed.contains("+0.02%<br><small>-0.03% to +0.07%</small>"), "{changed}");
        assert!(changed.contains("<td class=\"num\">0.50%</td>"), "the effect floor: {changed}");
        assert!(
            changed.contains("<span class=\"seg\">fam/</span><wbr><span class=\"seg\">v0/</span><wbr><span class=\"seg\">@octocat</span>"),
            "a name breaks only after a slash: {changed}"
        );
        assert_eq!(body.matches("<tr class=\"v-").count(), 1 + 3, "changed + all");
    }

    #[test]
    fn verdicts_are_told_by_word_and_colour() {
        let mut r = report(6);
        for (t, v) in
            r.trials.iter_mut().zip(["regressed", "improved", "ambiguous", "invalid", "no-baseline", "unchanged"])
        {
            t.verdict = v.into();
        }
        r.trials[4].a_median_s = None;
        r.trials[4].delta_ci_pct = None;
        let page = html(&r);
        for v in ["regressed", "improved", "ambiguous", "invalid", "no-baseline", "unchanged"] {
            let word = format!("<span class=\"verdict v-{v}\">{v}</span>");
            assert_eq!(page.matches(&word).count(), if v == "unchanged" { 1 } else { 2 } + 1, "{word}: rows + legend");
            assert!(page.contains(&format!("<tr class=\"v-{v}\">")), "{v}");
        }
        assert!(page.contains("<td class=\"num\">-</td>"), "no A for a trial timed alone");
        r.trials.remove(0);
        let page = html(&r);
        assert!(page.contains("<header class=\"status s-pass\">\n<h1>kernelgate A/B: no regression</h1>"));
        r.trials[0].verdict = "<i>slower</i>".into();
        let page = html(&r);
        assert!(page.contains("<tr class=\"v-other\">") && page.contains("&lt;i&gt;slower&lt;/i&gt;"), "{page}");
    }

    #[test]
    fn every_name_in_the_page_is_escaped() {
        let mut r = report(2);
        r.trials[0].trial = "fam/<script>alert(1)</script>/1".into();
        r.trials[0].counters_moved = vec!["<b>m</b> +1% (\"a\" -> 'b')".into()];
        r.trials[0].reason = "x & y".into();
        r.trials[0].decided_by = "counter <img src=x onerror=alert(1)> (A/B)".into();
        r.a.label = "\"><img src=x>".into();
        r.gpu.name = "NVIDIA \u{202E}002H".into();
        r.not_timed[0].trial = "fam/<u>x</u>/1".into();
        let page = html(&r);
        for raw in ["<script", "<img", "<b>m", "<u>", "\u{202E}"] {
            assert!(!page.contains(raw), "{raw:?} survived: {page}");
        }
        for escaped in [
            "fam/</span><wbr><span class=\"seg\">&lt;script&gt;alert(1)&lt;/</span><wbr><span class=\"seg\">script&gt;/</span>",
            "<code>&lt;b&gt;m&lt;/b&gt;</code> +1% (&quot;a&quot; -&gt; &#39;b&#39;)",
            "x &amp; y",
            "&quot;&gt;&lt;img src=x&gt;",
            "NVIDIA [U+202E]002H",
        ] {
            assert!(page.contains(escaped), "{escaped}: {page}");
        }
        assert!(page.contains(
            "<title>kernelgate A/B: regressions: B = kernels/ here against A = &quot;&gt;&lt;img src=x&gt;</title>"
        ));
    }

    #[test]
    fn an_empty_report_says_nothing_was_timed_and_loads_nothing() {
        let mut r = report(0);
        r.not_timed.clear();
        let page = html(&r);
        assert!(page.contains("<li>nothing timed</li>") && page.contains("<p>No trial was timed.</p>"), "{page}");
        assert!(page.contains("<p>of 0 trials timed in pairs.</p>"), "{page}");
        assert!(!page.contains("<table"), "{page}");
        assert!(page.ends_with("</dl>\n</body>\n</html>\n"));
        let full = html(&report(3));
        for external in ["<script", "<link", "src=", "url(", "@import", "://"] {
            assert!(!full.contains(external), "{external}: the page must load nothing");
        }
        assert!(full.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    }
}
