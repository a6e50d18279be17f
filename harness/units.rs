//! Numbers with their units, as people read them. A leaf module: every printer uses it, and it uses
//! nothing of kernelgate's.

/// A duration in seconds with a unit that keeps 3-4 significant digits: `812.3 ns`, `131.9 us`,
/// `2.051 ms`, `1.200 s`.
pub fn duration(s: f64) -> String {
    if s < 1e-6 {
        format!("{:.1} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// A value with its unit: seconds (unit `s`) through [`duration`] (`968.8 us`); any other unit as
/// the number with at most 6 significant digits and the unit (`268435456 byte`, or the number alone
/// for an empty unit).
pub fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "s" => duration(value),
        "" => significant(value),
        _ => format!("{} {unit}", significant(value)),
    }
}

/// `value` with at most 6 significant digits, trailing zeros dropped (`32.4617`, `0.5`); whole
/// numbers in full (`268435456`). For people: the CSV files keep every digit.
pub fn significant(value: f64) -> String {
    if !value.is_finite() || (value.fract() == 0.0 && value.abs() < 1e15) {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = usize::try_from(5 - magnitude).unwrap_or(0);
    let text = format!("{value:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// A signed change in percent with two decimals, `+1.25%` or `-0.40%`; a change that rounds to zero
/// reads `+0.00%`, never `-0.00%` (what `{:+.2}` makes of -0.001).
pub fn signed_pct(pct: f64) -> String {
    let rounded = (pct * 100.0).round() / 100.0;
    format!("{:+.2}%", if rounded == 0.0 { 0.0 } else { rounded })
}

/// `1 trial`, `2 trials`: a count with its noun, plural by adding `s`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The rows of a text table as aligned lines, each indented by two spaces: the first `left` columns
/// left-aligned, the others right-aligned, columns two spaces apart, trailing space trimmed. Every
/// row has as many cells as the first (the header).
pub fn aligned<R: AsRef<[String]>>(rows: &[R], left: usize) -> Vec<String> {
    let columns = rows.first().map_or(0, |r| r.as_ref().len());
    let widths: Vec<usize> =
        (0..columns).map(|i| rows.iter().map(|r| r.as_ref()[i].chars().count()).max().unwrap_or(0)).collect();
    rows.iter()
        .map(|row| {
            let cells: Vec<String> =
                row.as_ref()
                    .iter()
                    .enumerate()
                    .map(|(i, cell)| {
                        if i < left {
                            format!("{cell:<w$}", w = widths[i])
                        } else {
                            format!("{cell:>w$}", w = widths[i])
                        }
                    })
                    .collect();
            format!("  {}", cells.join("  ").trim_end())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_left_then_right() {
        let rows = vec![
            vec!["arch".to_string(), "n".to_string(), "value".to_string()],
            vec!["sm_90".to_string(), "12".to_string(), "3".to_string()],
        ];
        assert_eq!(aligned(&rows, 1), ["  arch    n  value", "  sm_90  12      3"]);
    }

    #[test]
    fn a_change_that_rounds_to_zero_has_no_minus_sign() {
        assert_eq!(signed_pct(-0.001), "+0.00%");
        assert_eq!(signed_pct(-0.004_9), "+0.00%");
        assert_eq!(signed_pct(-0.005_1), "-0.01%");
        assert_eq!(signed_pct(1.234), "+1.23%");
        assert_eq!(signed_pct(-25.125), "-25.13%");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration(812.34e-9), "812.3 ns");
        assert_eq!(duration(131.94e-6), "131.9 us");
        assert_eq!(duration(2.0514e-3), "2.051 ms");
        assert_eq!(duration(1.2), "1.200 s");
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(
            (count(1, "trial"), count(0, "trial"), count(35, "trial")),
            ("1 trial".into(), "0 trials".into(), "35 trials".into())
        );
    }

    #[test]
    fn values_keep_six_significant_digits() {
        assert_eq!(format_value(968.8e-6, "s"), "968.8 us");
        assert_eq!(format_value(32.0, "byte/sector"), "32 byte/sector");
        assert_eq!(format_value(0.5, ""), "0.5");
        assert_eq!(format_value(32.46173143386841, "wavefront/inst"), "32.4617 wavefront/inst");
        assert_eq!(format_value(268_435_456.0, "byte"), "268435456 byte");
        assert_eq!(format_value(11_185_002.67, "byte"), "11185003 byte");
        assert_eq!(format_value(0.000_123_456_78, "%"), "0.000123457 %");
    }
}
