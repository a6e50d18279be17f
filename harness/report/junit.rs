//! A run's trials as JUnit XML, the test-report format CI systems read (GitLab, Jenkins, GitHub
//! actions that publish test results): one `<testcase>` per trial, `<failure>` carrying the
//! verdict's (or the check's) message and its kind as `type`, `<error>` carrying a harness fault's,
//! `<skipped>` carrying the reason a trial was ignored, `<system-out>` the trial's own lines; the
//! `<testsuite>` carries the run's start (`timestamp`), its `hostname` and `<properties>` (commit,
//! seed, GPU, driver, NVRTC: what the run knew).
//!
//! The elements and attributes are those of the de-facto schema that Ant's JUnit task writes and
//! the Jenkins xunit plugin's `junit-10.xsd` describes (jenkinsci/xunit-plugin,
//! `src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd`; summarised at
//! <https://github.com/testmoapp/junitxml>), and nothing else: `skipped` is an attribute of
//! `<testsuite>` only, not of `<testsuites>`, which that schema refuses (tests/suite_reports.rs
//! validates every kind of outcome, properties, timestamp, hostname and system-out against a copy
//! of it with xmllint). Written by hand rather than with quick-xml: the format is a handful of
//! element kinds, and the one subtle part, characters XML 1.0 cannot hold at all (section 2.2,
//! `Char`), needs handling that a writer crate leaves to the caller anyway.

use std::fmt::Write as _;

/// How a trial ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Checked and gated without a failure.
    Passed,
    /// Failed: the trial's gate (a regression), its check (a wrong result), a counter expectation
    /// or the sanitizer said no; the message, shown by the CI system (`<failure>`).
    Failed(String),
    /// The trial could not be judged: a harness fault (no NVRTC when required, a table or baseline
    /// that cannot be read, a CUDA driver error, a lost GPU); the message (`<error>`).
    Error(String),
    /// Ignored (no GPU, filtered, `#[ignore]`-style); the reason.
    Skipped(String),
}

/// One trial of a run, plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialOutcome {
    /// Trial name, `family/kernel/size`.
    pub name: String,
    /// Wall time the trial took, seconds; written as the testcase's `time` when finite and not
    /// negative, left out otherwise.
    pub seconds: f64,
    /// How it ended.
    pub outcome: Outcome,
    /// What kind of failure or error it is, written as the `type` attribute of `<failure>` or
    /// `<error>` (`regressed`, `wrong-result`, `counter-expectation`, ...: the suite's kinds,
    /// `crate::suite`); the attribute is left out when `None`, and for a trial that passed or was
    /// skipped.
    pub kind: Option<String>,
    /// The trial's own lines (its verdict's sentence, the counters that moved, the resource
    /// gate's notes), written as the testcase's `<system-out>` when `Some` and not empty.
    pub output: Option<String>,
}

impl TrialOutcome {
    /// A trial named `name` that took `seconds` and ended as `outcome`, with no kind and no output.
    pub fn new(name: impl Into<String>, seconds: f64, outcome: Outcome) -> TrialOutcome {
        TrialOutcome { name: name.into(), seconds, outcome, kind: None, output: None }
    }
}

/// What is the same for every trial of the report: the `<testsuite>`'s name, its `timestamp` and
/// `hostname` attributes and its `<properties>`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The suite's name (`name` of `<testsuites>` and `<testsuite>`).
    pub name: String,
    /// When the run started, `YYYY-MM-DDTHH:MM:SS`: ISO 8601 without a zone, as Ant's JUnit task
    /// writes it (`XMLJUnitResultFormatter` with `DateUtils.ISO8601_DATETIME_PATTERN`,
    /// `yyyy-MM-dd'T'HH:mm:ss`); junit-10.xsd types it `xs:string`. Left out when `None`.
    /// kernelgate's runs give it in UTC ([`timestamp`]).
    pub timestamp: Option<String>,
    /// The host the run ran on; left out when `None`.
    pub hostname: Option<String>,
    /// `(name, value)` pairs, written in this order as `<property>` elements; `<properties>` is left
    /// out when there are none. Only what the run knows: a caller leaves an unknown out.
    pub properties: Vec<(String, String)>,
}

/// A run id `YYYYMMDDTHHMMSSZ` (UTC, `crate::suite::Suite::run_id`) as the JUnit `timestamp`,
/// `YYYY-MM-DDTHH:MM:SS` (the zone dropped: the format has none); `None` for anything else.
pub fn timestamp(run_id: &str) -> Option<String> {
    let b = run_id.as_bytes();
    let shaped =
        b.len() == 16 && b[8] == b'T' && b[15] == b'Z' && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit);
    shaped.then(|| {
        let d = |r: std::ops::Range<usize>| &run_id[r];
        format!("{}-{}-{}T{}:{}:{}", d(0..4), d(4..6), d(6..8), d(9..11), d(11..13), d(13..15))
    })
}

