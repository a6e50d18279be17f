//! Reading ptxas's `-v` report: registers, spills, stack and shared memory per entry point. Pure.
//!
//! NVRTC runs ptxas itself when it compiles for a real architecture (`sm_90`, not `compute_90`),
//! and with `--ptxas-options=-v` it writes ptxas's report into the program log. The lines read
//! (ptxas of CUDA 13.5, through NVRTC 13.5 and standalone; NVRTC prefixes the stack line with
//! `ptxas         .`):
//!
//! ```text
//! ptxas info    : Compiling entry function 'k' for 'sm_90'
//! ptxas info    : Function properties for k
//! ptxas         .     256 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
//! ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem
//! ```
//!
//! Older ptxas wrote `Used 8 registers, 8 bytes lmem, 4096+0 bytes smem, 364 bytes cmem[0]`; both
//! forms are read. Lines of other kinds (`Compile time`, `gmem`, warnings) are skipped.

use std::collections::BTreeMap;

/// What ptxas reports for one entry point on one architecture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Registers per thread.
    pub regs: u32,
    /// Bytes stored by the spill instructions in the code (ptxas counts each spill store of the
    /// kernel once, per thread, not per execution): 0 when nothing spills.
    pub spill_store_bytes: u64,
    /// Bytes loaded by the instructions that reload spills, counted the same way.
    pub spill_load_bytes: u64,
    /// Local memory per thread, bytes: the largest of the stack frame, the cumulative stack size
    /// (with callees) and `lmem`. Spills live in it, and so do arrays indexed at run time.
    pub local_bytes: u64,
    /// Static shared memory per block, bytes (`smem`; `a+b bytes smem` counts `a + b`).
    pub shared_static_bytes: u64,
}

/// The report of every entry point compiled for `arch` in `log`, by name. Function properties of
/// non-entry functions (called, not inlined) are read but not returned.
///
/// # Errors
/// A sentence naming the line (1-based) whose numbers do not parse.
pub(crate) fn parse(log: &str, arch: &str) -> Result<BTreeMap<String, Usage>, String> {
    let mut entries: BTreeMap<String, Usage> = BTreeMap::new();
    // Stack and spill figures by function (the `Function properties for` line names it).
    let mut frames: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    let mut entry: Option<String> = None;
    let mut properties_of: Option<String> = None;
    for (i, line) in log.lines().enumerate() {
        let bad = |what: &str| format!("ptxas report line {}: {what}: {line:?}", i + 1);
        let text = line.trim();
        if let Some(rest) = text.strip_prefix("ptxas info") {
            let rest = rest.trim_start().trim_start_matches(':').trim();
            if let Some(rest) = rest.strip_prefix("Compiling entry function '") {
                let (name, tail) = rest.split_once('\'').ok_or_else(|| bad("no closing quote"))?;
                let for_arch = tail.trim().strip_prefix("for '").and_then(|t| t.strip_suffix('\''));
                entry = (for_arch.is_none_or(|a| a == arch)).then(|| name.to_string());
                properties_of = None;
            } else if let Some(name) = rest.strip_prefix("Function properties for ") {
                properties_of = Some(name.trim().to_string());
            } else if let Some(rest) = rest.strip_prefix("Used ") {
                let Some(name) = &entry else { continue };
                let usage = used(rest).ok_or_else(|| bad("cannot read the registers and memory"))?;
                entries.insert(name.clone(), usage);
            }
            continue;
        }
        // The stack line: `ptxas         .     N bytes stack frame, ...` (NVRTC) or indented.
        let stack = text.strip_prefix("ptxas").map_or(text, |t| t.trim_start().trim_start_matches('.').trim());
        if stack.contains("bytes stack frame") {
            let Some(name) = &properties_of else { continue };
            let figures = frame(stack).ok_or_else(|| bad("cannot read the stack frame and spills"))?;
            frames.insert(name.clone(), figures);
        }
    }
    for (name, usage) in &mut entries {
        if let Some(&(stack, stores, loads)) = frames.get(name) {
            usage.local_bytes = usage.local_bytes.max(stack);
            usage.spill_store_bytes = stores;
            usage.spill_load_bytes = loads;
        }
    }
    Ok(entries)
}

