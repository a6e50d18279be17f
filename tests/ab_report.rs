//! The A/B report's Markdown and HTML as a reader sees them, from a synthetic report (every number,
//! commit and UUID below is made up to exercise the printers; none is a measurement):
//!
//! - the Markdown rendered as GitHub-flavoured Markdown by `comrak` (tables, strikethrough,
//!   autolinks; raw HTML passed through, as GitHub passes it to its sanitizer): the hidden marker
//!   first, then the status, real tables with the expected columns, no live mention, link or tag
//!   from a trial name, and a body within GitHub's 65,536-character limit;
//! - the HTML page in headless chromium at 1400 px and 390 px wide: no console message, no sideways
//!   scrolling of the page, no name broken mid-word on the desktop, what explains each trial not
//!   unchanged in view whole at 1400 px, the status first (a screenshot of both widths is saved to
//!   `target/kernelgate/ab-report-screenshot.png`, the page beside it);
//! - the Markdown, rendered, inside an 812 px frame with GitHub's table rules: no sideways scrolling.
//!
//! Each browser check is also run on a page made to fail it (a negative control), so a check that
//! cannot fail does not pass. Without chromium the browser tests say why and pass, unless
//! `KERNELGATE_REQUIRE_CHROMIUM=1` (CI).

mod support;

use kernelgate::report::ab::{self, AbReport, AbTrial, GpuIdentity, NotTimed, SCHEMA_VERSION, Side};
use std::io::Write as _;
use support::chromium::{Chromium, Frame, target_dir};
use support::github::{GITHUB_LIKE_CSS, gfm, github_page};

/// GitHub's limit on a comment body, characters (its API: "Body is too long (maximum is 65536
/// characters)").
const GITHUB_BODY_LIMIT: usize = 65_536;

/// The tags GFM's tagfilter extension disables (GFM spec, section 6.11 "Disallowed Raw HTML"),
/// which GitHub never lets through. comrak removed its `tagfilter` option in 0.56, so the test
/// renders raw HTML unfiltered and checks that none of these tags is in the result: stronger than
/// the filter, which would hide one that got through.
const TAGFILTER: [&str; 9] =
    ["title", "textarea", "style", "xmp", "iframe", "noembed", "noframes", "script", "plaintext"];

/// A synthetic trial (made-up numbers): medians in microseconds, change and floor in percent.
fn trial(name: &str, verdict: &str, a_us: Option<f64>, b_us: f64, moved: &[&str]) -> AbTrial {
    let delta = a_us.map(|a| 100.0 * (b_us / a - 1.0));
    AbTrial {
        trial: name.into(),
        verdict: verdict.into(),
        decided_by: if moved.is_empty() {
            "time (A/B)".into()
        } else {
            format!("counter {} (A/B)", moved[0].split(' ').next().unwrap())
        },
        a_median_s: a_us.map(|a| a * 1e-6),
        b_median_s: b_us * 1e-6,
        delta_pct: delta,
        delta_ci_pct: delta.map(|d| [d - 0.25, d + 0.25]),
        p_adjusted: a_us.map(|_| if verdict == "unchanged" { 1.0 } else { 1e-6 }),
        effect_floor_pct: a_us.map(|_| 0.5),
        samples: 1000,
        counters_moved: moved.iter().map(|m| m.to_string()).collect(),
        reason: format!("synthetic: {verdict}, made up for a test"),
    }
}

