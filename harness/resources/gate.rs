//! The resource gate: this build's figures against the blessed table. Pure.
//!
//! A row fails when its theoretical occupancy at its launch configuration falls (registers or
//! shared memory crossed an occupancy step), when it spills more than it did (0 → more, or more
//! bytes), or when it is not in the table (new kernels and new launch configurations are blessed
//! first). A change that fails none of these (registers within the same step, less spilling, more
//! occupancy) is a note; so is a blessed row that nothing compiles or launches any more, and so is
//! every change of a row blessed with another NVRTC (`major.minor`, read by
//! [`super::table::nvrtc_version`]: `13.5.0` is the same compiler as `13.5`): the table holds the
//! figures of the compiler CI pins, and another compiler moves registers by itself.

use super::table::{Key, Row};
use std::collections::BTreeMap;

/// What the gate found for one kernel file on one architecture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// One line per failing row, `kernel: registers 40 → 72, occupancy 100 % → 37.5 % at block
    /// 256; if intended, re-bless with KERNELGATE_BLESS=1`.
    pub failures: Vec<String>,
    /// One line per change that does not fail, and per blessed row left over.
    pub notes: Vec<String>,
}

/// The hint every failure of a blessed row ends with.
pub const BLESS_HINT: &str = "if intended, re-bless with KERNELGATE_BLESS=1";

/// The line a compile trial's gate message ends with when a blessed row changed: the command that
/// re-blesses kernel file `file`'s rows ([`super::table::bless_command`]), which [`BLESS_HINT`]
/// alone does not name.
pub fn rebless_line(failures: &[String], file: &str) -> Option<String> {
    failures
        .iter()
        .any(|f| f.ends_with(BLESS_HINT))
        .then(|| format!("  if intended: {}", super::table::bless_command(Some(file))))
}

/// How the hint every failure of a row missing from the table ends with begins ([`new_row_hint`]).
pub const NEW_ROW_HINT: &str = "new kernels and launch configurations must be blessed";

/// The hint every failure of a row of kernel file `file` missing from the table ends with:
/// [`NEW_ROW_HINT`] and the command that blesses that file's trials ([`super::table::bless_command`]).
/// The SASS gate ends its new functions' lines with it too.
pub fn new_row_hint(file: &str) -> String {
    format!("{NEW_ROW_HINT}: {}", super::table::bless_command(Some(file)))
}

/// Whether `failure` (a line of [`Judgement::failures`], or of `crate::resources::Checked`'s
/// failures) is this gate's judgement of a row, a resource regression, rather than a fault of the
/// compile trial (an entry-point or argument mismatch, an unreadable ptxas report, a missing table):
/// the lines [`compare`] writes end with [`BLESS_HINT`] or a [`new_row_hint`]. The suite counts a
/// compile trial failed by such lines alone as a gate failure (exit code 3).
pub fn is_gate_failure(failure: &str) -> bool {
    failure.ends_with(BLESS_HINT)
        || failure.rsplit_once("; ").is_some_and(|(_, hint)| hint.starts_with(&format!("{NEW_ROW_HINT}: ")))
}

/// Judges `now` (this build's rows of one kernel file) against `blessed` (the table's rows of the
/// same file); `table` names the table in messages.
pub fn compare(blessed: &[Row], now: &[Row], table: &str) -> Judgement {
    let before: BTreeMap<Key, &Row> = blessed.iter().map(|r| (r.key(), r)).collect();
    let mut judgement = Judgement::default();
    for row in now {
        match before.get(&row.key()) {
            Some(old) => judge(old, row, &mut judgement),
            None => {
                let place = |b: &Row| match b.block {
                    None => "without a launch (before a case launched it)".to_string(),
                    Some(_) => at(b).trim().to_string(),
                };
                let elsewhere: Vec<String> = blessed.iter().filter(|b| b.kernel == row.kernel).map(place).collect();
                let blessed_at = if elsewhere.is_empty() {
                    String::new()
                } else {
                    format!(", blessed only {}", elsewhere.join(" and "))
                };
                judgement.failures.push(format!(
                    "{}: not in {table}{} ({} registers{}{blessed_at}); {}",
                    row.kernel,
                    at(row),
                    row.regs,
                    row.occupancy_pct.map_or(String::new(), |p| format!(", occupancy {}", pct(p))),
                    new_row_hint(&row.file),
                ));
            }
        }
    }
    let kernels_now: Vec<&str> = now.iter().map(|r| r.kernel.as_str()).collect();
    let keys_now: Vec<Key> = now.iter().map(Row::key).collect();
    for old in blessed.iter().filter(|b| !keys_now.contains(&b.key())) {
        let why = if kernels_now.contains(&old.kernel.as_str()) && old.block.is_none() {
            "blessed before a case launched it, and a case launches it now"
        } else if kernels_now.contains(&old.kernel.as_str()) {
            "no case launches it so any more"
        } else {
            "the kernel is no longer compiled"
        };
        judgement.notes.push(format!(
            "{}{}: in {table}, but {why}; the next bless (KERNELGATE_BLESS=1) removes the row",
            old.kernel,
            at(old)
        ));
    }
    judgement
}

