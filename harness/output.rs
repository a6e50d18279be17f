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
//! - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` name one of this process's
//!   open files: the output is written through that descriptor (a copy of it), so a log
//!   redirected with `>>` is appended to, never replaced, and a pipe gets the bytes.
//! - A symbolic link is followed: what it points to is written, and the link stays a link; a loop
//!   of links is refused.
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
    /// One of this process's open files, by descriptor (`/dev/stdout`, `/dev/fd/3`): written
    /// through a copy of the descriptor.
    Descriptor(i32),
    /// A loop of symbolic links: refused.
    Loop,
    /// A block device or a socket: refused.
    Other,
}

impl At {
    /// Whether an output at such a path is written in place rather than replaced.
    pub fn in_place(self) -> bool {
        matches!(self, At::CharDevice | At::FullDevice | At::Fifo | At::Descriptor(_))
    }
}

/// The descriptor `path` names when it is `/dev/stdout` (1), `/dev/stderr` (2), `/dev/stdin` (0),
/// `/dev/fd/N` or `/proc/self/fd/N` (Linux's links to a process's open files, proc(5)); `None`
/// for any other path.
pub fn descriptor(path: &Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let n = text.strip_prefix("/dev/fd/").or_else(|| text.strip_prefix("/proc/self/fd/"))?;
    n.parse().ok()
}

/// `path` with its symbolic links followed: the file an output to `path` writes. A link to
/// nothing gives the path it points to (made absolute against the link's folder), so that the
/// output creates the file the link names and the link keeps pointing at it. Links are followed at
/// most 40 deep (Linux's `MAXSYMLINKS`, path_resolution(7)); deeper, `path` itself.
pub fn resolve(path: &Path) -> PathBuf {
    if descriptor(path).is_some() {
        return path.to_path_buf();
    }
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
    if let Some(fd) = descriptor(path) {
        return At::Descriptor(fd);
    }
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return At::Loop,
        Err(_) => return At::Nothing,
    };
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
/// [`Unwritable`], saying what is wrong and the fix: a folder, a block device or socket, the full
/// device, a folder that does not exist or cannot be written, a file or device that cannot be
/// opened for writing (with the operating system's words).
pub fn check(path: &Path, example: &str) -> Result<(), Unwritable> {
    file_reason(path, example).map_err(|reason| Unwritable { path: path.to_path_buf(), reason })
}

/// Why an output cannot be written at a path ([`check`], [`check_folder`]), for the caller to put
/// after the variable, flag or key that named it.
///
/// # Example
/// ```
/// let dir = std::env::temp_dir();
/// let e = kernelgate::output::check(&dir, "junit.xml").unwrap_err();
/// assert_eq!(e.path, dir);
/// assert!(e.reason.starts_with("it names a folder"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Unwritable {
    /// The path as given.
    pub path: PathBuf,
    /// What is wrong and the fix, a sentence that does not repeat the path (`it names a folder;
    /// name a file instead (e.g. out/junit.xml)`).
    pub reason: String,
}

/// [`check`], its error the reason.
fn file_reason(path: &Path, example: &str) -> Result<(), String> {
    long_name(path)?;
    let real = resolve(path);
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let via = if linked { format!(" (a link to {})", real.display()) } else { String::new() };
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
        At::Descriptor(fd) => descriptor_open(fd),
        At::Loop => {
            Err("it is a loop of symbolic links (following them never reaches a file); point the link at a file"
                .to_string())
        }
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

/// Checks, before any work, that a folder of outputs can be had at `path`: a folder there that can
/// be written, or none yet, where the nearest folder above it that exists can be written (the run
/// makes the rest). Nothing is made.
///
/// # Errors
/// [`Unwritable`]: a file (or device, FIFO, loop of links) in the folder's place, or above it; a
/// folder that cannot be written (with the operating system's words); a name in the path longer
/// than a file system takes.
pub fn check_folder(path: &Path) -> Result<(), Unwritable> {
    folder_reason(path).map_err(|reason| Unwritable { path: path.to_path_buf(), reason })
}

/// [`check_folder`], its error the reason.
fn folder_reason(path: &Path) -> Result<(), String> {
    long_name(path)?;
    let mut at = path.to_path_buf();
    loop {
        match std::fs::metadata(&at) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) if at == path => {
                return Err("it names a file, not a folder; name a folder (it is made if it does not exist)".into());
            }
            Ok(_) => {
                return Err(format!(
                    "{} is a file, so no folder can be made below it; name another folder",
                    at.display()
                ));
            }
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(format!("{} is a loop of symbolic links; point the link at a folder", at.display()));
            }
            Err(_) => match at.parent() {
                Some(up) if !up.as_os_str().is_empty() => at = up.to_path_buf(),
                _ => {
                    at = PathBuf::from(".");
                    break;
                }
            },
        }
    }
    tempfile::tempfile_in(&at).map(drop).map_err(|e| {
        let made = if at == path { String::new() } else { " (the nearest folder of it that exists)".to_string() };
        format!("the folder {}{made} cannot be written ({})", at.display(), os_words(&e))
    })
}