/// A synthetic report: one trial of each verdict, names that try to mention, link, break a table
/// or inject HTML, and `unchanged` trials up to `trials` in all.
fn synthetic(trials: usize) -> AbReport {
    let conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum +100.00% (1000000 -> 2000000, count, tolerance 1.00%)";
    let wavefronts =
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum +50.00% (2000000 -> 3000000, count, tolerance 1.00%)";
    let mut list = vec![
        trial("transpose/shared_padded/4096x4096", "regressed", Some(100.0), 125.0, &[conflicts, wavefronts]),
        trial("vectorization/saxpy_float4/67108864", "improved", Some(200.0), 180.0, &[]),
        trial("reduction/warp_shuffle/@octocat", "ambiguous", Some(30.0), 31.0, &[]),
        trial("histogram/www.example.com/https://example.invalid/x", "invalid", Some(10.0), 10.0, &[]),
        trial("matmul/a|b<script>alert(1)</script>*x*/1024x1024", "no-baseline", None, 90.0, &[]),
    ];
    for i in list.len()..trials {
        list.push(trial(&format!("coalescing/copy_{i:05}/67108864"), "unchanged", Some(100.0), 100.0, &[]));
    }
    list.sort_by(|x, y| x.trial.cmp(&y.trial));
    AbReport {
        schema_version: SCHEMA_VERSION,
        run_id: "20000101T000000Z".into(),
        a: Side { label: "kernels/ at main = 000000000000 (synthetic)".into(), commit: "0".repeat(40) },
        b: Side { label: "this build (synthetic) @octocat".into(), commit: "1".repeat(40) },
        gpu: GpuIdentity {
            name: "Synthetic GPU".into(),
            key: "nvidia-synthetic-sm90".into(),
            uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
            driver: "0.0.0".into(),
        },
        counters: true,
        trials: list,
        controls: vec![],
        not_timed: vec![NotTimed { trial: "launch/empty/1".into(), reason: "the same PTX (synthetic)".into() }],
    }
}

/// Each `<table>` of rendered HTML: its header cells and the cells of each body row, as text
/// (tags dropped, entities and zero width spaces as their characters).
fn tables(html: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let text = |cell: &str| {
        let mut plain = String::new();
        let mut in_tag = false;
        for c in cell.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        plain
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace('\u{200B}', "")
            .trim()
            .to_string()
    };
    let cells = |row: &str, tag: &str| -> Vec<String> {
        row.split(&format!("</{tag}>"))
            .filter_map(|c| c.find(&format!("<{tag}")).map(|i| &c[i..]))
            .map(|c| text(&c[c.find('>').unwrap() + 1..]))
            .collect()
    };
    html.split("<table>")
        .skip(1)
        .map(|t| {
            let t = &t[..t.find("</table>").expect("a table without its end")];
            let (head, body) = t.split_once("</thead>").expect("a table without a header");
            (cells(head, "th"), body.split("<tr>").skip(1).map(|row| cells(row, "td")).collect())
        })
        .collect()
}

/// The columns of the comment's two tables: the trials not `unchanged`, then every trial.
const COLUMNS: [&[&str]; 2] =
    [&["trial", "A", "B", "change", "verdict", "what explains it"], &["trial", "change", "verdict"]];

/// What is wrong with `markdown` once rendered as GFM, one sentence each; empty when nothing is.
/// `tables` are the columns of the tables expected, in order, whose first cells must each be one
/// of `names` as written; `details` whether the collapsed section is expected.
fn gfm_problems(markdown: &str, tables_expected: &[&[&str]], names: &[&str], details: bool) -> Vec<String> {
    let html = gfm(markdown);
    let mut problems = Vec::new();
    if markdown.chars().count() > GITHUB_BODY_LIMIT {
        problems.push(format!("{} characters, over GitHub's {GITHUB_BODY_LIMIT}", markdown.chars().count()));
    }
    if !html.starts_with(&format!("{}\n", ab::MARKER)) {
        problems.push(format!("the marker comment is not first: {:?}", &html[..html.len().min(80)]));
    }
    let visible = html.strip_prefix(&format!("{}\n", ab::MARKER)).unwrap_or(&html);
    if !visible.starts_with("<h3>kernelgate A/B: ") {
        problems.push(format!("the status is not the first thing shown: {:?}", &visible[..visible.len().min(80)]));
    }
    let found = tables(&html);
    if found.len() != tables_expected.len() {
        problems.push(format!("{} tables, not the {} expected", found.len(), tables_expected.len()));
    }
    for ((headers, rows), expected) in found.iter().zip(tables_expected) {
        if headers != expected {
            problems.push(format!("a table's columns are {headers:?}, not {expected:?}"));
        }
        if let Some(bad) = rows.iter().find(|row| row.len() != expected.len()) {
            problems.push(format!("a row of the {expected:?} table has {} cells: {bad:?}", bad.len()));
        }
        if let Some(bad) = rows.iter().find(|row| !names.contains(&row[0].as_str())) {
            problems.push(format!("a row's first cell is not a trial's name: {bad:?}"));
        }
    }
    if html.contains("<a ") {
        problems.push("a link was made (autolink)".into());
    }
    if let Some((at, _)) =
        html.match_indices('@').find(|&(i, _)| html[i + 1..].starts_with(|c: char| c.is_ascii_alphanumeric()))
    {
        problems.push(format!("a live mention: {:?}", &html[at..html.len().min(at + 20)]));
    }
    for tag in TAGFILTER {
        if html.contains(&format!("<{tag}")) {
            problems.push(format!("a <{tag}> tag was let through"));
        }
    }
    if details != (html.contains("<details>") && html.contains("</details>")) {
        problems.push(format!("a collapsed <details> section was {}expected", if details { "" } else { "not " }));
    }
    problems
}

