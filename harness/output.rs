//! Files a user names for kernelgate's outputs (`KERNELGATE_JUNIT`, `KERNELGATE_RUN_FILE`,
//! `kernelgate diff --markdown/--html`): what lies at such a path, checked when the run starts,
//! and how it is written.
//!
//! - Nothing there, or a regular file: the output goes to a temporary file in the same folder that
//!   is then renamed over the path ([`crate::report::write_whole`]), so a reader never sees half a
//!   report.
//! - Anything else is written **in place, never replaced**: a character device (`/dev/null`,
//!   `/dev/stdout`, a terminal), a FIFO or a shell's process substitution (`>(xmllint -)`, a pipe
//!   under `/dev/fd/`). Renaming over such a path would put a regular file where the device or
//!   FIFO was (as root, over `/dev/null` itself: rename(2) replaces any non-folder).
//! - A symbolic link is followed: what it points to is written, and the link stays a link.
//!
//! Plain functions of the file system; messages are sentences without the path, for the caller
//! to prefix with the variable or flag that named it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What lies at an output path, after following symbolic links ([`resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// Nothing: the output creates a regular file.
    Nothing,
    /// A regular file: replaced whole.
    Regular,
    /// A folder: refused.
    Folder,
    /// A character device (`/dev/null`, a terminal): written in place.
    CharDevice,
    /// Linux's full device (character device 1:7, `Documentation/admin-guide/devices.txt`): every
    /// write to it fails with `ENOSPC`, so it is refused when the run starts.
    FullDevice,
    /// A FIFO or pipe: written in place, once a reader has it open.
    Fifo,
    /// A block device or a socket: refused.
    Other,
}

impl At {
    /// Whether an output at such a path is written in place rather than replaced.
    pub fn in_place(self) -> bool {
        matches!(self, At::CharDevice | At::FullDevice | At::Fifo)
    }
}

/// `path` with its symbolic links followed: the file an output to `path` writes. A link to
/// nothing gives the path it points to (made absolute against the link's folder), so that the
/// output creates the file the link names and the link keeps pointing at it. Links are followed at
/// most 40 deep (Linux's `MAXSYMLINKS`, path_resolution(7)); deeper, `path` itself.
pub fn resolve(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(to) => at = at.parent().map_or(to.clone(), |dir| dir.join(&to)),
            Err(_) => return at,
        }
    }
    path.to_path_buf()
}

/// What lies at `path` (symbolic links followed).
pub fn at(path: &Path) -> At {
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    let Ok(meta) = std::fs::metadata(path) else { return At::Nothing };
    let kind = meta.file_type();
    if kind.is_file() {
        At::Regular
    } else if kind.is_dir() {
        At::Folder
    } else if kind.is_fifo() {
        At::Fifo
    } else if kind.is_char_device() {
        // Major 1, minor 7: /dev/full (Linux, devices.txt; mknod c 1 7 makes another one).
        let rdev = meta.rdev();
        if cfg!(target_os = "linux") && libc::major(rdev) == 1 && libc::minor(rdev) == 7 {
            At::FullDevice
        } else {
            At::CharDevice
        }
    } else {
        At::Other
    }
}

/// The folder `path` is written in: its parent, or `.` for a bare file name.
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Checks, before any work, that an output can be written at `path`; `example` is a file name to
/// suggest when `path` is a folder (`junit.xml`). Nothing is written: a FIFO is not opened (a
/// probe's close would end its reader's input), a device is opened and closed.
///
/// # Errors
/// A sentence saying what is wrong and the fix: a folder, a block device or socket, the full
/// device, a folder that does not exist or cannot be written, a file or device that cannot be
/// opened for writing (with the operating system's words).
pub fn check(path: &Path, example: &str) -> Result<(), String> {
    let real = resolve(path);
    let via = if real != path { format!(" (a link to {})", real.display()) } else { String::new() };
    match at(&real) {
        At::Folder => {
            Err(format!("it names a folder{via}; name a file instead (e.g. {})", path.join(example).display()))
        }
        At::Other => Err(format!(
            "it names a block device or a socket{via}, which kernelgate does not write to; name a regular file, a \
             FIFO or a character device such as /dev/null"
        )),
        At::FullDevice => Err(format!(
            "it names the full device{via} (character device 1:7): every write to it fails with 'No space left on \
             device'; name a file, or /dev/null to discard the output"
        )),
        At::Fifo => Ok(()),
        At::CharDevice => std::fs::OpenOptions::new()
            .write(true)
            .open(&real)
            .map(drop)
            .map_err(|e| format!("it cannot be opened for writing{via} ({})", os_words(&e))),
        At::Regular => {
            std::fs::OpenOptions::new()
                .append(true)
                .open(&real)
                .map_err(|e| format!("the file cannot be written{via} ({})", os_words(&e)))?;
            folder_writable(&real, &via)
        }
        At::Nothing => folder_writable(&real, &via),
    }
}

/// Whether a file can be made in the folder of `real` (the temporary file an output is renamed
/// from): made and removed at once, an unnamed file where the file system has them.
fn folder_writable(real: &Path, via: &str) -> Result<(), String> {
    let dir = folder_of(real);
    if !dir.is_dir() {
        return Err(format!(
            "its folder {} does not exist{via}; create it (mkdir -p {}) or name a file in a folder that exists",
            dir.display(),
            dir.display()
        ));
    }
    tempfile::tempfile_in(&dir)
        .map(drop)
        .map_err(|e| format!("its folder {} cannot be written{via} ({})", dir.display(), os_words(&e)))
}

