//! Report stage: what a person reads. Printers format; they compute nothing but unit choices, and
//! the diff model they print is pure data built by [`diff::diff`].
//!
//! | module       | output                                                              |
//! |--------------|---------------------------------------------------------------------|
//! | `table`      | the terminal: device block, ceilings, results table, a trial's own line ([`device`], [`ceilings`], [`table`], [`trial_line`]) |
//! | [`vendor`]   | each trial's speed as % of its family's vendor reference (CUB, cuBLAS) |
//! | [`diff`]     | the model of a diff report: two sides' measurements compared per trial |
//! | [`markdown`] | the diff as GitHub-flavoured Markdown (CI step summary, PR comment)  |
//! | [`html`]     | the diff as one self-contained HTML page with inline SVG charts      |
//! | `chart`      | the HTML page's charts: trends across commits, bandwidth bars (SVG)  |
//! | `change_chart` | the HTML page's change per trial, its interval, the runs, the floor (SVG) |
//! | [`junit`]    | a run's trials as JUnit XML for CI systems                           |
//! | [`ab`]       | a same-run A/B run: JSON document, Markdown comment, HTML page        |
//! | [`roofline`] | a run's cases (or a diff's new side) under the measured ceilings, one SVG |
//! | [`export`]   | a run's trial times for dashboards: Bencher's BMF, github-action-benchmark |
//! | `file`       | writing any of them whole or not at all ([`write_whole`])            |

pub mod ab;
mod change_chart;
mod chart;
#[cfg(test)]
mod contrast;
pub mod diff;
pub mod events;
pub mod export;
mod file;
pub mod html;
pub mod junit;
pub mod lessons;
pub mod markdown;
pub mod roofline;
mod table;
pub mod vendor;

pub use file::write_whole;
pub use table::{ceilings, device, device_with_nvrtc, duration, table, trial_line};

/// Characters a report shows by their code point (`[U+202E]`) instead of as themselves
/// ([`crate::console::hidden`]: control and bidirectional control characters).
pub use crate::console::hidden;

/// `text` safe as HTML text or a quoted attribute value: `& < > " '` as entities; control and
/// bidirectional control characters ([`hidden`], but for tabs and line breaks, which HTML
/// shows as spaces) as their code point, `[U+202E]`, so that they cannot reorder what is shown.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if hidden(c) => out.push_str(&format!("[U+{:04X}]", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}
