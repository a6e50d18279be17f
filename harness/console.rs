//! How the suite's lines look: control characters from data shown escaped, how each trial's own
//! line is placed ([`TrialLines`]), the counts of verdicts, and a heartbeat while a long phase runs.
//! What prints them is the run's reporter ([`crate::report::events::Terminal`]).
//!
//! - **A trial's line.** Each GPU trial says its median, its change and its verdict, and the wall
//!   time it took (`crate::report::trial_line`): inline, between libtest's `test <name> ...` and `ok`,
//!   where one trial runs at a time in libtest's pretty format; as a `kernelgate: <trial>: ...` line
//!   on stderr otherwise ([`TrialLines`]).
//! - **A heartbeat.** A phase that waits on a child process (the ncu session, the sanitizer or the
//!   isolated child) says what it is doing at least every [`HEARTBEAT`] ([`Ticker`];
//!   `crate::report::events::wait_saying` waits on one), so that a CI
//!   log never goes silent for a minute (nvbench and criterion, likewise, print a line per
//!   benchmark as it ends).

use std::time::{Duration, Instant};

/// The period of a long phase's heartbeat. Half of 10 s, the longest silence the suite allows
/// itself in a log (docs/running.md, "Progress"), so that the first heartbeat after a phase's
/// opening line, which comes one poll (100 ms) after a period at worst, stays well inside it.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

/// How each trial's own line is printed: the suite's `main` tells its reporter once it has read libtest's
/// flags ([`crate::report::events::Event::TrialsStarting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialLines {
    /// On stdout between libtest's `test <name> ...` and its outcome: one trial at a time, pretty
    /// format.
    Inline,
    /// As its own `kernelgate: <trial>: ...` line on stderr: several trials at a time (libtest
    /// prints a trial's line when it ends), or a format a line would break (JSON, terse).
    Stderr,
}

