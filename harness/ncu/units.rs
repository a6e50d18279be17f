//! Units as ncu prints them, read into base units.
//!
//! With `--print-units auto` (ncu's default) ncu scales each value to a fitting magnitude and
//! prefixes its unit: `Kbyte`, `Mbyte/second`, `Gbyte/s`, `usecond`, `Kinst`, `Ghz`,
//! `cycle/nsecond`, `Kbyte/block`; with `--print-units base` it prints base units (`byte`, `ns`,
//! `byte/second`, `hz`). Source: Nsight Compute CLI documentation, "Command Line Options",
//! `--print-units` (<https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html>).
//!
//! # The grammar
//! A unit is `TERM` or `TERM/TERM` (numerator over denominator). A term is a word, optionally after
//! a prefix; the value is multiplied by the numerator's prefix and divided by the denominator's:
//!
//! | term | prefixes (factor) | base unit |
//! |---|---|---|
//! | a count word: `byte`, `bit`, `cycle`, `inst`, `sector`, `request`, `warp`, `thread`, `block`, `wavefront`, `register`, `transaction`, `pass`, `cluster`, `SM`, `TPC` (any case) | `K`/`k` 1e3, `M` 1e6, `G` 1e9, `T` 1e12, `P` 1e15 | the word (`Kinst` → `inst`) |
//! | time: `second`, `s` | `m` 1e-3, `u`/`µ` 1e-6, `n` 1e-9 | `ns` in a numerator (ncu's base for durations), `second` in a denominator (`byte/second`, ncu's base for rates) |
//! | frequency: `hz` (any case) | `k` 1e3, `M` 1e6, `G` 1e9 (any case) | `cycle/second`, numerator only |
//!
//! `%` and the empty unit (counts) are base units. So `Kbyte/block` x 1e3 is `byte/block`,
//! `Gbyte/s` x 1e9 `byte/second`, `usecond` x 1e3 `ns`, `cycle/nsecond` x 1e9 `cycle/second`,
//! `inst/Kcycle` x 1e-3 `inst/cycle`.
//!
//! Anything else is unknown: [`read_unit`] says so, and the value is kept as printed, unscaled
//! (the parser warns, naming the unit), rather than guessed.
//!
//! The prefixes are powers of 1000, not 1024, checked on H200 captures printed both ways: with the
//! default units (field report `01-auto-units-details.csv`) the shared memory per block reads
//! 4.10, 1.02 and 49.15 `Kbyte/block` and the configuration size 233.47 `Kbyte`; with
//! `--print-units base` (`ncu-2025.3.1-h200/tile_raw.csv`) the same quantities read 4,096, 1,024,
//! 49,152 and 233,472 `byte` (1024-byte kilobytes would print 4.00, 1.00, 48.00, 228.00). In
//! `ncu-public/04.csv`, 2.33 `Mbyte` read in 6.75 `us` is 345.14 `Gbyte/s`, which also holds only
//! for powers of 1000.

/// Count words: base units that take a large prefix (`Kinst`). Matched ignoring ASCII case;
/// written as listed.
pub const COUNT_WORDS: &[&str] = &[
    "byte",
    "bit",
    "cycle",
    "inst",
    "sector",
    "request",
    "warp",
    "thread",
    "block",
    "wavefront",
    "register",
    "transaction",
    "pass",
    "cluster",
    "SM",
    "TPC",
];

/// Where a term stands in a unit.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Numerator,
    Denominator,
}

/// The base unit of `printed` and the factor that converts a value into it, by the grammar in the
/// module docs; `None` when the unit is unknown. `""` and `%` are their own base.
pub fn read_unit(printed: &str) -> Option<(String, f64)> {
    let (base, exponent) = read_unit_exponent(printed)?;
    // A power of ten, exact for a positive exponent and correctly rounded for a negative one.
    let factor = if exponent >= 0 { 10f64.powi(exponent) } else { 1.0 / 10f64.powi(-exponent) };
    Some((base, factor))
}

/// [`read_unit`] with the factor as its power of ten (every factor is one): `Kbyte/block` is
/// `("byte/block", 3)`. The parser applies it while reading a value's digits
/// ([`super::number::read_scaled`]), so that the value is rounded once, as if ncu had printed it in
/// base units.
pub fn read_unit_exponent(printed: &str) -> Option<(String, i32)> {
    let unit = printed.trim();
    if unit.is_empty() || unit == "%" {
        return Some((unit.to_string(), 0));
    }
    match unit.split('/').collect::<Vec<_>>()[..] {
        [num] => term(num, Place::Numerator),
        [num, den] => {
            let (num, enum_) = term(num, Place::Numerator)?;
            let (den, eden) = term(den, Place::Denominator)?;
            (!num.contains('/')).then(|| (format!("{num}/{den}"), enum_ - eden))
        }
        _ => None,
    }
}

/// [`read_unit`], with an unknown unit kept as printed (trimmed) and a factor of 1.
pub fn normalize_unit(printed: &str) -> (String, f64) {
    read_unit(printed).unwrap_or_else(|| (printed.trim().to_string(), 1.0))
}

