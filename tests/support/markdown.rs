//! Reading the project's Markdown as the docs tests need it: which files are the docs, and which
//! of their lines are prose, fences or code (`tests/docs.rs` checks links and names in them,
//! `tests/docs_commands.rs` runs their commands).

use std::path::{Path, PathBuf};

/// The project root (this crate's manifest folder).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The file's text, bytes that are not UTF-8 replaced.
///
/// # Panics
/// When it cannot be read, naming it.
pub fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).into_owned()
}

/// The files under `dir` (relative to the project root), recursively, sorted; `skip` are folders
/// left out.
pub fn files(dir: &str, skip: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, skip: &[PathBuf], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                if !skip.contains(&path) {
                    walk(&path, skip, out);
                }
            } else {
                out.push(path);
            }
        }
    }
    let skip: Vec<PathBuf> = skip.iter().map(|s| root().join(s)).collect();
    let mut out = Vec::new();
    walk(&root().join(dir), &skip, &mut out);
    out.sort();
    out
}

/// README.md and every docs/*.md, in that order (docs/ sorted).
pub fn docs() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    out.extend(files("docs", &[]).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")));
    out
}

/// What a line of Markdown is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    /// Outside fenced code (an indented code block counts as prose here).
    Prose,
    /// A fence line itself (```` ```sh ````, ```` ``` ````), opening or closing.
    Fence,
    /// Inside a fenced block whose opening fence has this info string (`sh`, `text`, or empty).
    Code(&'a str),
}

/// One line of a Markdown text: its number (from 1), its text and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
    pub kind: Kind<'a>,
}

/// Every line of `text` with its kind. A fence is a line whose first non-blank characters are
/// three backticks (also inside a list item); the block it opens ends at the next such line.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut open: Option<&str> = None;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let trimmed = line.trim_start();
            let kind = if let Some(info) = trimmed.strip_prefix("```") {
                open = match open {
                    Some(_) => None,
                    None => Some(info.trim()),
                };
                Kind::Fence
            } else {
                open.map_or(Kind::Prose, Kind::Code)
            };
            Line { number: i + 1, text: line, kind }
        })
        .collect()
}
