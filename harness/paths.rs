//! Where things are: the project root, found at run time, and temporary files made beside the
//! file they will replace. Plain functions of the file system, imported by every stage that reads
//! or writes the working tree.

use std::path::{Path, PathBuf};

/// The project root: the nearest folder at or above `start` holding both `Cargo.toml` and
/// `kernels/`; failing that, the nearest holding `.git`; failing that, `start`. Found at run time
/// (not from compile-time paths) so that a staged binary run on a GPU runner writes into the
/// working tree it was started in.
pub fn project_root(start: &Path) -> PathBuf {
    let find = |pred: &dyn Fn(&Path) -> bool| start.ancestors().find(|d| pred(d)).map(Path::to_path_buf);
    find(&|d| d.join("Cargo.toml").is_file() && d.join("kernels").is_dir())
        .or_else(|| find(&|d| d.join(".git").exists()))
        .unwrap_or_else(|| start.to_path_buf())
}

/// A temporary file in `dir` to be renamed over a result file, with the permissions a file created
/// normally gets (0o666 less the umask): tempfile's default 0o600 would leave run CSVs and JUnit
/// reports unreadable to a CI job's artifact upload running as another user.
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_walks_up_to_cargo_toml_with_kernels() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(project_root(&deep), dir.path());
    }
}