#[test]
fn ab_markdown_renders_as_github_flavoured_markdown() {
    let report = synthetic(40);
    let names: Vec<&str> = report.trials.iter().map(|t| t.trial.as_str()).collect();
    let markdown = ab::markdown(&report);
    assert_eq!(gfm_problems(&markdown, &COLUMNS, &names, true), Vec::<String>::new(), "{}", gfm(&markdown));
    let html = gfm(&markdown);
    assert!(
        html.contains("<strong>1 regressed, 1 improved, 1 ambiguous, 1 invalid, 1 no-baseline, 35 unchanged</strong>"),
        "{html}"
    );
    assert_eq!(tables(&html).iter().map(|(_, rows)| rows.len()).collect::<Vec<_>>(), [5, 40], "rows: changed, all");
    assert!(tables(&html)[1].1.iter().map(|row| row[0].as_str()).eq(names.iter().copied()), "every trial, in order");
    assert!(html.contains("matmul/a|b&lt;script&gt;"), "the pipe is text, the tag escaped: {html}");

    // Negative control: the same comment with its escapes undone fails the checks.
    let raw = markdown.replace('\u{200B}', "").replace("\\|", "|").replace("&lt;", "<").replace("&gt;", ">");
    let problems = gfm_problems(&raw, &COLUMNS, &names, true);
    for expected in ["a link was made", "a live mention", "a <script> tag", "not a trial's name"] {
        assert!(problems.iter().any(|p| p.contains(expected)), "{expected:?} not found in {problems:#?}");
    }
    assert!(
        gfm_problems(&markdown[ab::MARKER.len() + 1..], &COLUMNS, &names, true).iter().any(|p| p.contains("marker"))
    );
}

#[test]
fn a_large_ab_markdown_stays_within_githubs_limit_and_renders_whole() {
    let mut r = synthetic(20_000);
    for t in r.trials.iter_mut().step_by(3) {
        t.verdict = "regressed".into();
    }
    let names: Vec<&str> = r.trials.iter().map(|t| t.trial.as_str()).collect();
    let markdown = ab::markdown(&r);
    assert!(markdown.chars().count() <= GITHUB_BODY_LIMIT, "{} characters", markdown.chars().count());
    // Cut to the limit, the comment keeps only the changed trials' table (whole rows).
    assert_eq!(gfm_problems(&markdown, &COLUMNS[..1], &names, false), Vec::<String>::new());
    assert!(markdown.contains("more trials left out to keep this comment under 60000 characters"));
    // Negative control: over the limit is reported.
    let over = format!("{markdown}{}", "x".repeat(GITHUB_BODY_LIMIT));
    assert!(gfm_problems(&over, &COLUMNS[..1], &names, false).iter().any(|p| p.contains("over GitHub's")));
}