/// One term: its base unit and the power of ten of its prefix (time: relative to its base).
fn term(t: &str, place: Place) -> Option<(String, i32)> {
    // Time: seconds with a sub-unit prefix.
    for suffix in ["second", "s"] {
        if let Some(prefix) = t.strip_suffix(suffix) {
            let seconds = match prefix {
                "" => 0,
                "m" => -3,
                "u" | "µ" => -6,
                "n" => -9,
                _ => continue,
            };
            return Some(match place {
                Place::Numerator => ("ns".to_string(), seconds + 9),
                Place::Denominator => ("second".to_string(), seconds),
            });
        }
    }
    // Frequency.
    let lower = t.to_ascii_lowercase();
    if let Some(prefix) = lower.strip_suffix("hz") {
        let exponent = match prefix {
            "" => 0,
            "k" => 3,
            "m" => 6,
            "g" => 9,
            _ => return None,
        };
        return (place == Place::Numerator).then(|| ("cycle/second".to_string(), exponent));
    }
    // Counts, whole or after a large prefix.
    let word = |w: &str| COUNT_WORDS.iter().find(|c| c.eq_ignore_ascii_case(w)).map(|c| c.to_string());
    if let Some(base) = word(t) {
        return Some((base, 0));
    }
    let mut chars = t.chars();
    let exponent = match chars.next()? {
        'K' | 'k' => 3,
        'M' => 6,
        'G' => 9,
        'T' => 12,
        'P' => 15,
        _ => return None,
    };
    word(chars.as_str()).map(|base| (base, exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(printed: &str) -> (String, f64) {
        read_unit(printed).unwrap_or_else(|| panic!("{printed:?} unknown"))
    }

    #[test]
    fn prefixed_units_of_ncu_auto_scaling() {
        let cases: &[(&str, &str, f64)] = &[
            ("usecond", "ns", 1e3),
            ("us", "ns", 1e3),
            ("msecond", "ns", 1e6),
            ("ms", "ns", 1e6),
            ("nsecond", "ns", 1.0),
            ("second", "ns", 1e9),
            ("s", "ns", 1e9),
            ("Kbyte", "byte", 1e3),
            ("Mbyte", "byte", 1e6),
            ("Gbyte", "byte", 1e9),
            ("Tbyte", "byte", 1e12),
            ("Kbyte/block", "byte/block", 1e3),
            ("Mbyte/second", "byte/second", 1e6),
            ("Gbyte/s", "byte/second", 1e9),
            ("Kbyte/s", "byte/second", 1e3),
            ("byte/usecond", "byte/second", 1e6),
            ("Kinst", "inst", 1e3),
            ("Minst", "inst", 1e6),
            ("Ksector", "sector", 1e3),
            ("Gcycle/second", "cycle/second", 1e9),
            ("cycle/nsecond", "cycle/second", 1e9),
            ("cycle/usecond", "cycle/second", 1e6),
            ("cycle/msecond", "cycle/second", 1e3),
            ("inst/Kcycle", "inst/cycle", 1e-3),
            ("hz", "cycle/second", 1.0),
            ("khz", "cycle/second", 1e3),
            ("Mhz", "cycle/second", 1e6),
            ("MHz", "cycle/second", 1e6),
            ("Ghz", "cycle/second", 1e9),
            ("usecond/inst", "ns/inst", 1e3),
        ];
        for &(printed, base, factor) in cases {
            let (b, e) = read_unit_exponent(printed).unwrap();
            assert_eq!((b.as_str(), 10f64.powi(e)), (base, factor), "{printed}");
            let (b, f) = unit(printed);
            assert_eq!(b, base, "{printed}");
            assert!((f - factor).abs() <= 1e-12 * factor, "{printed}: {f} != {factor}");
        }
    }

    #[test]
    fn base_units_stay() {
        for same in ["", "%", "byte", "ns", "cycle", "register/thread", "byte/block", "inst", "warp/cycle", "SM"] {
            assert_eq!(unit(same), (same.to_string(), 1.0), "{same}");
        }
        assert_eq!(unit("byte/second"), ("byte/second".to_string(), 1.0));
        assert_eq!(unit("cycle/second"), ("cycle/second".to_string(), 1.0));
        assert_eq!(unit(" sector/request "), ("sector/request".to_string(), 1.0));
        assert_eq!(unit("Byte"), ("byte".to_string(), 1.0));
    }

    #[test]
    fn unknown_units_are_kept_as_printed() {
        for unknown in ["Kfoo", "furlong", "byte/furlong", "a/b/c", "mbyte", "Xbyte", "hz/second", "byte/hz", "Ksecond"]
        {
            assert_eq!(read_unit(unknown), None, "{unknown}");
            assert_eq!(normalize_unit(unknown), (unknown.to_string(), 1.0));
        }
        assert_eq!(read_unit("ns/second/x"), None);
        assert_eq!(read_unit("cycle/second/second"), None);
    }
}