/// Whether `c` is shown escaped in text for a terminal: a control character (C0 but line feed
/// and tab, DEL, C1), which a terminal would obey (ECMA-48: `ESC ] 0 ;` sets the window title,
/// `ESC [ 2 J` clears the screen, a carriage return overwrites the line).
fn obeyed(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Characters shown by their code point instead of as themselves, in a report or in a field of a
/// terminal line ([`shown`]): control characters (Unicode general category Cc, which a terminal
/// or browser may act on) and the bidirectional controls (Unicode's `Bidi_Control` property:
/// U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which reorder the text around
/// them as displayed ("Trojan Source", CVE-2021-42574): `fam/\u{202E}gnp.exe/1` would read
/// `fam/1/exe.png`.
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` for a terminal or a log, whole lines kept: every control character but line feed and
/// tab written as Rust writes it in a string (`\u{1b}`), so that text from data (a commit subject,
/// a note, a kernel file, a tool's output) can neither move the cursor, clear the screen, set the
/// title nor overwrite a line. Borrowed when nothing needs escaping.
pub fn shown_lines(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(obeyed) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars().map(|c| if obeyed(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect(),
    )
}

/// One field from data (a commit subject, a branch, a remote) inside a line: every [`hidden`]
/// character escaped as Rust writes it (`\u{202e}`), line feeds and tabs too, so the field stays
/// on its line and in its order.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars().map(|c| if hidden(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect(),
    )
}

/// A JSON document for a terminal: `json` (serde_json's output, which escapes only C0 controls) with
/// every other [`hidden`] character (DEL, C1 controls, bidirectional controls) written as a JSON
/// escape (`\u009b`), so that the document stays valid JSON (RFC 8259 section 7) and a terminal
/// acts on none of its text. Such characters occur only inside strings, where the escape means
/// the same character.
pub fn json_shown(json: &str) -> std::borrow::Cow<'_, str> {
    // Line feeds, tabs and carriage returns are JSON's whitespace between tokens; inside strings
    // serde_json has escaped them already.
    let escaped = |c: char| hidden(c) && !matches!(c, '\n' | '\t' | '\r');
    if !json.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escaped(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `println!` for programs built on kernelgate (the `kernelgate` CLI): the line with control
/// characters escaped ([`shown_lines`]). JSON printed through it is unchanged (serde_json escapes
/// every control character itself).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        println!("{}", $crate::console::shown_lines(&format!($($arg)*)))
    };
}

/// `print!` with control characters escaped, as [`outln!`](crate::outln).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", $crate::console::shown_lines(&format!($($arg)*)))
    };
}

/// `eprintln!` with control characters escaped, as [`outln!`](crate::outln).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::console::shown_lines(&format!($($arg)*)))
    };
}

/// Counts per verdict, in the order of first appearance in `verdicts`, after the total of `noun`:
/// `80 timed trials: 61 unchanged, 19 regressed`; `None` without verdicts.
pub fn verdict_counts<'a>(verdicts: impl IntoIterator<Item = &'a str>, noun: &str) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for v in verdicts {
        match counts.iter_mut().find(|(name, _)| *name == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v, 1)),
        }
    }
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    (total > 0).then(|| {
        let parts: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
        format!("{}: {}", crate::units::count(total, noun), parts.join(", "))
    })
}

/// Says when a heartbeat is due: at most once per period, the first one period after
/// [`Ticker::new`].
#[derive(Debug)]
pub struct Ticker {
    started: Instant,
    last: Instant,
    every: Duration,
}

impl Ticker {
    /// A ticker of period `every`, started now.
    pub fn new(every: Duration) -> Ticker {
        let now = Instant::now();
        Ticker { started: now, last: now, every }
    }

    /// Whether a period has passed since the last tick (and if so, a new period begins).
    pub fn due(&mut self) -> bool {
        self.due_at(Instant::now())
    }

    /// [`Ticker::due`] at `now` (pure; tested).
    pub fn due_at(&mut self, now: Instant) -> bool {
        let due = now.duration_since(self.last) >= self.every;
        if due {
            self.last = now;
        }
        due
    }

    /// Seconds since the ticker started.
    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_from_data_are_shown_escaped() {
        let subject = "fix \u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\r";
        assert_eq!(shown_lines(subject), r"fix \u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\u{d}");
        assert_eq!(shown_lines("two\nlines\tand a tab"), "two\nlines\tand a tab");
        assert!(matches!(shown_lines("plain café"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(shown("a\nb\u{202e}c\u{9b}"), r"a\u{a}b\u{202e}c\u{9b}");
    }

    /// Field report turn4 (a probe of R04's kind): a DEL or C1 character in a trial name or subject
    /// leaves `--format json` valid JSON, with the same string.
    #[test]
    fn json_for_a_terminal_stays_json() {
        let doc = serde_json::json!({ "subject": "fix \u{1b}[2J \u{7f} \u{9b}1m \u{202e}gnp" });
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let shown = json_shown(&text);
        assert!(!shown.chars().any(|c| hidden(c) && c != '\n'), "{shown}");
        assert!(shown.contains(r"\u007f") && shown.contains(r"\u009b") && shown.contains(r"\u202e"), "{shown}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), doc);
    }

    #[test]
    fn a_ticker_ticks_once_per_period_and_not_before_the_first() {
        let mut t = Ticker::new(Duration::from_secs(5));
        let start = t.last;
        assert!(!t.due_at(start + Duration::from_millis(4_999)));
        assert!(t.due_at(start + Duration::from_secs(5)));
        assert!(!t.due_at(start + Duration::from_secs(9)), "a period starts at the tick");
        assert!(t.due_at(start + Duration::from_secs(10)));
    }

    #[test]
    fn verdict_counts_keep_first_appearance_order() {
        let v = ["unchanged", "regressed", "unchanged", "no-baseline", "unchanged"];
        assert_eq!(
            verdict_counts(v, "timed trial").unwrap(),
            "5 timed trials: 3 unchanged, 1 regressed, 1 no-baseline"
        );
        assert_eq!(verdict_counts(["improved"], "lesson trial").unwrap(), "1 lesson trial: 1 improved");
        assert_eq!(verdict_counts([], "timed trial"), None);
    }
}
