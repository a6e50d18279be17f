//! nvdisasm's listing of a cubin (`nvdisasm --print-code`) to the opcodes of each function. Pure.
//!
//! The listing, as nvdisasm 13.5 prints it for sm_80 and sm_90 (NVIDIA, "CUDA Binary Utilities",
//! section "nvdisasm"; the instruction names are those of its "Instruction Set Reference"):
//!
//! ```text
//!     .section    .text.copy_vec4,"ax",@progbits
//!     ...
//!     .other      copy_vec4,@"STO_CUDA_ENTRY STV_DEFAULT"
//! copy_vec4:
//!         /*0000*/                   LDC R1, c[0x0][0x28] ;
//!         /*00d0*/              @!P0 BRA `(.L_x_0) ;
//!         /*0100*/                   LDG.E.128.CONSTANT R4, desc[UR6][R2.64] ;
//! ```
//!
//! One code section per function (`.text.<name>`); an instruction line starts with its offset in a
//! comment, then an optional guard predicate (`@P0`, `@!PT`, `@UP1`), then the opcode with its
//! modifiers (`LDG.E.128.CONSTANT`), its operands and `;`. The opcode with its modifiers is what
//! this module keeps; operands (registers, addresses) change with every unrelated edit and are
//! dropped. `NOP`s are dropped too: they pad a function to its alignment and are not code.

use std::collections::BTreeMap;

/// One function of a cubin: its opcodes (with modifiers, `LDG.E.128.CONSTANT`) and how many times
/// each occurs in the code (static counts: an instruction in a loop counts once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Function {
    /// Whether it is a kernel (`STO_CUDA_ENTRY`) rather than a device function the compiler kept
    /// as a call.
    pub entry: bool,
    /// Opcode → instructions, `NOP` left out.
    pub opcodes: BTreeMap<String, u64>,
}

/// The functions of a listing, by name.
///
/// # Errors
/// A sentence when the text holds no code section (not the output of `nvdisasm --print-code`), or
/// an instruction line outside any section, naming the 1-based line.
pub(crate) fn parse(listing: &str) -> Result<BTreeMap<String, Function>, String> {
    let mut functions: BTreeMap<String, Function> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (i, line) in listing.lines().enumerate() {
        let text = line.trim();
        // `.section` and its name; not `.sectioninfo`, which follows it in sm_80 listings.
        if let Some(rest) = text.strip_prefix(".section").filter(|r| r.starts_with([' ', '\t'])) {
            let name = rest.trim_start().split(',').next().unwrap_or("");
            current = name.strip_prefix(".text.").map(str::to_string);
            if let Some(name) = &current {
                functions.entry(name.clone()).or_default();
            }
            continue;
        }
        if let Some(rest) = text.strip_prefix(".other") {
            let (name, kinds) = rest.trim_start().split_once(',').unwrap_or((rest, ""));
            if kinds.contains("STO_CUDA_ENTRY") {
                functions.entry(name.trim().to_string()).or_default().entry = true;
            }
            continue;
        }
        let Some(opcode) = opcode_of(text) else { continue };
        let Some(name) = &current else {
            return Err(format!("line {}: an instruction outside any code section: {text}", i + 1));
        };
        if opcode != "NOP" {
            *functions.entry(name.clone()).or_default().opcodes.entry(opcode.to_string()).or_insert(0) += 1;
        }
    }
    if functions.is_empty() {
        return Err("the listing holds no code section (.section .text.<function>); is it the output of \
                    nvdisasm --print-code?"
            .to_string());
    }
    Ok(functions)
}

/// The opcode of an instruction line (`/*0100*/ @!P0 LDG.E.128 R4, [R2.64] ;` → `LDG.E.128`);
/// `None` for any other line.
fn opcode_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("/*")?;
    let (offset, rest) = rest.split_once("*/")?;
    if offset.is_empty() || !offset.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut words = rest.split_whitespace();
    let mut word = words.next()?;
    if word.starts_with('@') {
        word = words.next()?;
    }
    let opcode = word.trim_end_matches(';');
    let valid = opcode.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && opcode.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'.' || b == b'_');
    valid.then_some(opcode)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as nvdisasm 13.5.37 prints them, taken from its listing of `kernels/vectorization.cu`
    /// compiled by NVRTC 13.5.37 for sm_90 (shortened), with the `.sectioninfo` line its sm_80
    /// listings carry; the device function `helper` is made up, to show one. A whole listing is
    /// read in `sass::tests`.
    const LISTING: &str = "\t.target\tsm_90\n\n\t.elftype\t@\"ET_EXEC\"\n\n
//--------------------- .text.copy_vec4          --------------------------
\t.section\t.text.copy_vec4,\"ax\",@progbits
\t.sectioninfo\t@\"SHI_REGISTERS=16\"
\t.align\t128
        .global         copy_vec4
        .type           copy_vec4,@function
        .other          copy_vec4,@\"STO_CUDA_ENTRY STV_DEFAULT\"
copy_vec4:
.text.copy_vec4:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*00d0*/              @!P0 BRA `(.L_x_0) ;
        /*0300*/                   LDG.E.128.CONSTANT R4, desc[UR6][R8.64] ;
        /*0370*/                   STG.E.128 desc[UR6][R2.64], R4 ;
        /*0390*/               @P0 BRA `(.L_x_3) ;
        /*03c0*/                   EXIT ;
.L_x_1:
        /*03d0*/                   BRA `(.L_x_1);
        /*03e0*/                   NOP;
        /*03f0*/                   NOP;
\t.section\t.text.helper,\"ax\",@progbits
        .other          helper,@\"STV_DEFAULT\"
        /*0000*/                   FFMA R7, R4, UR4, R7 ;
        /*0010*/                   RET.REL.NODEC R20 `(copy_vec4) ;
";

    #[test]
    fn opcodes_are_counted_per_function_without_operands_predicates_or_nops() {
        let functions = parse(LISTING).unwrap();
        let copy = &functions["copy_vec4"];
        assert!(copy.entry);
        let counts: Vec<(&str, u64)> = copy.opcodes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(counts, [("BRA", 3), ("EXIT", 1), ("LDC", 1), ("LDG.E.128.CONSTANT", 1), ("STG.E.128", 1)]);
        let helper = &functions["helper"];
        assert!(!helper.entry, "a device function, not a kernel");
        assert_eq!(helper.opcodes.len(), 2);
    }

    #[test]
    fn text_that_is_not_a_listing_is_refused() {
        let err = parse("ptxas info    : Used 8 registers\n").unwrap_err();
        assert!(err.contains("no code section") && err.contains("nvdisasm --print-code"), "{err}");
        let err = parse("        /*0000*/   EXIT ;\n").unwrap_err();
        assert!(err.starts_with("line 1: an instruction outside any code section"), "{err}");
        assert_eq!(opcode_of("/*zz*/ EXIT ;"), None);
        assert_eq!(opcode_of("// /*0000*/ comment"), None);
        assert_eq!(opcode_of("/*0010*/ @P0 EXIT ;"), Some("EXIT"));
    }
}
