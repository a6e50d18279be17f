//! The end-of-run report of the compile trials' resource figures: one table of every kernel's
//! registers, spills, local and shared memory and theoretical occupancy, then the notes and what
//! was blessed.

use super::{Checked, gate, shown};

/// The end-of-run report of the compile trials' figures: one line per row, sorted by
/// architecture, file and kernel, then the notes and what was blessed. Empty for no trials.
pub fn render(checked: &[Checked]) -> String {
    let mut all: Vec<&Checked> = checked.iter().collect();
    all.sort_by(|a, b| (&a.arch, &a.file).cmp(&(&b.arch, &b.file)));
    let mut lines = Vec::new();
    // No table when no file compiled to figures (its entry points did not match): only its notes.
    if let Some(nvrtc) = all.iter().flat_map(|c| &c.rows).map(|r| r.nvrtc.as_str()).next() {
        lines.push(format!(
            "kernelgate: kernel resources from ptxas {nvrtc} (NVRTC's own; a PTX module's, the toolkit's; a cubin's, its build's); occupancy is \
             theoretical, at the cases' block"
        ));
        lines.extend(crate::units::aligned(&figures(&all), 2));
    }
    for c in &all {
        for note in &c.notes {
            lines.push(format!("kernelgate: resources {}: {note}", c.arch));
        }
        if let Some(blessed) = &c.blessed {
            let what =
                if blessed.is_empty() { "unchanged".to_string() } else { format!("{} change(s)", blessed.len()) };
            lines.push(format!("kernelgate: blessed {} for {} into {} ({what})", c.path, c.arch, shown(&c.table)));
            lines.extend(blessed.iter().map(|b| format!("  {b}")));
        }
    }
    lines.join("\n")
}

/// The table of [`render`]: a header, then one line per row of `all`, in order.
fn figures(all: &[&Checked]) -> Vec<[String; 8]> {
    let header = ["arch", "kernel", "block", "regs", "spill st/ld B", "local B", "shared B", "occupancy"];
    let mut table: Vec<[String; 8]> = vec![header.map(str::to_string)];
    for c in all {
        for r in &c.rows {
            table.push([
                c.arch.clone(),
                format!("{}/{}", crate::kernel_file::stem(&r.file), r.kernel),
                match (r.block, r.shared_dynamic_bytes) {
                    (None, _) => "-".into(),
                    (Some(b), 0) => b.to_string(),
                    (Some(b), d) => format!("{b} +{d} B"),
                },
                r.regs.to_string(),
                format!("{}/{}", r.spill_store_bytes, r.spill_load_bytes),
                r.local_bytes.to_string(),
                r.shared_static_bytes.to_string(),
                match (r.occupancy_warps, r.occupancy_pct) {
                    (Some(0), Some(_)) => "cannot launch".into(),
                    (Some(w), Some(p)) => format!("{w} warps, {}", gate::pct(p)),
                    _ => "-".into(),
                },
            ]);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::super::table;
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_report_lists_every_row_and_the_blessed_changes() {
        let mut row = table::row("k", Some(256), 40);
        row.occupancy_warps = Some(48);
        row.occupancy_pct = Some(75.0);
        let mut too_big = table::row("tile", Some(256), 9);
        (too_big.occupancy_warps, too_big.occupancy_pct) = (Some(0), Some(0.0));
        let checked = Checked {
            file: "t.cu".into(),
            path: "kernels/t.cu".into(),
            arch: "sm_90".into(),
            table: PathBuf::from("/x/baselines/sm_90/resources.csv"),
            rows: vec![row, table::row("lone", None, 8), too_big],
            failures: vec![],
            entries_match: true,
            notes: vec!["k: registers 32 → 40".into()],
            blessed: Some(vec!["k at block 256: registers 32 → 40".into()]),
        };
        let text = render(&[checked]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1].split_whitespace().collect::<Vec<_>>()[..3], ["arch", "kernel", "block"]);
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["sm_90", "t/k", "256", "40", "0/0", "0", "0", "48", "warps,", "75", "%"]
        );
        assert_eq!(
            lines[3].split_whitespace().collect::<Vec<_>>(),
            ["sm_90", "t/lone", "-", "8", "0/0", "0", "0", "-"]
        );
        assert_eq!(lines[4].split_whitespace().collect::<Vec<_>>()[7..], ["cannot", "launch"]);
        assert!(text.contains("kernelgate: resources sm_90: k: registers 32 → 40"), "{text}");
        assert!(
            text.contains("blessed kernels/t.cu for sm_90 into /x/baselines/sm_90/resources.csv (1 change(s))"),
            "{text}"
        );
        assert_eq!(render(&[]), "");
    }
}
