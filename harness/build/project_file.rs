//! The keys of `kernelgate.toml` ([`crate::PROJECT_FILE`]): the one list of them ([`KEYS`]), and
//! the check of a file against it ([`unknown_key`]). The build helper checks the file before it
//! reads `kernels` ([`crate::kernel_folders`]), and the library's run-time reader
//! (`kernelgate::project::Settings::parse`) before it reads the rest, so that a misspelt key
//! (`kernel = ["src/cuda"]`) stops the build with the message the run would give, instead of being
//! read as the default kernel folder.

/// Every table of `kernelgate.toml` and the keys it takes, each optional: the top level (`""`),
/// `[nvrtc]`, each `[nvrtc.files."<file>"]` and `[build]`. What each key means:
/// docs/running.md, "The project: kernelgate.toml".
pub const KEYS: &[(&str, &[&str])] = &[
    ("", &["kernels", "baselines", "history", "out_dir", "nvrtc", "build"]),
    ("nvrtc", &["options", "include", "files"]),
    (FILE_TABLE, &["options", "include"]),
    ("build", &["command"]),
];

/// The name [`KEYS`] gives every `[nvrtc.files."<file>"]` table.
pub const FILE_TABLE: &str = "nvrtc.files.\"<file>\"";

/// A key of `kernelgate.toml` that kernelgate does not know ([`unknown_key`]). Its `Display` is the
/// message, without the file: the key, the table, `did you mean ...?` where a known key is within
/// two edits, the keys the table takes, and the fix.
///
/// # Example
/// ```
/// let unknown = kernelgate_build::project_file::unknown_key("# kernels\nkernel = [\"src/cuda\"]\n").unwrap();
/// assert_eq!((unknown.key.as_str(), unknown.line), ("kernel", 2));
/// assert!(unknown.to_string().starts_with("unknown key `kernel`; did you mean `kernels`?"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The key as the file writes it.
    pub key: String,
    /// The table it is in, as a header names it: `""` for the top level, `nvrtc`,
    /// `nvrtc.files."stencil.cu"`, `build`.
    pub table: String,
    /// Its 1-based line.
    pub line: usize,
    /// The keys that table takes ([`KEYS`]).
    pub known: &'static [&'static str],
}

impl UnknownKey {
    /// The known key within two edits of [`UnknownKey::key`] (the closest; Levenshtein distance,
    /// as clap suggests a subcommand and kernelgate a `KERNELGATE_*` variable), if any.
    pub fn suggestion(&self) -> Option<&'static str> {
        nearest(&self.key, self.known)
    }
}

/// The one of `options` within two edits of `typo` (the closest; Levenshtein distance, as clap
/// suggests a subcommand, through the same `strsim` crate), if any: the "did you mean" of an
/// unknown `kernelgate.toml` key and of a misspelt `KERNELGATE_*` variable. Pure.
///
/// # Example
/// ```
/// use kernelgate_build::project_file::nearest;
/// assert_eq!(nearest("kernel", &["kernels", "baselines"]), Some("kernels"));
/// assert_eq!(nearest("colour", &["kernels", "baselines"]), None);
/// ```
pub fn nearest<'a>(typo: &str, options: &[&'a str]) -> Option<&'a str> {
    options.iter().map(|o| (strsim::levenshtein(typo, o), *o)).filter(|(d, _)| *d <= 2).min().map(|(_, o)| o)
}

impl std::fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quoted: Vec<String> = self.known.iter().map(|k| format!("`{k}`")).collect();
        let (at, takes) = if self.table.is_empty() {
            (String::new(), format!("{} takes", crate::PROJECT_FILE))
        } else {
            (format!(" in [{}]", self.table), format!("[{}] takes", self.table))
        };
        write!(f, "unknown key `{}`{at}; ", self.key)?;
        if let Some(near) = self.suggestion() {
            write!(f, "did you mean `{near}`? ")?;
        }
        write!(
            f,
            "{takes} {}, each optional: rename the key, or remove it (docs/running.md, \"The project: \
             kernelgate.toml\")",
            quoted.join(", ")
        )
    }
}