/// What a bless of one kernel file changes in the table, one line per row that appeared, changed
/// or went: `k at block 256: new, 32 registers, occupancy 100 %`, `k: registers 32 → 40,
/// occupancy 100 % → 75 % at block 256`, `k at block 256: removed`. Rows that stay the same give none.
pub fn blessed_changes(old: &[Row], new: &[Row]) -> Vec<String> {
    let before: BTreeMap<Key, &Row> = old.iter().map(|r| (r.key(), r)).collect();
    let after: BTreeMap<Key, &Row> = new.iter().map(|r| (r.key(), r)).collect();
    let mut keys: Vec<&Key> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = Vec::new();
    for key in keys {
        let name = |r: &Row| format!("{}{}", r.kernel, at(r));
        match (before.get(key), after.get(key)) {
            (None, Some(r)) => lines.push(format!(
                "{}: new, {} registers{}",
                name(r),
                r.regs,
                r.occupancy_pct.map_or(String::new(), |p| format!(", occupancy {}", pct(p)))
            )),
            (Some(r), None) => lines.push(format!("{}: removed", name(r))),
            (Some(a), Some(b)) if a != b => {
                let mut judgement = Judgement::default();
                judge(a, b, &mut judgement);
                let said = judgement.failures.into_iter().chain(judgement.notes).next();
                let text = said.unwrap_or_else(|| format!("{}: NVRTC {} → {}", b.kernel, a.nvrtc, b.nvrtc));
                let text = text.split("; if intended").next().unwrap_or(&text);
                let text = text.split(": not a failure").next().unwrap_or(text);
                let text = text.split(": improved").next().unwrap_or(text);
                let text = text.split(": not gated").next().unwrap_or(text);
                lines.push(text.to_string());
            }
            _ => {}
        }
    }
    lines
}

/// One blessed row against its counterpart now.
fn judge(old: &Row, new: &Row, judgement: &mut Judgement) {
    let mut changes = Vec::new();
    if old.regs != new.regs {
        changes.push(format!("registers {} → {}", old.regs, new.regs));
    }
    let bytes = |what: &str, a: u64, b: u64| (a != b).then(|| format!("{what} {a} → {b} bytes"));
    changes.extend(bytes("spill stores", old.spill_store_bytes, new.spill_store_bytes));
    changes.extend(bytes("spill loads", old.spill_load_bytes, new.spill_load_bytes));
    changes.extend(bytes("local memory", old.local_bytes, new.local_bytes));
    changes.extend(bytes("static shared memory", old.shared_static_bytes, new.shared_static_bytes));
    let occupancy = match (old.occupancy_pct, new.occupancy_pct) {
        (Some(a), Some(b)) if a != b => format!(", occupancy {} → {}{}", pct(a), pct(b), at(new)),
        (Some(a), _) => format!(", occupancy {}{}", pct(a), at(new)),
        _ => " (no case launches it)".to_string(),
    };
    if changes.is_empty() && old.occupancy_pct == new.occupancy_pct {
        return;
    }
    if changes.is_empty() {
        changes.push(format!("registers {}", new.regs));
    }
    let what = format!("{}: {}{occupancy}", new.kernel, changes.join(", "));
    let fewer_warps = matches!((old.occupancy_warps, new.occupancy_warps), (Some(a), Some(b)) if b < a);
    let more_spills = new.spill_store_bytes > old.spill_store_bytes || new.spill_load_bytes > old.spill_load_bytes;
    if super::table::nvrtc_version(&old.nvrtc) != super::table::nvrtc_version(&new.nvrtc) {
        judgement.notes.push(format!(
            "{what}: not gated: the row was blessed with ptxas {}, this run's ptxas is {} (NVRTC's own, or the \
             toolkit's for a PTX module), and another compiler moves registers by itself; compile with the releases \
             CI pins (scripts/get-nvrtc), or bless with this one",
            old.nvrtc, new.nvrtc
        ));
    } else if fewer_warps || more_spills {
        judgement.failures.push(format!("{what}; {BLESS_HINT}"));
    } else if matches!((old.occupancy_warps, new.occupancy_warps), (Some(a), Some(b)) if b > a) {
        judgement.notes.push(format!("{what}: improved; KERNELGATE_BLESS=1 records it"));
    } else {
        judgement.notes.push(format!("{what}: not a failure (same occupancy, no new spill)"));
    }
}

