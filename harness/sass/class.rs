//! Instruction classes: what the SASS gate counts and what a case can declare about its kernel's
//! code. Pure, plain data; the case table imports it.
//!
//! A class is a set of opcodes, named as Nsight Compute names the instruction mixes it counts at run
//! time (`smsp__sass_inst_executed_op_global_ld`, `..._op_shared_st`, `..._op_local_ld`,
//! `..._op_ldgsts`, `..._op_branch`; `smsp__sass_thread_inst_executed_op_ffma_pred_on`: NVIDIA,
//! "Nsight Compute Kernel Profiling Guide", metrics reference), with the access width as a suffix
//! where the opcode carries one (`global_ld.128` is `LDG.E.128`, the float4 load). Classes
//! overlap: a 128-bit global load counts in `global_ld` and in `global_ld.128`. The opcodes are
//! those of NVIDIA's "CUDA Binary Utilities", "Instruction Set Reference" (Ampere and Hopper
//! tables). These are static counts, instructions in the code, not instructions executed.

/// One class: its name and what it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    /// The name, `global_ld.128`.
    pub name: &'static str,
    /// What it counts, for the docs and messages.
    pub meaning: &'static str,
}

/// Every class the gate counts, in the order reports show them.
pub const CLASSES: &[Class] = &[
    Class { name: "instructions", meaning: "every instruction but NOP" },
    Class { name: "global_ld", meaning: "global loads (LDG)" },
    Class { name: "global_ld.8", meaning: "8-bit global loads (LDG.U8, LDG.S8)" },
    Class { name: "global_ld.16", meaning: "16-bit global loads (LDG.U16, LDG.S16)" },
    Class { name: "global_ld.32", meaning: "32-bit global loads (LDG.E)" },
    Class { name: "global_ld.64", meaning: "64-bit global loads (LDG.E.64, float2)" },
    Class { name: "global_ld.128", meaning: "128-bit global loads (LDG.E.128, float4)" },
    Class { name: "global_ld.nc", meaning: "global loads through the read-only path (LDG .CONSTANT: ld.global.nc)" },
    Class { name: "global_st", meaning: "global stores (STG)" },
    Class { name: "global_st.32", meaning: "32-bit global stores" },
    Class { name: "global_st.64", meaning: "64-bit global stores" },
    Class { name: "global_st.128", meaning: "128-bit global stores (float4)" },
    Class { name: "generic_ld", meaning: "loads through a generic address (LD)" },
    Class { name: "generic_st", meaning: "stores through a generic address (ST)" },
    Class { name: "shared_ld", meaning: "shared-memory loads (LDS, LDSM)" },
    Class { name: "shared_ld.64", meaning: "64-bit shared-memory loads" },
    Class { name: "shared_ld.128", meaning: "128-bit shared-memory loads" },
    Class { name: "shared_st", meaning: "shared-memory stores (STS)" },
    Class { name: "shared_st.64", meaning: "64-bit shared-memory stores" },
    Class { name: "shared_st.128", meaning: "128-bit shared-memory stores" },
    Class { name: "local_ld", meaning: "local-memory loads (LDL: spills, stack arrays)" },
    Class { name: "local_st", meaning: "local-memory stores (STL)" },
    Class { name: "global_atom", meaning: "global atomics and reductions (ATOM, ATOMG, RED, REDG)" },
    Class { name: "shared_atom", meaning: "shared-memory atomics (ATOMS)" },
    Class { name: "ldgsts", meaning: "asynchronous global-to-shared copies (LDGSTS: cp.async)" },
    Class { name: "shfl", meaning: "warp shuffles (SHFL)" },
    Class { name: "barrier", meaning: "barriers (BAR: __syncthreads)" },
    Class { name: "ffma", meaning: "fp32 fused multiply-adds (FFMA)" },
    Class { name: "fmul", meaning: "fp32 multiplies (FMUL)" },
    Class { name: "fadd", meaning: "fp32 adds (FADD)" },
    Class { name: "branch", meaning: "branches and jumps (BRA, BRX, JMP, JMX)" },
];

/// The class named `name`, if there is one.
pub fn class(name: &str) -> Option<&'static Class> {
    CLASSES.iter().find(|c| c.name == name)
}