/// The first key of the `kernelgate.toml` text `text`, in the order the file writes them, that
/// its table does not take ([`KEYS`]); `None` when every key is known, or when the text is not
/// TOML (the caller's own parse names that fault). Only the keys are checked: the type of a
/// known key's value is the caller's to check. Pure.
pub fn unknown_key(text: &str) -> Option<UnknownKey> {
    use toml::de::{DeTable, DeValue};
    let document = DeTable::parse(text).ok()?;
    let known = |table: &str| KEYS.iter().find(|(t, _)| *t == table).map_or(&[][..], |(_, keys)| *keys);
    // Every key of `entries` (the table `name`, whose keys are those of `table` in KEYS) that is
    // not known, with the byte it starts at.
    let unknown_in = |table: &str, name: &str, entries: &DeTable<'_>| -> Vec<(usize, UnknownKey)> {
        let keys = known(table);
        entries
            .keys()
            .filter(|key| !keys.contains(&&**key.get_ref()))
            .map(|key| {
                let line = text[..key.span().start.min(text.len())].matches('\n').count() + 1;
                (key.span().start, UnknownKey { key: key.get_ref().to_string(), table: name.into(), line, known: keys })
            })
            .collect()
    };
    fn table_of<'a, 'i>(value: &'a DeValue<'i>) -> Option<&'a DeTable<'i>> {
        match value {
            DeValue::Table(table) => Some(table),
            _ => None,
        }
    }
    let top = document.get_ref();
    let mut found = unknown_in("", "", top);
    for (key, value) in top {
        let Some(table) = table_of(value.get_ref()) else { continue };
        match &**key.get_ref() {
            "nvrtc" => {
                found.extend(unknown_in("nvrtc", "nvrtc", table));
                let files = table.iter().find(|(k, _)| k.get_ref() == "files");
                let Some(files) = files.and_then(|(_, v)| table_of(v.get_ref())) else { continue };
                for (file, options) in files {
                    if let Some(options) = table_of(options.get_ref()) {
                        let name = format!("nvrtc.files.{:?}", file.get_ref());
                        found.extend(unknown_in(FILE_TABLE, &name, options));
                    }
                }
            }
            "build" => found.extend(unknown_in("build", "build", table)),
            _ => {}
        }
    }
    found.into_iter().min_by_key(|(at, _)| *at).map(|(_, unknown)| unknown)
}

#[cfg(test)]
mod tests {
    use super::unknown_key;

    #[test]
    fn every_known_key_of_every_table_passes() {
        let text = "kernels = [\"k\"]\nbaselines = \"b\"\nhistory = \"h\"\nout_dir = \"o\"\n\
                    [nvrtc]\noptions = []\ninclude = []\n[nvrtc.files.\"a.cu\"]\noptions = []\ninclude = []\n\
                    [build]\ncommand = \"make\"\n";
        assert_eq!(unknown_key(text), None);
        assert_eq!(unknown_key(""), None);
        assert_eq!(unknown_key("kernel = [\"unclosed\"\n"), None, "not TOML: the caller's parse names it");
    }

    #[test]
    fn an_unknown_key_is_named_with_its_table_line_and_the_nearest_known_one() {
        let unknown = unknown_key("# the GPU code\nkernel = [\"src/cuda\"]\n").unwrap();
        assert_eq!((unknown.key.as_str(), unknown.table.as_str(), unknown.line), ("kernel", "", 2));
        assert_eq!(
            unknown.to_string(),
            "unknown key `kernel`; did you mean `kernels`? kernelgate.toml takes `kernels`, `baselines`, `history`, \
             `out_dir`, `nvrtc`, `build`, each optional: rename the key, or remove it (docs/running.md, \"The \
             project: kernelgate.toml\")"
        );
        // Far from every key: no suggestion.
        let far = unknown_key("kernels = \"k\"\nthreads = 4\n").unwrap();
        assert!(far.to_string().starts_with("unknown key `threads`; kernelgate.toml takes `kernels`"), "{far}");
        // In a table, by its header, and in the order the file writes them.
        let text = "[nvrtc]\nflags = [\"-O3\"]\n[nvrtc.files.\"st.cu\"]\noption = []\n[build]\ncmd = \"make\"\n";
        let unknown = unknown_key(text).unwrap();
        assert_eq!((unknown.key.as_str(), unknown.table.as_str(), unknown.line), ("flags", "nvrtc", 2));
        assert!(unknown.to_string().starts_with("unknown key `flags` in [nvrtc]; [nvrtc] takes `options`"));
        let unknown = unknown_key(&text.replace("flags", "options")).unwrap();
        assert_eq!((unknown.table.as_str(), unknown.line), ("nvrtc.files.\"st.cu\"", 4));
        assert!(unknown.to_string().contains("in [nvrtc.files.\"st.cu\"]; did you mean `options`?"), "{unknown}");
        let unknown = unknown_key("[build]\ncmd = \"make\"\n").unwrap();
        assert_eq!((unknown.key.as_str(), unknown.line, unknown.suggestion()), ("cmd", 2, None));
        // A table written as a dotted key or inline is the same table.
        assert_eq!(unknown_key("nvrtc.flags = []\n").unwrap().table, "nvrtc");
        assert_eq!(unknown_key("build = { comand = \"make\" }\n").unwrap().suggestion(), Some("command"));
        assert_eq!(unknown_key("[nvrtc.file.\"a.cu\"]\noptions = []\n").unwrap().suggestion(), Some("files"));
    }
}