/// A kernel new since A, as a same-run A/B run on an H200 timed it: `blocksum/b128_i4/16777216`
/// of `benchmark/b48.txz` (`w/aa/runs/20261202T140749Z-51f93fd-ab.json`), whose A (`HEAD` of the
/// runner, 51f93fd) had no `kernels/blocksum.cu`; the run's log said `kernels/blocksum.cu does not
/// exist at HEAD`, and its reason is the one the run gives such a trial now.
fn new_since_a() -> AbTrial {
    AbTrial {
        trial: "blocksum/b128_i4/16777216".into(),
        verdict: "no-baseline".into(),
        decided_by: "conditions".into(),
        a_median_s: None,
        b_median_s: 0.000027135999873280526,
        delta_pct: None,
        delta_ci_pct: None,
        p_adjusted: None,
        effect_floor_pct: None,
        samples: 9269,
        counters_moved: Vec::new(),
        reason: ab::new_since_a("kernels/blocksum.cu does not exist at HEAD"),
    }
}

/// A trial whose kernel A lacks reads as new since A (absent at revision A) in the JSON document,
/// the Markdown comment (its "what explains it" cell, as GitHub renders it) and the HTML page (its
/// row of the trials not unchanged), as the run's log says, and never as a baseline that was not
/// loaded (what b48's report said).
#[test]
fn a_kernel_new_since_a_reads_so_in_every_format() {
    let mut report = synthetic(8);
    report.trials.push(new_since_a());
    report.trials.sort_by(|x, y| x.trial.cmp(&y.trial));
    let says = "new since A: kernels/blocksum.cu does not exist at HEAD; timed alone, with no A to compare with";

    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    let trial = json["trials"].as_array().unwrap().iter().find(|t| t["trial"] == "blocksum/b128_i4/16777216").unwrap();
    assert_eq!((trial["verdict"].as_str(), trial["reason"].as_str()), (Some("no-baseline"), Some(says)));

    let html = gfm(&ab::markdown(&report));
    let (headers, rows) = &tables(&html)[0];
    let row = rows.iter().find(|r| r[0] == "blocksum/b128_i4/16777216").expect("a row of the changed trials");
    let explains = headers.iter().position(|h| h == "what explains it").unwrap();
    assert_eq!(row[explains], says, "{row:?}");

    let page = ab::html(&report);
    let changed = &page[page.find("<table class=\"changed\">").unwrap()..page.find("<table class=\"all\">").unwrap()];
    let row = changed.split("<tr ").find(|r| r.contains("blocksum/")).expect("a row of the changed trials");
    assert!(row.contains(&format!("<p class=\"why\">{}</p>", says.replace('\'', "&#39;"))), "{row}");

    for (format, text) in [("JSON", report.json()), ("Markdown", ab::markdown(&report)), ("HTML", page)] {
        assert!(!text.contains("no baseline"), "{format} speaks of a baseline: {text}");
    }
}

/// A frame 1400 px high, in which what explains each trial not unchanged is measured
/// ([`Frame::inside`]).
fn frame<'a>(name: &'a str, width: u32, html: &'a str, unbroken: &'a str) -> Frame<'a> {
    Frame { name, width, height: 1400, html, unbroken, inside: "table.changed td.explains", apart: "" }
}