/// ` at block 256` (with the dynamic shared memory when there is some); empty without a block.
fn at(row: &Row) -> String {
    match (row.block, row.shared_dynamic_bytes) {
        (None, _) => String::new(),
        (Some(b), 0) => format!(" at block {b}"),
        (Some(b), d) => format!(" at block {b} with {d} bytes of dynamic shared memory"),
    }
}

/// A percentage as `100 %`, `37.5 %`, `98.4 %`.
pub fn pct(value: f64) -> String {
    let text = format!("{value:.1}");
    format!("{} %", text.strip_suffix(".0").unwrap_or(&text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::table::row;

    const TABLE: &str = "baselines/sm_90/resources.csv";

    fn with(mut r: Row, regs: u32, warps: u32) -> Row {
        r.regs = regs;
        r.occupancy_warps = Some(warps);
        r.occupancy_pct = Some(100.0 * f64::from(warps) / 64.0);
        r
    }

    #[test]
    fn crossing_an_occupancy_step_fails_with_before_and_after() {
        let blessed = [with(row("acc", Some(256), 40), 40, 48)];
        let now = [with(row("acc", Some(256), 72), 72, 24)];
        let j = compare(&blessed, &now, TABLE);
        assert_eq!(
            j.failures,
            [
                "acc: registers 40 → 72, occupancy 75 % → 37.5 % at block 256; if intended, re-bless with KERNELGATE_BLESS=1"
            ]
        );
        assert!(j.notes.is_empty());
    }

    #[test]
    fn registers_within_a_step_are_a_note() {
        let blessed = [with(row("k", Some(256), 26), 26, 64)];
        let now = [with(row("k", Some(256), 30), 30, 64)];
        let j = compare(&blessed, &now, TABLE);
        assert!(j.failures.is_empty());
        assert_eq!(
            j.notes,
            ["k: registers 26 → 30, occupancy 100 % at block 256: not a failure (same occupancy, no new spill)"]
        );
        assert_eq!(compare(&now, &now, TABLE), Judgement::default(), "nothing changed, nothing said");
    }

    #[test]
    fn any_new_spill_fails_and_less_spilling_does_not() {
        let blessed = row("k", Some(256), 32);
        let mut now = blessed.clone();
        now.spill_store_bytes = 8;
        now.spill_load_bytes = 8;
        now.local_bytes = 8;
        let j = compare(std::slice::from_ref(&blessed), std::slice::from_ref(&now), TABLE);
        assert_eq!(
            j.failures,
            ["k: spill stores 0 → 8 bytes, spill loads 0 → 8 bytes, local memory 0 → 8 bytes, occupancy 100 % at \
              block 256; if intended, re-bless with KERNELGATE_BLESS=1"]
        );
        let back = compare(&[now], &[blessed], TABLE);
        assert!(back.failures.is_empty() && back.notes.len() == 1, "{back:?}");
        // A kernel no case launches is gated on its spills only.
        let (mut a, mut b) = (row("lone", None, 32), row("lone", None, 200));
        assert!(compare(&[a.clone()], &[b.clone()], TABLE).failures.is_empty());
        b.spill_load_bytes = 4;
        a.regs = 200;
        let j = compare(&[a], &[b], TABLE);
        assert_eq!(
            j.failures,
            ["lone: spill loads 0 → 4 bytes (no case launches it); if intended, re-bless with KERNELGATE_BLESS=1"]
        );
    }

    #[test]
    fn shared_memory_that_lowers_occupancy_fails() {
        let blessed = row("tile", Some(256), 32);
        let mut now = with(blessed.clone(), 32, 40);
        now.shared_static_bytes = 40 * 1024;
        let j = compare(&[blessed], &[now], TABLE);
        assert_eq!(
            j.failures,
            [
                "tile: static shared memory 0 → 40960 bytes, occupancy 100 % → 62.5 % at block 256; if intended, re-bless \
              with KERNELGATE_BLESS=1"
            ]
        );
    }

    #[test]
    fn new_kernels_fail_and_gone_ones_are_noted() {
        let blessed = [row("old", Some(256), 8), row("moved", Some(128), 8)];
        let now = [row("new", Some(256), 8), row("moved", Some(256), 8)];
        let j = compare(&blessed, &now, TABLE);
        assert_eq!(j.failures.len(), 2);
        assert!(
            j.failures[0]
                .starts_with("new: not in baselines/sm_90/resources.csv at block 256 (8 registers, occupancy 100 %)")
                && j.failures[0].ends_with(
                    "must be blessed: KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/t.cu/"
                ),
            "{}",
            j.failures[0]
        );
        assert!(j.failures[1].contains("blessed only at block 128"), "{}", j.failures[1]);
        assert!(j.failures.iter().all(|f| is_gate_failure(f)), "{:?}", j.failures);
        assert!(!is_gate_failure("t.cu: NVRTC's ptxas report for sm_90 names no figures for [\"k\"]"));
        assert_eq!(
            j.notes,
            [
                "old at block 256: in baselines/sm_90/resources.csv, but the kernel is no longer compiled; the next \
                 bless (KERNELGATE_BLESS=1) removes the row",
                "moved at block 128: in baselines/sm_90/resources.csv, but no case launches it so any more; the next \
                 bless (KERNELGATE_BLESS=1) removes the row"
            ]
        );
    }

    /// A kernel blessed before any case launched it (a row without a block, as `kernelgate init
    /// --kernels` blesses a folder) and launched now: both messages say so (a new user's report:
    /// "blessed only " and "no case launches it so any more").
    #[test]
    fn a_kernel_blessed_before_its_first_launch_is_named_so() {
        let blessed = [row("uelu", None, 26)];
        let now = [row("uelu", Some(1024), 26)];
        let j = compare(&blessed, &now, TABLE);
        assert!(
            j.failures[0].contains("blessed only without a launch (before a case launched it)); "),
            "{}",
            j.failures[0]
        );
        assert_eq!(
            j.notes,
            ["uelu: in baselines/sm_90/resources.csv, but blessed before a case launched it, and a case launches it \
              now; the next bless (KERNELGATE_BLESS=1) removes the row"]
        );
    }

    #[test]
    fn rows_of_another_compiler_are_compared_but_not_gated() {
        let blessed = with(row("k", Some(256), 32), 32, 64);
        let mut now = with(row("k", Some(256), 40), 40, 48);
        now.nvrtc = "13.6".into();
        let j = compare(&[blessed], &[now], TABLE);
        assert!(j.failures.is_empty(), "{:?}", j.failures);
        assert!(
            j.notes[0].starts_with(
                "k: registers 32 → 40, occupancy 100 % → 75 % at block 256: not gated: the row was blessed with ptxas \
                 13.5, this run's ptxas is 13.6"
            ),
            "{:?}",
            j.notes
        );
    }

    #[test]
    fn a_patch_level_is_the_same_compiler_and_gated() {
        let mut blessed = with(row("k", Some(256), 32), 32, 64);
        blessed.nvrtc = "13.5.0".into();
        let now = with(row("k", Some(256), 40), 40, 48);
        let j = compare(&[blessed], &[now], TABLE);
        assert_eq!(j.failures.len(), 1, "{j:?}");
        assert!(j.failures[0].starts_with("k: registers 32 → 40, occupancy 100 % → 75 % at block 256"), "{j:?}");
    }

    #[test]
    fn a_bless_lists_what_it_changes() {
        let old = [with(row("k", Some(256), 32), 32, 64), row("gone", Some(256), 8), row("same", Some(256), 8)];
        let new = [with(row("k", Some(256), 40), 40, 48), row("fresh", None, 8), row("same", Some(256), 8)];
        assert_eq!(
            blessed_changes(&old, &new),
            [
                "fresh: new, 8 registers",
                "gone at block 256: removed",
                "k: registers 32 → 40, occupancy 100 % → 75 % at block 256",
            ]
        );
    }

    #[test]
    fn percentages_print_short() {
        assert_eq!(pct(100.0), "100 %");
        assert_eq!(pct(37.5), "37.5 %");
        assert_eq!(pct(98.4375), "98.4 %");
    }
}
