//! Waiting for a folder's lock file, with a bound and the holder's name.
//!
//! kernelgate's writers sign the lock file they hold with one line, [`signature`]:
//!
//! ```text
//! pid 22640 since 2026-12-01T10:04:37Z: kernelgate baseline calibrate rec/a … (+69 more arguments)
//! ```
//!
//! A process that has to wait reads that line to say who holds the lock, and since when; a wait
//! that outlasts [`LOCK_WAIT`] ends with an error naming the holder and the fix, so a holder that is
//! stopped (Ctrl-Z, a debugger, a hung network file system) cannot hang every other kernelgate
//! process on the machine. Readers take the lock shared and do not sign it (they leave the folder
//! as they found it), so a writer waiting for readers is told that the process the file names has
//! ended, when it has.

use crate::error::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a kernelgate process waits for a lock before it gives up: 120 s. Holders keep their
/// locks for seconds at most: `kernelgate baseline calibrate` of the 71 committed benchmark records
/// (the largest writer) runs for 1.0 s on the 2-core CI machine, and the history store gives a
/// second writer 60 s (its busy timeout); twice that is left for a slow disk.
pub const LOCK_WAIT: Duration = Duration::from_secs(120);

/// How often a waiting process tries the lock again.
const POLL: Duration = Duration::from_millis(50);

/// The most characters of a holder's command line that a signature keeps.
const COMMAND_CHARS: usize = 160;

/// How a lock is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Beside other readers; excludes writers.
    Shared,
    /// Alone.
    Exclusive,
}

/// This process's signature for a lock file it holds (one line, ending in a line break): pid, the
/// UTC time it took the lock, and its command line, cut to a readable length.
pub fn signature() -> String {
    let args: Vec<String> = std::env::args().collect();
    let mut command = String::new();
    let mut shown = 0;
    for a in &args {
        if command.chars().count() + a.chars().count() > COMMAND_CHARS && shown > 0 {
            break;
        }
        if shown > 0 {
            command.push(' ');
        }
        command.extend(a.chars().take(COMMAND_CHARS));
        shown += 1;
    }
    if shown < args.len() {
        command.push_str(&format!(" … (+{} more arguments)", args.len() - shown));
    }
    let since = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ");
    format!("pid {} since {since}: {command}\n", std::process::id())
}

/// Who the lock file's text says holds the lock, for a message (pure but for one look at
/// `/proc/<pid>`): its first line, cut to a readable length; that the process it names has ended
/// (then a reader, or a process that does not sign, holds it); or that it is not signed.
pub fn holder(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return "by a process that did not sign the lock file (a reader, or a kernelgate older than this one)".into();
    }
    let line: String = line.chars().take(COMMAND_CHARS + 60).collect();
    let pid = line.strip_prefix("pid ").and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next());
    let ended =
        pid.is_some_and(|p| !p.is_empty() && Path::new("/proc/self").exists() && !Path::new("/proc").join(p).exists());
    if ended {
        format!("by a reader or an unsigned process: the last writer the lock file names ({line}) has ended")
    } else {
        format!("by {line}")
    }
}

/// The pid a lock file's signature names, when it is signed and that process still runs.
fn signed_pid(text: &str) -> Option<u32> {
    let pid: u32 = text.strip_prefix("pid ")?.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    let running = !Path::new("/proc/self").exists() || Path::new("/proc").join(pid.to_string()).exists();
    running.then_some(pid)
}

/// Takes `mode`'s lock on `file` (the open lock file at `path`), waiting while another process
/// holds it: one line on stderr says for whom it waits and for how long at most; after `wait` it
/// gives up. `what` names the thing locked in messages (`baselines/nvidia-h200-sm90`).
///
/// # Errors
/// [`Error::Store`] naming `path`, the holder and the fix when the wait outlasts `wait`;
/// [`Error::Io`] when the lock cannot be taken for another reason.
pub fn acquire(file: &File, path: &Path, what: &str, mode: Mode, wait: Duration) -> Result<()> {
    let attempt = || match mode {
        Mode::Shared => file.try_lock_shared(),
        Mode::Exclusive => file.try_lock(),
    };
    let start = Instant::now();
    let mut said = false;
    loop {
        match attempt() {
            Ok(()) => return Ok(()),
            Err(TryLockError::Error(e)) => return Err(Error::io(path)(e)),
            Err(TryLockError::WouldBlock) => {}
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let by = holder(&text);
        if start.elapsed() >= wait {
            let pid = signed_pid(&text).map_or_else(|| "<pid>".to_string(), |p| p.to_string());
            return Err(Error::Store {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "gave up after {} s waiting for the lock on {what}, held {by}; nothing was read or written. Fix: \
                     if that process is stopped (Ctrl-Z, a debugger), resume it (`kill -CONT {pid}`) or end it \
                     (`kill {pid}`): its change is committed whole or not at all, so ending it loses only that \
                     change; then run this again",
                    wait.as_secs_f64()
                ),
            });
        }
        if !said {
            let doing = if mode == Mode::Shared { "to read" } else { "for the lock on" };
            crate::errln!("kernelgate: waiting {doing} {what} (held {by}); giving up after {} s", wait.as_secs_f64());
            said = true;
        }
        std::thread::sleep(POLL.min(wait.saturating_sub(start.elapsed())).max(Duration::from_millis(1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_signature_is_one_short_line_and_names_the_holder() {
        let s = signature();
        assert!(s.starts_with(&format!("pid {} since 20", std::process::id())) && s.ends_with('\n'), "{s}");
        assert_eq!(s.lines().count(), 1);
        assert!(s.chars().count() < COMMAND_CHARS + 80, "{s}");
        assert!(holder(&s).starts_with("by pid "), "{}", holder(&s));
        assert!(holder("").contains("did not sign"));
        // A pid that cannot be running (above Linux's pid_max of 2^22).
        let gone = holder("pid 99999999 since 2026-12-01T10:00:00Z: kernelgate baseline bless x\n");
        assert!(gone.contains("has ended") && gone.contains("pid 99999999"), "{gone}");
        let long = format!("pid 1 ({})", "x".repeat(7000));
        assert!(holder(&long).len() < 300, "a 7 KB command line is cut");
    }

    #[test]
    fn a_wait_for_a_stopped_holder_ends_with_its_name_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".kernelgate.lock");
        let mut holder_file = File::create(&path).unwrap();
        holder_file.lock().unwrap();
        holder_file.write_all(signature().as_bytes()).unwrap();
        let waiter = File::open(&path).unwrap();
        let start = Instant::now();
        for mode in [Mode::Shared, Mode::Exclusive] {
            let err = acquire(&waiter, &path, "baselines/x", mode, Duration::from_millis(300)).unwrap_err().to_string();
            assert!(err.contains("gave up after 0.3 s waiting for the lock on baselines/x"), "{err}");
            assert!(err.contains(&format!("held by pid {} since", std::process::id())), "{err}");
            assert!(err.contains(&format!("kill -CONT {}", std::process::id())), "{err}");
            assert!(err.contains("nothing was read or written"), "{err}");
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        drop(holder_file);
        acquire(&waiter, &path, "baselines/x", Mode::Shared, Duration::from_millis(300)).unwrap();
    }
}
