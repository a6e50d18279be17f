//! A run's trials as JUnit XML, the test-report format CI systems read (GitLab, Jenkins, GitHub
//! actions that publish test results): one `<testcase>` per trial, `<failure>` carrying the
//! verdict's (or the check's) message, `<error>` carrying a harness fault's, `<skipped>` carrying
//! the reason a trial was ignored.
//!
//! The elements and attributes are those of the de-facto schema that Ant's JUnit task writes and
//! the Jenkins xunit plugin's `junit-10.xsd` describes (jenkinsci/xunit-plugin,
//! `src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd`; summarised at
//! <https://github.com/testmoapp/junitxml>), and nothing else: `skipped` is an attribute of
//! `<testsuite>` only, not of `<testsuites>`, which that schema refuses (tests/junit_schema.rs
//! validates every kind of outcome against a copy of it with xmllint). Written by
//! hand (about 40 lines) rather than with quick-xml: the format is four element kinds, and the one
//! subtle part, characters XML 1.0 cannot hold at all (section 2.2, `Char`), needs handling that a
//! writer crate leaves to the caller anyway.

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
}

/// Renders `trials` as one JUnit XML document with one `<testsuite name="{suite}">` (pure).
///
/// Each trial's `classname` is its family (the name up to the first `/`) and its `name` the rest
/// (`transpose/naive/4096x4096` -> `transpose`, `naive/4096x4096`); a name without `/` gets
/// classname `kernelgate`. The suite's `time` is the sum of the trials' times. `<testsuites>`
/// carries `tests`, `failures`, `errors` and `time`; `<testsuite>` those and `skipped`.
pub fn render(suite: &str, trials: &[TrialOutcome]) -> String {
    let failures = trials.iter().filter(|t| matches!(t.outcome, Outcome::Failed(_))).count();
    let errors = trials.iter().filter(|t| matches!(t.outcome, Outcome::Error(_))).count();
    let skipped = trials.iter().filter(|t| matches!(t.outcome, Outcome::Skipped(_))).count();
    let total: f64 = trials.iter().map(|t| t.seconds).filter(|s| s.is_finite() && *s >= 0.0).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(r#"tests="{}" failures="{failures}" errors="{errors}""#, trials.len());
    writeln!(out, r#"<testsuites name="{}" {counts} time="{total:.6}">"#, attr(suite)).unwrap();
    writeln!(out, r#"  <testsuite name="{}" {counts} skipped="{skipped}" time="{total:.6}">"#, attr(suite)).unwrap();
    for t in trials {
        let (classname, name) = t.name.split_once('/').unwrap_or(("kernelgate", &t.name));
        let time = if t.seconds.is_finite() && t.seconds >= 0.0 {
            format!(r#" time="{:.6}""#, t.seconds)
        } else {
            String::new()
        };
        let open = format!(r#"    <testcase classname="{}" name="{}"{time}"#, attr(classname), attr(name));
        match &t.outcome {
            Outcome::Passed => writeln!(out, "{open}/>").unwrap(),
            Outcome::Failed(message) => writeln!(
                out,
                "{open}>\n      <failure message=\"{}\" type=\"kernelgate\">{}</failure>\n    </testcase>",
                attr(message),
                text(message)
            )
            .unwrap(),
            Outcome::Error(message) => writeln!(
                out,
                "{open}>\n      <error message=\"{}\" type=\"kernelgate\">{}</error>\n    </testcase>",
                attr(message),
                text(message)
            )
            .unwrap(),
            Outcome::Skipped(reason) => {
                writeln!(out, "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>", attr(reason)).unwrap()
            }
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
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
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
        TrialOutcome { name: name.into(), seconds, outcome }
    }

    #[test]
    fn golden() {
        let trials = [
            outcome("transpose/naive/4096x4096", 1.5, Outcome::Passed),
            outcome("coalescing/copy/67108864", 0.25, Outcome::Failed("regressed: +25.00% (synthetic)".into())),
            outcome("reduce/tree/1024", 0.0, Outcome::Skipped("no CUDA driver on this machine".into())),
            outcome("compile/a.cu/sm_90", 0.5, Outcome::Error("baselines/sm_90/resources.csv: unreadable".into())),
        ];
        let expected = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kernelgate" tests="4" failures="1" errors="1" time="2.250000">
  <testsuite name="kernelgate" tests="4" failures="1" errors="1" skipped="1" time="2.250000">
    <testcase classname="transpose" name="naive/4096x4096" time="1.500000"/>
    <testcase classname="coalescing" name="copy/67108864" time="0.250000">
      <failure message="regressed: +25.00% (synthetic)" type="kernelgate">regressed: +25.00% (synthetic)</failure>
    </testcase>
    <testcase classname="reduce" name="tree/1024" time="0.000000">
      <skipped message="no CUDA driver on this machine"/>
    </testcase>
    <testcase classname="compile" name="a.cu/sm_90" time="0.500000">
      <error message="baselines/sm_90/resources.csv: unreadable" type="kernelgate">baselines/sm_90/resources.csv: unreadable</error>
    </testcase>
  </testsuite>
</testsuites>
"#;
        assert_eq!(render("kernelgate", &trials), expected);
    }

    #[test]
    fn hostile_names_and_control_characters_are_escaped() {
        let trials = [
            outcome(
                "f/a|b<script>*x*/\"q\"&'",
                f64::NAN,
                Outcome::Failed("line 1\nline 2\r\t\u{1b}[31m<b>\u{0}".into()),
            ),
            outcome("plain", -1.0, Outcome::Skipped("a \"reason\" \u{FFFF}".into())),
        ];
        let xml = render("s<&>", &trials);
        assert!(xml.contains(r#"<testcase classname="f" name="a|b&lt;script&gt;*x*/&quot;q&quot;&amp;'">"#), "{xml}");
        assert!(xml.contains(r#"message="line 1&#10;line 2&#13;&#9;\u{1b}[31m&lt;b&gt;\u{0}""#), "{xml}");
        assert!(xml.contains(">line 1\nline 2&#13;\t\\u{1b}[31m&lt;b&gt;\\u{0}</failure>"), "{xml}");
        assert!(xml.contains(r#"<testcase classname="kernelgate" name="plain">"#), "no time when negative: {xml}");
        assert!(xml.contains(r#"<skipped message="a &quot;reason&quot; \u{ffff}"/>"#), "{xml}");
        assert!(xml.contains(r#"<testsuites name="s&lt;&amp;&gt;""#), "{xml}");
        let forbidden = |c: char| (u32::from(c) < 0x20 && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFF}';
        assert!(!xml.chars().any(forbidden), "a character XML cannot hold: {xml:?}");
    }
}