/// Opens `real` (a character device or a FIFO, [`At::in_place`]) for writing, appending when
/// `append`. A FIFO is opened without blocking: one that no process reads fails at once with a
/// sentence saying so (rather than the run hanging at its end), then the write blocks as usual.
///
/// # Errors
/// The operating system's error; for a FIFO without a reader, `ErrorKind::NotConnected` with a
/// sentence naming the fix.
pub fn open_in_place(real: &Path, append: bool) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let fifo = at(real) == At::Fifo;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).append(append);
    if fifo {
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(real).map_err(|e| {
        if fifo && e.raw_os_error() == Some(libc::ENXIO) {
            std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "it is a FIFO that no process has open for reading; start its reader before kernelgate (e.g. \
                 `cat FIFO &`), or name a regular file",
            )
        } else {
            e
        }
    })?;
    if fifo {
        set_blocking(&file)?;
    }
    Ok(file)
}

/// Clears `O_NONBLOCK` on `file`, so that writes wait for a slow reader instead of failing.
fn set_blocking(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is open for the life of `file`, borrowed here; F_GETFL and F_SETFL read and set
    // its status flags and touch no memory.
    #[allow(unsafe_code)]
    let set = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 { flags } else { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) }
    };
    if set < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
}

/// Writes `bytes` to the device or FIFO at `real` in place ([`open_in_place`]).
///
/// # Errors
/// As [`open_in_place`], and the operating system's error while writing.
pub fn write_in_place(real: &Path, bytes: &[u8], append: bool) -> std::io::Result<()> {
    let mut file = open_in_place(real, append)?;
    file.write_all(bytes)?;
    file.flush()
}

/// The operating system's words for `e` (`Permission denied`), without Rust's ` (os error 13)`.
pub fn os_words(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let text = std::io::Error::from_raw_os_error(code).to_string();
            text.split(" (os error").next().unwrap_or(&text).to_string()
        }
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        #[allow(unsafe_code)]
        let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
        assert_eq!(rc, 0, "mkfifo {}", path.display());
    }

    #[test]
    fn what_lies_at_a_path_decides_how_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.xml");
        assert_eq!(at(&file), At::Nothing);
        std::fs::write(&file, "x").unwrap();
        assert_eq!(at(&file), At::Regular);
        assert_eq!(at(dir.path()), At::Folder);
        assert_eq!(at(Path::new("/dev/null")), At::CharDevice);
        if Path::new("/dev/full").exists() {
            assert_eq!(at(Path::new("/dev/full")), At::FullDevice);
        }
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert_eq!(at(&fifo), At::Fifo);
        assert!(At::Fifo.in_place() && At::CharDevice.in_place() && !At::Regular.in_place());
    }

    #[test]
    fn links_are_followed_to_what_they_name_even_when_it_does_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("latest.xml");
        std::os::unix::fs::symlink("reports/r1.xml", &link).unwrap();
        assert_eq!(resolve(&link), dir.path().join("reports/r1.xml"));
        std::fs::create_dir(dir.path().join("reports")).unwrap();
        std::fs::write(dir.path().join("reports/r1.xml"), "x").unwrap();
        assert_eq!(resolve(&link), std::fs::canonicalize(dir.path().join("reports/r1.xml")).unwrap());
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        assert_eq!(at(&resolve(&null)), At::CharDevice);
    }

    #[test]
    fn check_refuses_what_would_fail_later_and_accepts_sinks() {
        let dir = tempfile::tempdir().unwrap();
        let e = check(dir.path(), "junit.xml").unwrap_err();
        assert!(e.starts_with("it names a folder; name a file instead (e.g. ") && e.ends_with("junit.xml)"), "{e}");
        let e = check(&dir.path().join("no/such/r.xml"), "r.xml").unwrap_err();
        assert!(e.starts_with("its folder ") && e.contains("does not exist; create it (mkdir -p "), "{e}");
        check(&dir.path().join("new.xml"), "r.xml").unwrap();
        check(Path::new("/dev/null"), "r.xml").unwrap();
        if Path::new("/dev/full").exists() {
            let e = check(Path::new("/dev/full"), "r.xml").unwrap_err();
            assert!(e.contains("every write to it fails with 'No space left on device'"), "{e}");
        }
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        check(&fifo, "r.xml").unwrap();
        let link = dir.path().join("to-folder");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        let e = check(&link, "r.xml").unwrap_err();
        assert!(e.starts_with("it names a folder (a link to "), "{e}");
        assert!(std::fs::read_dir(dir.path()).unwrap().count() == 2, "the checks wrote nothing");
    }

    #[test]
    fn a_fifo_without_a_reader_fails_at_once_and_one_with_a_reader_gets_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let e = write_in_place(&fifo, b"x", false).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotConnected);
        assert!(e.to_string().contains("no process has open for reading"), "{e}");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        // The reader opens the FIFO when its thread runs; retry until it has.
        let mut tries = 0;
        while let Err(e) = write_in_place(&fifo, b"report\n", false) {
            assert_eq!(e.kind(), std::io::ErrorKind::NotConnected);
            tries += 1;
            assert!(tries < 1000, "the reader never opened the FIFO");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(reader.join().unwrap(), b"report\n");
        assert_eq!(at(&fifo), At::Fifo, "still a FIFO");
    }

    #[test]
    fn os_words_drop_rusts_error_number() {
        let e = std::io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(os_words(&e), "Permission denied");
    }
}