/// The page at 1400 px and at 390 px: the status first, no sideways scrolling of the page, no
/// name or counter broken mid-word; at 1400 px what explains each trial not unchanged (the
/// changed table's last column, with counter names on one line) is in view whole without
/// scrolling the table, the names of every trial's table and every counter on one line (a name of
/// the changed table may wrap after a `/`); at 390 px a wide table scrolls in its frame.
/// Negative controls: a page without its scrolling frames overflows a phone, names that may break
/// anywhere are seen broken, and a changed table whose names are held 1000 px wide pushes what
/// explains each verdict out of view.
#[test]
fn ab_html_lays_out_at_desktop_and_phone_widths_in_chromium() {
    let Some(chromium) = Chromium::find("ab_report") else { return };
    let report = synthetic(40);
    let page = ab::html(&report);
    // Negative controls: without its scrolling table frames the page is wider than a phone; with
    // names allowed to break anywhere instead, names break mid-word.
    let unframed = page.replace(".scroll {", ".unused {");
    let squeezed = unframed.replace("</style>", "span.seg { white-space: normal; overflow-wrap: anywhere; }</style>");
    let pushed = page.replace("</style>", "table.changed td.name { min-width: 1000px; }</style>");
    let out = target_dir().join("kernelgate");
    std::fs::create_dir_all(&out).unwrap();
    let png = out.join("ab-report-screenshot.png");
    let (layouts, console) = chromium.layout(
        &[
            frame("desktop", 1400, &page, "td.name, code"),
            frame("desktop, one line", 1400, &page, "table.all td.name, table.not-timed td.name, code"),
            frame("phone", 390, &page, "td.name, code"),
            frame("unframed", 390, &unframed, ""),
            frame("squeezed", 390, &squeezed, "td.name"),
            frame("names held wide", 1400, &pushed, ""),
        ],
        Some((&png, 1860)),
    );
    assert!(console.is_empty(), "the page logged to the browser console: {console:#?}");
    let [desktop, one_line, phone, unframed, squeezed, pushed] = &layouts[..] else { unreachable!() };
    let changed = report.trials.iter().filter(|t| t.verdict != "unchanged").count();
    assert_eq!(desktop.inside, changed, "every changed trial's explanation was measured: {desktop:?}");
    assert_eq!(desktop.cut, Vec::<String>::new(), "at 1400 px what explains a verdict is out of view");
    assert_eq!(pushed.cut.len(), changed, "negative control: names held wide push the explanations out: {pushed:?}");
    for l in [desktop, phone] {
        assert!(
            !l.overflows(),
            "{}: the page is {} px wide in a {} px viewport",
            l.name,
            l.scroll_width,
            l.client_width
        );
        assert_eq!(l.first, "header.status.s-regressed", "{}: the status comes first", l.name);
    }
    assert_eq!(desktop.broken, Vec::<String>::new(), "names broken mid-word at 1400 px");
    assert_eq!(one_line.most_lines, 1, "at 1400 px every trial's name and every code stays on one line: {one_line:?}");
    assert!(
        phone.tables.iter().any(|(scroll, client)| scroll > client),
        "at 390 px a wide table scrolls in its frame: {phone:?}"
    );
    assert!(unframed.overflows(), "negative control: without .scroll the page must overflow a phone: {unframed:?}");
    assert!(
        !squeezed.broken.is_empty(),
        "negative control: names that may break anywhere must be seen broken: {squeezed:?}"
    );
    std::fs::write(out.join("ab-report-synthetic.html"), &page).unwrap();
    writeln!(std::io::stderr().lock(), "ab_report: screenshot at {}", png.display()).unwrap();
}

#[test]
fn ab_markdown_fits_an_812_px_frame_with_github_css_in_chromium() {
    let Some(chromium) = Chromium::find("ab_report") else { return };
    let body = gfm(&ab::markdown(&synthetic(40)));
    let github = github_page(&body, GITHUB_LIKE_CSS);
    // Negative control: tables that do not scroll in their own box make the comment overflow.
    let plain = github_page(&body, &GITHUB_LIKE_CSS.replace("display: block;", "").replace("max-width: 100%;", ""));
    let (layouts, console) =
        chromium.layout(&[frame("github", 812, &github, ""), frame("plain tables", 812, &plain, "")], None);
    assert!(console.is_empty(), "the comment logged to the browser console: {console:#?}");
    let [github, plain] = &layouts[..] else { unreachable!() };
    assert!(!github.overflows(), "the comment is {} px wide in an 812 px frame: {github:?}", github.scroll_width);
    assert!(plain.overflows(), "negative control: tables that do not scroll must overflow 812 px: {plain:?}");
}
