//! Report stage: what a person reads. Printers format; they compute nothing but unit choices, and
//! the diff model they print is pure data built by [`diff::diff`].
//!
//! | module       | output                                                              |
//! |--------------|---------------------------------------------------------------------|
//! | `table`      | the terminal: device block and results table ([`device`], [`table`]) |
//! | [`diff`]     | the model of a diff report: two sides' measurements compared per trial |
//! | [`markdown`] | the diff as GitHub-flavoured Markdown (CI step summary, PR comment)  |
//! | [`html`]     | the diff as one self-contained HTML page with inline SVG charts      |
//! | [`junit`]    | a run's trials as JUnit XML for CI systems                           |
//! | `file`       | writing any of them whole or not at all ([`write_whole`])            |

pub mod diff;
mod file;
pub mod html;
pub mod junit;
pub mod markdown;
mod table;

pub use file::write_whole;
pub use table::{device, device_with_nvrtc, duration, table};