/// The classes `opcode` (with its modifiers, `LDG.E.128.CONSTANT`) belongs to, by name.
pub fn classes_of(opcode: &str) -> Vec<&'static str> {
    let mut parts = opcode.split('.');
    let op = parts.next().unwrap_or("");
    let modifiers: Vec<&str> = parts.collect();
    let has = |m: &str| modifiers.contains(&m);
    let width = if has("128") {
        128
    } else if has("64") {
        64
    } else if has("U16") || has("S16") {
        16
    } else if has("U8") || has("S8") {
        8
    } else {
        32
    };
    let mut out = vec!["instructions"];
    let mut with_width = |base: &'static str, widths: &[(u32, &'static str)]| {
        out.push(base);
        if let Some((_, name)) = widths.iter().find(|(w, _)| *w == width) {
            out.push(name);
        }
    };
    const GLOBAL_LD: &[(u32, &str)] =
        &[(8, "global_ld.8"), (16, "global_ld.16"), (32, "global_ld.32"), (64, "global_ld.64"), (128, "global_ld.128")];
    const GLOBAL_ST: &[(u32, &str)] = &[(32, "global_st.32"), (64, "global_st.64"), (128, "global_st.128")];
    const SHARED_LD: &[(u32, &str)] = &[(64, "shared_ld.64"), (128, "shared_ld.128")];
    const SHARED_ST: &[(u32, &str)] = &[(64, "shared_st.64"), (128, "shared_st.128")];
    match op {
        "LDG" => {
            with_width("global_ld", GLOBAL_LD);
            if has("CONSTANT") {
                out.push("global_ld.nc");
            }
        }
        "STG" => with_width("global_st", GLOBAL_ST),
        "LD" => out.push("generic_ld"),
        "ST" => out.push("generic_st"),
        "LDS" => with_width("shared_ld", SHARED_LD),
        "LDSM" => out.push("shared_ld"),
        "STS" => with_width("shared_st", SHARED_ST),
        "LDL" => out.push("local_ld"),
        "STL" => out.push("local_st"),
        "ATOM" | "ATOMG" | "RED" | "REDG" => out.push("global_atom"),
        "ATOMS" => out.push("shared_atom"),
        "LDGSTS" => out.push("ldgsts"),
        "SHFL" => out.push("shfl"),
        "BAR" => out.push("barrier"),
        "FFMA" => out.push("ffma"),
        "FMUL" => out.push("fmul"),
        "FADD" => out.push("fadd"),
        "BRA" | "BRX" | "JMP" | "JMX" => out.push("branch"),
        _ => {}
    }
    out
}

/// Instructions per class of one function's opcode counts, every class of [`CLASSES`] present
/// (zero where none).
pub fn count(opcodes: &std::collections::BTreeMap<String, u64>) -> std::collections::BTreeMap<&'static str, u64> {
    let mut out: std::collections::BTreeMap<&'static str, u64> = CLASSES.iter().map(|c| (c.name, 0)).collect();
    for (opcode, n) in opcodes {
        for class in classes_of(opcode) {
            *out.entry(class).or_insert(0) += n;
        }
    }
    out
}

pub use crate::case::SassExpectation;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn opcodes_fall_into_their_classes_with_their_width() {
        assert_eq!(classes_of("LDG.E.128.CONSTANT"), ["instructions", "global_ld", "global_ld.128", "global_ld.nc"]);
        assert_eq!(classes_of("LDG.E"), ["instructions", "global_ld", "global_ld.32"]);
        assert_eq!(classes_of("LDG.E.U8.CONSTANT"), ["instructions", "global_ld", "global_ld.8", "global_ld.nc"]);
        assert_eq!(classes_of("STG.E.64"), ["instructions", "global_st", "global_st.64"]);
        assert_eq!(classes_of("LDS"), ["instructions", "shared_ld"], "a 32-bit shared load has no width class");
        assert_eq!(classes_of("LDS.128"), ["instructions", "shared_ld", "shared_ld.128"]);
        assert_eq!(classes_of("LDL.LU.64"), ["instructions", "local_ld"]);
        assert_eq!(classes_of("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"), ["instructions", "global_atom"]);
        assert_eq!(classes_of("ATOMS.POPC.INC.32"), ["instructions", "shared_atom"]);
        assert_eq!(classes_of("LDGSTS.E.BYPASS.128"), ["instructions", "ldgsts"]);
        assert_eq!(classes_of("BAR.SYNC.DEFER_BLOCKING"), ["instructions", "barrier"]);
        assert_eq!(classes_of("IMAD.WIDE"), ["instructions"]);
        for opcode in ["LDG.E", "STG.E.128", "SHFL.DOWN", "FFMA", "BRA"] {
            for c in classes_of(opcode) {
                assert!(class(c).is_some(), "{c} is listed in CLASSES");
            }
        }
    }

    #[test]
    fn every_class_is_counted_zero_or_more() {
        let opcodes = BTreeMap::from([("LDG.E.128".to_string(), 2), ("LDG.E".to_string(), 3), ("EXIT".into(), 1)]);
        let counts = count(&opcodes);
        assert_eq!(counts.len(), CLASSES.len());
        assert_eq!((counts["instructions"], counts["global_ld"], counts["global_ld.128"]), (6, 5, 2));
        assert_eq!(counts["barrier"], 0);
    }
}