/// Renders `trials` as one JUnit XML document with one `<testsuite name="{run.name}">` (pure).
///
/// Each trial's `classname` is its family (the name up to the first `/`) and its `name` the rest
/// (`transpose/naive/4096x4096` -> `transpose`, `naive/4096x4096`); a name without `/` gets
/// classname `kernelgate`. The suite's `time` is the sum of the trials' times. `<testsuites>`
/// carries `tests`, `failures`, `errors` and `time`; `<testsuite>` those, `skipped`, and
/// `timestamp` and `hostname` when known, then `<properties>`, then the testcases.
pub fn render(run: &Run, trials: &[TrialOutcome]) -> String {
    let failures = trials.iter().filter(|t| matches!(t.outcome, Outcome::Failed(_))).count();
    let errors = trials.iter().filter(|t| matches!(t.outcome, Outcome::Error(_))).count();
    let skipped = trials.iter().filter(|t| matches!(t.outcome, Outcome::Skipped(_))).count();
    let total: f64 = trials.iter().map(|t| t.seconds).filter(|s| s.is_finite() && *s >= 0.0).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(r#"tests="{}" failures="{failures}" errors="{errors}""#, trials.len());
    let name = attr(&run.name);
    writeln!(out, r#"<testsuites name="{name}" {counts} time="{total:.6}">"#).unwrap();
    let mut when = String::new();
    if let Some(t) = &run.timestamp {
        write!(when, r#" timestamp="{}""#, attr(t)).unwrap();
    }
    if let Some(h) = &run.hostname {
        write!(when, r#" hostname="{}""#, attr(h)).unwrap();
    }
    writeln!(out, r#"  <testsuite name="{name}" {counts} skipped="{skipped}" time="{total:.6}"{when}>"#).unwrap();
    if !run.properties.is_empty() {
        out.push_str("    <properties>\n");
        for (k, v) in &run.properties {
            writeln!(out, r#"      <property name="{}" value="{}"/>"#, attr(k), attr(v)).unwrap();
        }
        out.push_str("    </properties>\n");
    }
    for t in trials {
        let (classname, name) = t.name.split_once('/').unwrap_or(("kernelgate", &t.name));
        let time = if t.seconds.is_finite() && t.seconds >= 0.0 {
            format!(r#" time="{:.6}""#, t.seconds)
        } else {
            String::new()
        };
        let kind = t.kind.as_ref().map_or(String::new(), |k| format!(r#" type="{}""#, attr(k)));
        let mut body = match &t.outcome {
            Outcome::Passed => String::new(),
            Outcome::Failed(m) => format!("      <failure message=\"{}\"{kind}>{}</failure>\n", attr(m), text(m)),
            Outcome::Error(m) => format!("      <error message=\"{}\"{kind}>{}</error>\n", attr(m), text(m)),
            Outcome::Skipped(reason) => format!("      <skipped message=\"{}\"/>\n", attr(reason)),
        };
        if let Some(lines) = t.output.as_ref().filter(|o| !o.is_empty()) {
            writeln!(body, "      <system-out>{}</system-out>", text(lines)).unwrap();
        }
        let open = format!(r#"    <testcase classname="{}" name="{}"{time}"#, attr(classname), attr(name));
        if body.is_empty() {
            writeln!(out, "{open}/>").unwrap();
        } else {
            write!(out, "{open}>\n{body}    </testcase>\n").unwrap();
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// `s` as an attribute value (inside double quotes): markup characters as entities; tab, line feed
/// and carriage return as character references, which attribute-value normalisation keeps (XML 1.0
/// section 3.3.3); characters XML cannot hold as visible `\u{..}` text.
fn attr(s: &str) -> String {
    escape(s, true)
}

/// `s` as element content: markup characters as entities, `\r` as a reference (a parser would turn
/// a literal one into `\n`, section 2.11), characters XML cannot hold as visible `\u{..}` text.
fn text(s: &str) -> String {
    escape(s, false)
}

fn escape(s: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if in_attribute => out.push_str("&quot;"),
            '\t' | '\n' if in_attribute => write!(out, "&#{};", u32::from(c)).unwrap(),
            '\r' => out.push_str("&#13;"),
            '\t' | '\n' => out.push(c),
            // XML 1.0 `Char` excludes the other C0 controls and U+FFFE, U+FFFF; not even a
            // character reference may name them. Kept visible rather than dropped.
            // DEL and the C1 controls are XML characters, but a terminal that shows the report
            // acts on them: shown the same way (crate::console::hidden).
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' || crate::console::hidden(c) => {
                write!(out, "\\u{{{:x}}}", u32::from(c)).unwrap()
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, seconds: f64, outcome: Outcome) -> TrialOutcome {
        TrialOutcome::new(name, seconds, outcome)
    }

    fn run(name: &str) -> Run {
        Run { name: name.into(), ..Run::default() }
    }

    #[test]
    fn golden() {
        let trials = [
            outcome("transpose/naive/4096x4096", 1.5, Outcome::Passed),
            TrialOutcome {
                kind: Some("regressed".into()),
                output: Some("regressed: +25.00% (synthetic)\n  dram__bytes_read.sum +3 %".into()),
                ..outcome("coalescing/copy/67108864", 0.25, Outcome::Failed("regressed: +25.00% (synthetic)".into()))
            },
            outcome("reduce/tree/1024", 0.0, Outcome::Skipped("no CUDA driver on this machine".into())),
            TrialOutcome {
                kind: Some("harness".into()),
                ..outcome("compile/a.cu/sm_90", 0.5, Outcome::Error("baselines/sm_90/resources.csv: unreadable".into()))
            },
            TrialOutcome { output: Some("unchanged: -0.10 %".into()), ..outcome("t/v/1", 0.5, Outcome::Passed) },
        ];
        let expected = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kernelgate" tests="5" failures="1" errors="1" time="2.750000">
  <testsuite name="kernelgate" tests="5" failures="1" errors="1" skipped="1" time="2.750000" timestamp="2026-12-01T18:53:24" hostname="runner-7">
    <properties>
      <property name="commit" value="8ee535d"/>
      <property name="seed" value="7"/>
    </properties>
    <testcase classname="transpose" name="naive/4096x4096" time="1.500000"/>
    <testcase classname="coalescing" name="copy/67108864" time="0.250000">
      <failure message="regressed: +25.00% (synthetic)" type="regressed">regressed: +25.00% (synthetic)</failure>
      <system-out>regressed: +25.00% (synthetic)
  dram__bytes_read.sum +3 %</system-out>
    </testcase>
    <testcase classname="reduce" name="tree/1024" time="0.000000">
      <skipped message="no CUDA driver on this machine"/>
    </testcase>
    <testcase classname="compile" name="a.cu/sm_90" time="0.500000">
      <error message="baselines/sm_90/resources.csv: unreadable" type="harness">baselines/sm_90/resources.csv: unreadable</error>
    </testcase>
    <testcase classname="t" name="v/1" time="0.500000">
      <system-out>unchanged: -0.10 %</system-out>
    </testcase>
  </testsuite>
</testsuites>
"#;
        let run = Run {
            name: "kernelgate".into(),
            timestamp: timestamp("20261201T185324Z"),
            hostname: Some("runner-7".into()),
            properties: vec![("commit".into(), "8ee535d".into()), ("seed".into(), "7".into())],
        };
        assert_eq!(render(&run, &trials), expected);
        // Nothing known, nothing written: no timestamp, hostname, properties or type.
        let bare = render(&self::run("kernelgate"), &[outcome("a/b", 1.0, Outcome::Failed("no".into()))]);
        assert!(bare.contains(r#"skipped="0" time="1.000000">"#), "{bare}");
        assert!(!bare.contains("properties") && !bare.contains("type="), "{bare}");
    }

    #[test]
    fn timestamps_come_from_run_ids_only() {
        assert_eq!(timestamp("20261130T030708Z").as_deref(), Some("2026-11-30T03:07:08"));
        for bad in ["", "20261130T030708", "2026113OT030708Z", "20261130T030708Z-2", "2026-11-30T03:07:08"] {
            assert_eq!(timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn hostile_names_and_control_characters_are_escaped() {
        let trials = [
            TrialOutcome {
                kind: Some("a\"<b>".into()),
                output: Some("out \u{1b}<x>&".into()),
                ..outcome(
                    "f/a|b<script>*x*/\"q\"&'",
                    f64::NAN,
                    Outcome::Failed("line 1\nline 2\r\t\u{1b}[31m<b>\u{0}".into()),
                )
            },
            outcome("plain", -1.0, Outcome::Skipped("a \"reason\" \u{FFFF}".into())),
        ];
        let hostile = Run {
            name: "s<&>".into(),
            timestamp: None,
            hostname: Some("h\"<".into()),
            properties: vec![("k&".into(), "v\n\"".into())],
        };
        let xml = render(&hostile, &trials);
        assert!(xml.contains(r#"<testcase classname="f" name="a|b&lt;script&gt;*x*/&quot;q&quot;&amp;'">"#), "{xml}");
        assert!(
            xml.contains(r#"message="line 1&#10;line 2&#13;&#9;\u{1b}[31m&lt;b&gt;\u{0}" type="a&quot;&lt;b&gt;""#),
            "{xml}"
        );
        assert!(xml.contains(">line 1\nline 2&#13;\t\\u{1b}[31m&lt;b&gt;\\u{0}</failure>"), "{xml}");
        assert!(xml.contains("<system-out>out \\u{1b}&lt;x&gt;&amp;</system-out>"), "{xml}");
        assert!(xml.contains(r#"<testcase classname="kernelgate" name="plain">"#), "no time when negative: {xml}");
        assert!(xml.contains(r#"<skipped message="a &quot;reason&quot; \u{ffff}"/>"#), "{xml}");
        assert!(xml.contains(r#"<testsuites name="s&lt;&amp;&gt;""#), "{xml}");
        assert!(xml.contains(r#" hostname="h&quot;&lt;">"#), "{xml}");
        assert!(xml.contains(r#"<property name="k&amp;" value="v&#10;&quot;"/>"#), "{xml}");
        let forbidden = |c: char| (u32::from(c) < 0x20 && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFF}';
        assert!(!xml.chars().any(forbidden), "a character XML cannot hold: {xml:?}");
    }
}