/// `N bytes stack frame, S bytes spill stores, L bytes spill loads` as `(N, S, L)`.
fn frame(text: &str) -> Option<(u64, u64, u64)> {
    let (mut stack, mut stores, mut loads) = (None, None, None);
    for part in text.split(',') {
        let (number, what) = part.trim().split_once(" bytes ")?;
        let value: u64 = number.trim().parse().ok()?;
        match what.trim() {
            "stack frame" => stack = Some(value),
            "spill stores" => stores = Some(value),
            "spill loads" => loads = Some(value),
            _ => {}
        }
    }
    Some((stack?, stores?, loads?))
}

/// The rest of a `Used N registers, ...` line.
fn used(rest: &str) -> Option<Usage> {
    let mut usage = Usage::default();
    let mut registers = None;
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(n) = part.strip_suffix(" registers") {
            registers = Some(n.trim().parse().ok()?);
        } else if let Some((number, what)) = part.split_once(" bytes ") {
            let sum = |n: &str| n.split('+').map(|v| v.trim().parse::<u64>().ok()).sum::<Option<u64>>();
            match what.trim() {
                "smem" => usage.shared_static_bytes = sum(number)?,
                "lmem" | "cumulative stack size" => usage.local_bytes = usage.local_bytes.max(sum(number)?),
                _ => {}
            }
        }
    }
    usage.regs = registers?;
    Some(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVRTC 13.5's program log for a two-kernel file compiled for sm_90 with
    /// `--ptxas-options=-v` (kernel `k` holds a 64-float array indexed at run time and a 256-float
    /// shared array), verbatim.
    const NVRTC_LOG: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 31.768 ms
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 28.279 ms
";

    #[test]
    fn nvrtc_logs_are_read() {
        let got = parse(NVRTC_LOG, "sm_90").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got["k2"], Usage { regs: 8, ..Usage::default() });
        assert_eq!(
            got["k"],
            Usage { regs: 32, spill_store_bytes: 0, spill_load_bytes: 0, local_bytes: 256, shared_static_bytes: 1024 }
        );
    }

    /// Standalone ptxas 13.5.37 (`ptxas -arch sm_80 -v`) indents the stack line instead; the
    /// spill figures here are synthetic.
    #[test]
    fn standalone_ptxas_and_spills_are_read() {
        let log = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'transpose_shared' for 'sm_80'
ptxas info    : Function properties for transpose_shared
    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 376 bytes cmem[0]
";
        let got = parse(log, "sm_80").unwrap();
        assert_eq!(
            got["transpose_shared"],
            Usage {
                regs: 255,
                spill_store_bytes: 16,
                spill_load_bytes: 12,
                local_bytes: 24,
                shared_static_bytes: 4096
            }
        );
    }

    #[test]
    fn the_older_form_and_called_functions() {
        // Synthetic, in the form of older ptxas: lmem and `a+b bytes smem`; a called function's
        // properties come first and are not the entry's.
        let log = "ptxas info    : Function properties for _Z6helperPf
    32 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'old' for 'sm_80'
ptxas info    : Function properties for old
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, 40 bytes lmem, 4096+16 bytes smem, 364 bytes cmem[0]
";
        let got = parse(log, "sm_80").unwrap();
        assert_eq!(got.len(), 1, "only entries are returned");
        assert_eq!(
            got["old"],
            Usage { regs: 20, spill_store_bytes: 0, spill_load_bytes: 0, local_bytes: 40, shared_static_bytes: 4112 }
        );
    }

    #[test]
    fn another_architecture_is_not_taken() {
        assert!(parse(NVRTC_LOG, "sm_80").unwrap().is_empty());
    }

    #[test]
    fn numbers_that_do_not_parse_name_the_line() {
        let log = "ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used many registers\n";
        let err = parse(log, "sm_90").unwrap_err();
        assert!(err.starts_with("ptxas report line 2:") && err.contains("many"), "{err}");
        assert!(parse("", "sm_90").unwrap().is_empty());
    }
}
