//! A store folder that holds one CSV table (the resource gate's `resources.csv`, the SASS gate's
//! `opcodes.csv`): reading it, changing it as one atomic step, and vouching for a hand edit, with
//! the table's own parser and writer. The [`super::Store`] underneath gives the lock, the manifest
//! and the refusal of a file cut short or edited by hand.

use super::Store;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads the table's bytes (from the file at the path given, for messages) into rows.
pub type Parse<R> = fn(&[u8], &Path) -> Result<Vec<R>>;

/// Writes rows as the table's bytes.
pub type Write<R> = fn(&[R], &Path) -> Result<Vec<u8>>;

/// One table in its folder.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a, R> {
    /// The folder.
    pub dir: &'a Path,
    /// The file name inside it.
    pub file: &'static str,
    /// The folder named in messages ("resource table folder").
    pub what: &'static str,
    /// Its parser.
    pub parse: Parse<R>,
    /// Its writer.
    pub write: Write<R>,
}

impl<R> Table<'_, R> {
    fn store(&self) -> Store {
        Store::new(self.dir, &[self.file], self.what, format!("kernelgate baseline reseal {}", self.dir.display()))
    }

    fn path(&self) -> PathBuf {
        self.dir.join(self.file)
    }

    /// The rows; empty when the folder or the file does not exist. Writes nothing.
    ///
    /// # Errors
    /// [`Error::Store`] when the file does not match the folder's manifest; [`Error::Io`]; the
    /// parser's error.
    pub fn load(&self) -> Result<Vec<R>> {
        match self.store().read()?.file(self.file) {
            Some(bytes) => (self.parse)(bytes, &self.path()),
            None => Ok(Vec::new()),
        }
    }

    /// Changes the table as one atomic step under the folder's lock: `change` gets the rows as
    /// they are now and returns `None` to write nothing. A folder that does not exist is created.
    /// Returns `change`'s value.
    ///
    /// # Errors
    /// As [`Table::load`] (nothing written); [`Error::Io`] when the folder cannot be written (the
    /// previous table stays whole).
    pub fn update<T>(&self, change: impl FnOnce(&mut Vec<R>) -> Option<T>) -> Result<Option<T>> {
        let path = self.path();
        self.store().update(|snapshot| {
            let mut rows = match snapshot.file(self.file) {
                Some(bytes) => (self.parse)(bytes, &path)?,
                None => Vec::new(),
            };
            let Some(value) = change(&mut rows) else { return Ok(None) };
            Ok(Some((BTreeMap::from([(self.file.to_string(), (self.write)(&rows, &path)?)]), value)))
        })
    }

    /// Vouches for the table as it is now (after a hand edit or a git merge), once it parses.
    /// Returns the new generation.
    ///
    /// # Errors
    /// [`Error::Baseline`] when the folder holds no table; the parser's error (nothing written);
    /// [`Error::Io`].
    pub fn reseal(&self) -> Result<u64> {
        let path = self.path();
        if !path.is_file() {
            return Err(Error::Baseline {
                path: self.dir.to_path_buf(),
                line: None,
                message: format!("no {} here, so nothing to reseal", self.file),
            });
        }
        self.store().reseal(|snapshot| {
            (self.parse)(snapshot.file(self.file).unwrap_or_default(), &path)?;
            Ok(BTreeMap::new())
        })
    }
}