/// The longest name of a file or folder most Linux file systems take, bytes (`NAME_MAX`, limits.h).
pub const NAME_MAX: usize = 255;

/// Refuses a path one of whose names is longer than [`NAME_MAX`] bytes, which no write could make.
fn long_name(path: &Path) -> Result<(), String> {
    match path.components().map(|c| c.as_os_str().len()).find(|n| *n > NAME_MAX) {
        Some(n) => Err(format!(
            "a name in it is {n} bytes long, and file systems take names of at most {NAME_MAX} bytes; name a shorter \
             file"
        )),
        None => Ok(()),
    }
}

/// Whether descriptor `fd` is open in this process (`fcntl(F_GETFD)`).
fn descriptor_open(fd: i32) -> Result<(), String> {
    // SAFETY: F_GETFD reads the descriptor's flags and touches no memory; a closed descriptor
    // gives -1 (EBADF).
    #[allow(unsafe_code)]
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 { Err(format!("descriptor {fd} is not open in this process")) } else { Ok(()) }
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
    if let At::Descriptor(fd) = at(real) {
        return duplicate(fd);
    }
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

/// A copy of this process's descriptor `fd` as a file: writes through it share the descriptor's
/// open file (its offset, its `O_APPEND`), as the shell's redirection set it. What this process
/// has printed to stdout and stderr is flushed first, so the output follows it.
fn duplicate(fd: i32) -> std::io::Result<std::fs::File> {
    use std::io::Write as _;
    use std::os::fd::FromRawFd as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: dup returns a new descriptor that this function alone owns (or -1, checked).
    #[allow(unsafe_code)]
    let copy = unsafe { libc::dup(fd) };
    if copy < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh, open descriptor owned by nothing else; the File closes it.
    #[allow(unsafe_code)]
    Ok(unsafe { std::fs::File::from_raw_fd(copy) })
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
        let e = check(dir.path(), "junit.xml").unwrap_err().reason;
        assert!(e.starts_with("it names a folder; name a file instead (e.g. ") && e.ends_with("junit.xml)"), "{e}");
        let e = check(&dir.path().join("no/such/r.xml"), "r.xml").unwrap_err().reason;
        assert!(e.starts_with("its folder ") && e.contains("does not exist; create it (mkdir -p "), "{e}");
        check(&dir.path().join("new.xml"), "r.xml").unwrap();
        check(Path::new("/dev/null"), "r.xml").unwrap();
        if Path::new("/dev/full").exists() {
            let e = check(Path::new("/dev/full"), "r.xml").unwrap_err().reason;
            assert!(e.contains("every write to it fails with 'No space left on device'"), "{e}");
        }
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        check(&fifo, "r.xml").unwrap();
        let link = dir.path().join("to-folder");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        let e = check(&link, "r.xml").unwrap_err().reason;
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

    /// A probe of the outputs' kind: `/dev/stdout` is this process's stdout (a log redirected with
    /// `>>` is appended to, not replaced), a loop of links is refused, a long name is refused.
    #[test]
    fn descriptors_loops_and_long_names() {
        assert_eq!(descriptor(Path::new("/dev/stdout")), Some(1));
        assert_eq!(descriptor(Path::new("/proc/self/fd/7")), Some(7));
        assert_eq!(descriptor(Path::new("/dev/fd/x")), None);
        assert_eq!(at(Path::new("/dev/stderr")), At::Descriptor(2));
        assert!(At::Descriptor(1).in_place());
        check(Path::new("/dev/stdout"), "r.xml").unwrap();
        assert!(check(Path::new("/dev/fd/999"), "r.xml").unwrap_err().reason.contains("descriptor 999 is not open"));
        let dir = tempfile::tempdir().unwrap();
        let (l1, l2) = (dir.path().join("l1"), dir.path().join("l2"));
        std::os::unix::fs::symlink(&l2, &l1).unwrap();
        std::os::unix::fs::symlink(&l1, &l2).unwrap();
        assert_eq!(at(&l1), At::Loop);
        assert!(check(&l1, "r.xml").unwrap_err().reason.starts_with("it is a loop of symbolic links"));
        let long = dir.path().join("x".repeat(300));
        assert!(check(&long, "r.xml").unwrap_err().reason.contains("300 bytes long"));
        assert!(check_folder(&long).unwrap_err().reason.contains("300 bytes long"));
    }

    #[test]
    fn check_folder_takes_a_folder_or_one_to_make_and_refuses_a_file() {
        let dir = tempfile::tempdir().unwrap();
        check_folder(dir.path()).unwrap();
        check_folder(&dir.path().join("a/b/c")).unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(check_folder(&file).unwrap_err().reason.starts_with("it names a file, not a folder"));
        assert!(
            check_folder(&file.join("below"))
                .unwrap_err()
                .reason
                .contains("is a file, so no folder can be made below it")
        );
        assert!(!dir.path().join("a").exists(), "nothing made");
    }

    #[test]
    fn os_words_drop_rusts_error_number() {
        let e = std::io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(os_words(&e), "Permission denied");
    }
}
