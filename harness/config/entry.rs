//! One entry of the variables' table ([`super::vars`]): a [`Var`], the values it takes ([`Value`],
//! [`Range`]) and the programs that read it ([`Reader`]), with what an entry says of itself in the
//! docs' words (its values, default and readers) and whether the unknown-variable check accepts it.

/// One `KERNELGATE_*` environment variable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Var {
    /// The full name, `KERNELGATE_...`.
    pub name: &'static str,
    /// The values it takes, with the default of a typed one.
    pub value: Value,
    /// The default as the docs show it, where [`Value`] has none to show (a path, a revision) or
    /// does not say it all; `None` shows the value's own default.
    pub default: Option<&'static str>,
    /// One line on what it does (Markdown).
    pub meaning: &'static str,
    /// The programs that read it.
    pub read_by: &'static [Reader],
}

/// What a variable takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// `1` (on) or `0` (off); default off.
    Flag,
    /// A finite number in `range`; `default` when unset.
    Number {
        /// The value when unset.
        default: f64,
        /// The values accepted.
        range: Range,
    },
    /// A whole number from `min` to `max`; `default` when unset.
    Whole {
        /// The value when unset.
        default: usize,
        /// The smallest value accepted.
        min: usize,
        /// The largest value accepted: what the quantity can mean (each variable says why).
        max: usize,
    },
    /// One of `values`, exactly; `default` when unset (`None`: unset means off).
    Choice {
        /// The values accepted.
        values: &'static [&'static str],
        /// The value when unset.
        default: Option<&'static str>,
    },
    /// Anything else (a path, a revision, a list), parsed where the variable is read; the text
    /// says what it takes (Markdown).
    Text(&'static str),
}

/// A range of finite numbers, with the phrase that names it in error messages and the docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Lower bound.
    pub lo: f64,
    /// Whether `lo` itself is refused.
    pub lo_open: bool,
    /// Upper bound, included.
    pub hi: f64,
    /// The range in words ("seconds from 0 to 3600").
    pub says: &'static str,
}

impl Range {
    /// Whether `v` is finite and in the range.
    pub fn holds(&self, v: f64) -> bool {
        v.is_finite() && (if self.lo_open { v > self.lo } else { v >= self.lo }) && v <= self.hi
    }
}

/// A program that reads a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The suite: `cargo test --release --test kernels` (`tests/kernels.rs`), `.gpu/bin/kernels`.
    Suite,
    /// The `kernelgate` program (`harness/bin/kernelgate`).
    Cli,
    /// A child process the suite starts and sets the variable for (the ncu-profiled child, the
    /// sanitized or isolated child): not an option to set by hand.
    Child,
    /// An integration test, or their shared support module: its file under `tests/`.
    Test(&'static str),
    /// The library's own unit tests (`cargo test --release --lib`): the file that reads it.
    UnitTest(&'static str),
    /// A script that reads it, with its own default where it has one.
    Script {
        /// The script, `scripts/...`.
        path: &'static str,
        /// Its default, when it sets the variable unless set.
        default: Option<&'static str>,
    },
}

impl Var {
    /// The default of a [`Value::Number`] (`const`, so that defaults elsewhere can be this one).
    ///
    /// # Panics
    /// When the variable is not a number (at compile time, in a `const`).
    pub const fn number_default(&self) -> f64 {
        match self.value {
            Value::Number { default, .. } => default,
            _ => panic!("not a Value::Number"),
        }
    }

    /// The default of a [`Value::Whole`].
    ///
    /// # Panics
    /// When the variable is not a whole number.
    pub const fn whole_default(&self) -> usize {
        match self.value {
            Value::Whole { default, .. } => default,
            _ => panic!("not a Value::Whole"),
        }
    }

    /// The values it takes, in words (Markdown), for the docs.
    pub fn values(&self) -> String {
        match self.value {
            Value::Flag => "`1` or `0`".to_string(),
            Value::Number { range, .. } => range.says.to_string(),
            Value::Whole { min, max, .. } => format!("a whole number from {min} to {max}"),
            Value::Choice { values, .. } => values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(" or "),
            Value::Text(text) => text.to_string(),
        }
    }

    /// The default, as the docs show it (Markdown).
    pub fn default_shown(&self) -> String {
        if let Some(shown) = self.default {
            return shown.to_string();
        }
        match self.value {
            Value::Flag => "0".to_string(),
            Value::Number { default, .. } => format!("{default}"),
            Value::Whole { default, .. } => format!("{default}"),
            Value::Choice { default: Some(d), .. } => format!("`{d}`"),
            Value::Choice { default: None, .. } | Value::Text(_) => "unset".to_string(),
        }
    }

    /// Who reads it, in words (Markdown), for the docs: the unit tests' files together.
    pub fn readers(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let unit: Vec<String> = self
            .read_by
            .iter()
            .filter_map(|r| if let Reader::UnitTest(path) = r { Some(format!("`{path}`")) } else { None })
            .collect();
        for r in self.read_by {
            out.push(match r {
                Reader::Suite => "suite".to_string(),
                Reader::Cli => "`kernelgate`".to_string(),
                Reader::Child => "the suite's child (set by the suite)".to_string(),
                Reader::Test(path) => format!("`{path}`"),
                Reader::UnitTest(_) if out.iter().any(|s| s.starts_with("unit tests")) => continue,
                Reader::UnitTest(_) => format!("unit tests ({})", unit.join(", ")),
                Reader::Script { path, default: None } => format!("`{path}`"),
                Reader::Script { path, default: Some(d) } => format!("`{path}` (default {d} there)"),
            });
        }
        out.join(", ")
    }

    /// Whether [`Config::from_env`](super::Config::from_env) lets it be set: every variable but
    /// those only the library's unit tests read (which the suite refuses, as a typo).
    pub fn accepted(&self) -> bool {
        self.read_by.iter().any(|r| !matches!(r, Reader::UnitTest(_)))
    }

    /// Whether it is an option a user sets (listed as such in the unknown-variable error):
    /// accepted, and not only a child's.
    pub fn is_option(&self) -> bool {
        self.accepted() && self.read_by.iter().any(|r| !matches!(r, Reader::Child))
    }
}
