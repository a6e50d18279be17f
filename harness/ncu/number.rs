//! Numbers as ncu prints them: with the thousands separators of its locale (`65,536`,
//! `11,185,002.67`), or, in a locale that writes decimal commas, `65.536` and `11.185.002,67`.
//!
//! # The rule
//! A value is read on its own when its separators leave one reading ([`Number::Exact`]):
//! - no `,` or `.`: a plain number (`42`, `-3`, `2E6`);
//! - both: the last of them is the decimal separator; the other must group the integer part by
//!   threes (`1,234.5`, `1.234,5`); anything else (`1,23.4`) is not a number;
//! - one kind, twice or more: thousands separators, grouping by threes (`1,234,567`, `1.234.567`);
//!   anything else (`1,2,3`) is not a number;
//! - one separator once, with other than exactly three digits after it, or after a part that
//!   cannot start a thousands group (empty, `0`, a leading zero, four digits or more): a decimal
//!   separator (`0,5`, `59.51`, `1,2345`, `0,125`, `1234.5`).
//!
//! What is left is one separator between 1 to 3 digits (not starting with `0`) and exactly three
//! digits: `1,125`, `65.536`, `-4,096`. That is 1125 where `,` groups thousands and 1.125 where it
//! is the decimal separator ([`Number::Ambiguous`]); it is read by the convention of the table it
//! is in ([`Decimal`]): the decimal separator that the table's first unambiguous value shows
//! (values with both separators, two or more of one kind, or a decimal separator by the last
//! rule). The parser looks at the whole kernel the value belongs to (its raw-page row, or its
//! details-page rows) before choosing, so a later value of the same kernel counts. A table whose
//! values never show it is read with a decimal point (`,` groups thousands), as ncu prints in the
//! `C` and English locales, with a warning naming the first such value.
//!
//! Exponents (`1.5e-3`, `1,5E3`) are allowed after a decimal separator or a plain number.

/// The decimal separator of a table: the other one groups thousands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decimal {
    /// `1,234.5` (ncu in the `C` and English locales).
    Point,
    /// `1.234,5` (ncu in a locale with decimal commas, e.g. German).
    Comma,
}

impl Decimal {
    /// The separator character.
    pub fn char(self) -> char {
        match self {
            Decimal::Point => '.',
            Decimal::Comma => ',',
        }
    }
}

/// A value that reads as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// One reading; `shows` is the decimal separator it proves the table uses, if any.
    Exact {
        /// The value.
        value: f64,
        /// `Some` when the value shows the table's decimal separator (see the module docs).
        shows: Option<Decimal>,
    },
    /// One separator between 1-3 digits and exactly three digits (`1,125`): `point` is the reading
    /// with a decimal point (1125), `comma` the reading with a decimal comma (1.125).
    Ambiguous {
        /// The value where `.` is the decimal separator.
        point: f64,
        /// The value where `,` is the decimal separator.
        comma: f64,
    },
}

impl Number {
    /// The value in a table whose decimal separator is `decimal`.
    pub fn value(self, decimal: Decimal) -> f64 {
        match (self, decimal) {
            (Number::Exact { value, .. }, _) => value,
            (Number::Ambiguous { point, .. }, Decimal::Point) => point,
            (Number::Ambiguous { comma, .. }, Decimal::Comma) => comma,
        }
    }
}

/// Reads `text` (ASCII whitespace trimmed) as a number by the rule in the module docs; `None` when
/// it is not one (`0x3`, `No-CC`, `(32, 8, 1)`, `nan`, `1,2,3`, empty).
pub fn read_number(text: &str) -> Option<Number> {
    read_scaled(text, 0)
}

/// [`read_number`] of `text` times `10^exp10` (a unit's factor, [`super::units::read_unit_exponent`]),
/// each reading rounded once: `4.10` scaled by 3 is exactly 4100, as if ncu had printed base units
/// (multiplying the parsed value by 1000 can land beside it: 1.005 x 1000 = 1004.9999999999999).
pub fn read_scaled(text: &str, exp10: i32) -> Option<Number> {
    let t = text.trim_ascii();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let negative = t.starts_with('-');
    // Most values of a capture are short and in ncu's default form: read them in one pass.
    fast(negative, digits.as_bytes(), exp10).or_else(|| general(negative, digits, exp10))
}

/// `±n x 10^k` rounded once, for `n` below 2^53 and `|k|` up to 22 (where `10^k` is exact);
/// `None` otherwise.
fn scale(negative: bool, n: u64, k: i32) -> Option<f64> {
    let (n, p) = (n as f64, 10f64.powi(k.unsigned_abs().min(23) as i32));
    let value = match k {
        0..=22 => n * p,
        -22..=-1 => n / p,
        _ => return None,
    };
    Some(if negative { -value } else { value })
}

/// Up to 15 digits in the forms `123`, `1,234,567`, `1,234.5`, `12.34`, `.5` (decimal point, `,`
/// grouping): the value in one pass, the same as [`general`] gives; `None` for other forms.
fn fast(negative: bool, s: &[u8], exp10: i32) -> Option<Number> {
    let (mut n, mut digits, mut commas, mut group, mut first) = (0u64, 0, 0, 0, 0);
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        match b {
            b'0'..=b'9' => {
                n = n * 10 + u64::from(b - b'0');
                (digits, group) = (digits + 1, group + 1);
            }
            b',' if commas == 0 || group == 3 => {
                if commas == 0 {
                    first = group;
                }
                (commas, group) = (commas + 1, 0);
            }
            b'.' => break,
            _ => return None,
        }
        if digits > 15 {
            return None;
        }
        i += 1;
    }
    let int_len = i;
    if commas == 0 {
        first = group;
    } else if group != 3 || !(1..=3).contains(&first) || s[0] == b'0' {
        return None;
    }
    let mut frac = 0;
    if i < s.len() {
        for &b in &s[i + 1..] {
            if !b.is_ascii_digit() || digits == 15 {
                return None;
            }
            n = n * 10 + u64::from(b - b'0');
            (digits, frac) = (digits + 1, frac + 1);
        }
        if frac == 0 {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    // The digits (exact below 2^53) times an exact power of ten: one correctly rounded operation.
    let value = scale(negative, n, exp10 - frac)?;
    let group_start = (1..=3).contains(&first) && s[0] != b'0';
    Some(match (commas, frac) {
        (0, 0) => Number::Exact { value, shows: None },
        (1, 0) => Number::Ambiguous { point: value, comma: scale(negative, n, exp10 - 3)? },
        (_, 0) => Number::Exact { value, shows: Some(Decimal::Point) }, // `,` groups: a decimal point
        (0, 3) if group_start && int_len == first => {
            Number::Ambiguous { point: value, comma: scale(negative, n, exp10)? }
        }
        _ => Number::Exact { value, shows: Some(Decimal::Point) },
    })
}

/// [`read_number`] for every form (after the sign): see the module docs.
fn general(negative: bool, digits: &str, exp10: i32) -> Option<Number> {
    let (mantissa, exponent) = match digits.bytes().position(|b| b == b'e' || b == b'E') {
        Some(e) => (&digits[..e], Some(&digits[e + 1..])),
        None => (digits, None),
    };
    if let Some(exponent) = exponent {
        let e = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        if e.is_empty() || !all_digits(e) {
            return None;
        }
    }
    if !mantissa.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
        || !mantissa.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let exact = |int: &str, frac: Option<&str>, shows: Option<Decimal>| {
        Some(Number::Exact { value: assemble(negative, int, frac, exponent, exp10)?, shows })
    };
    let count = |sep: u8| mantissa.bytes().filter(|&b| b == sep).count();
    let (commas, dots) = (count(b','), count(b'.'));
    match (commas, dots) {
        (0, 0) => exact(mantissa, None, None),
        (1.., 1..) => {
            let last = mantissa.rfind(['.', ',']).expect("a separator");
            let (decimal, group) =
                if mantissa[last..].starts_with('.') { (Decimal::Point, ',') } else { (Decimal::Comma, '.') };
            let (int, frac) = (&mantissa[..last], &mantissa[last + 1..]);
            if grouped(int, group) && !frac.is_empty() { exact(int, Some(frac), Some(decimal)) } else { None }
        }
        (n, 0) | (0, n) => {
            let (sep, decimal, other) =
                if commas > 0 { (',', Decimal::Comma, Decimal::Point) } else { ('.', Decimal::Point, Decimal::Comma) };
            if n >= 2 {
                // Thousands separators only, so the table's decimal separator is the other one.
                return if grouped(mantissa, sep) && exponent.is_none() {
                    exact(mantissa, None, Some(other))
                } else {
                    None
                };
            }
            let (int, frac) = mantissa.split_once(sep).expect("one separator");
            if first_group(int) && frac.len() == 3 && all_digits(frac) && exponent.is_none() {
                let grouped = exact(mantissa, None, None)?.value(Decimal::Point);
                let decimal = exact(int, Some(frac), None)?.value(Decimal::Point);
                let (point, comma) = if sep == ',' { (grouped, decimal) } else { (decimal, grouped) };
                return Some(Number::Ambiguous { point, comma });
            }
            // A decimal separator. A decimal point may stand without digits on one side (`.5`,
            // `5.`), as Rust and C read them; a decimal comma needs digits on both.
            let bare_ok = sep == '.' && !(int.is_empty() && frac.is_empty());
            if (all_digits(int) && all_digits(frac) && !int.is_empty() && !frac.is_empty()) || bare_ok {
                exact(
                    if int.is_empty() { "0" } else { int },
                    Some(if frac.is_empty() { "0" } else { frac }),
                    Some(decimal),
                )
            } else {
                None
            }
        }
    }
}

/// The value of a number from its sign, integer digits (separators left out), fraction and
/// exponent, times `10^exp10`, rounded once; assembled on the stack, as parsing a capture reads
/// millions of values.
fn assemble(negative: bool, int: &str, frac: Option<&str>, exponent: Option<&str>, exp10: i32) -> Option<f64> {
    let frac = frac.unwrap_or("");
    let digits = int.bytes().chain(frac.bytes()).filter(u8::is_ascii_digit);
    if exponent.is_none() && digits.clone().count() <= 15 {
        let n = digits.fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
        if let Some(value) = scale(negative, n, exp10 - frac.len() as i32) {
            return Some(value);
        }
    }
    // Otherwise Rust's correctly rounded parsing, of the text with the exponent moved by `exp10`.
    let exponent = match exponent.map_or(Ok(0), str::parse::<i64>) {
        Ok(e) => e + i64::from(exp10),
        Err(_) => return None, // an exponent of more than 18 digits
    };
    let mut text = String::with_capacity(int.len() + frac.len() + 24);
    if negative {
        text.push('-');
    }
    text.extend(int.chars().filter(char::is_ascii_digit));
    if !frac.is_empty() {
        text.push('.');
        text.push_str(frac);
    }
    text.push('e');
    text.push_str(&exponent.to_string());
    text.parse().ok()
}

/// Whether every byte of `s` is an ASCII digit (true for `""`).
fn all_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

/// `[1-9][0-9]{0,2}`: the first group of a number with thousands separators.
fn first_group(s: &str) -> bool {
    (1..=3).contains(&s.len()) && all_digits(s) && !s.starts_with('0')
}

/// `[1-9][0-9]{0,2}(SEP[0-9]{3})+`: an integer with `sep` between groups of three digits.
fn grouped(s: &str, sep: char) -> bool {
    let mut groups = s.split(sep);
    let first = groups.next().unwrap_or("");
    let mut rest = groups.peekable();
    first_group(first) && rest.peek().is_some() && rest.all(|g| g.len() == 3 && all_digits(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(text: &str) -> (f64, Option<Decimal>) {
        match read_number(text) {
            Some(Number::Exact { value, shows }) => (value, shows),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn ambiguous(text: &str) -> (f64, f64) {
        match read_number(text) {
            Some(Number::Ambiguous { point, comma }) => (point, comma),
            other => panic!("{text}: {other:?}"),
        }
    }

    use Decimal::{Comma, Point};

    #[test]
    fn unambiguous_values_and_what_they_show() {
        assert_eq!(exact("42"), (42.0, None));
        assert_eq!(exact("-3"), (-3.0, None));
        assert_eq!(exact("2E6"), (2e6, None));
        assert_eq!(exact(" 1.5e-3 "), (1.5e-3, Some(Point)));
        assert_eq!(exact("59.51"), (59.51, Some(Point)));
        assert_eq!(exact("1234.5"), (1234.5, Some(Point))); // four digits cannot start a group
        assert_eq!(exact("0.125"), (0.125, Some(Point)));
        assert_eq!(exact(".5"), (0.5, Some(Point)));
        assert_eq!(exact("1,234,567.89"), (1_234_567.89, Some(Point)));
        assert_eq!(exact("11,185,002.67"), (11_185_002.67, Some(Point)));
        assert_eq!(exact("65,536,000"), (65_536_000.0, Some(Point))); // two groups: thousands
        assert_eq!(exact("0,125"), (0.125, Some(Comma))); // `0` cannot start a group: the bug read 125
        assert_eq!(exact("-0,125"), (-0.125, Some(Comma)));
        assert_eq!(exact("0,5"), (0.5, Some(Comma)));
        assert_eq!(exact("59,51"), (59.51, Some(Comma)));
        assert_eq!(exact("1,2345"), (1.2345, Some(Comma)));
        assert_eq!(exact("1234,567"), (1234.567, Some(Comma)));
        assert_eq!(exact("1,5E3"), (1500.0, Some(Comma)));
        assert_eq!(exact("1.234,5"), (1234.5, Some(Comma)));
        assert_eq!(exact("11.185.002,67"), (11_185_002.67, Some(Comma)));
        assert_eq!(exact("1.234.567"), (1_234_567.0, Some(Comma)));
    }

    #[test]
    fn one_separator_before_three_digits_is_ambiguous() {
        assert_eq!(ambiguous("1,125"), (1125.0, 1.125));
        assert_eq!(ambiguous("65,536"), (65_536.0, 65.536));
        assert_eq!(ambiguous("-4,096"), (-4096.0, -4.096));
        assert_eq!(ambiguous("65.536"), (65.536, 65_536.0));
        assert_eq!(ambiguous("999.000"), (999.0, 999_000.0));
        let n = read_number("1,125").unwrap();
        assert_eq!((n.value(Point), n.value(Comma)), (1125.0, 1.125));
        assert_eq!(Number::Exact { value: 2.0, shows: None }.value(Comma), 2.0);
        assert_eq!((Point.char(), Comma.char()), ('.', ','));
    }

    /// The one-pass reading agrees with the general one on every string of up to 7 characters
    /// over digits and separators, with and without a sign.
    #[test]
    fn the_fast_path_reads_as_the_general_one() {
        let alphabet = [b'0', b'1', b'9', b',', b'.'];
        let mut checked = 0;
        for len in 1..=7u32 {
            for mut code in 0..alphabet.len().pow(len) {
                let mut s = Vec::new();
                for _ in 0..len {
                    s.push(alphabet[code % alphabet.len()]);
                    code /= alphabet.len();
                }
                let text = std::str::from_utf8(&s).unwrap();
                for negative in [false, true] {
                    for exp10 in [0, 3, -9] {
                        if let Some(fast) = fast(negative, &s, exp10) {
                            assert_eq!(Some(fast), general(negative, text, exp10), "{negative} {text:?} {exp10}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert_eq!(fast(false, b"1234567890123456", 0), None); // 16 digits: the general path
        assert_eq!(read_number("1234567890123456"), Some(Number::Exact { value: 1234567890123456.0, shows: None }));
    }

    #[test]
    fn scaling_rounds_once() {
        let scaled = |t: &str, e: i32| read_scaled(t, e).map(|n| n.value(Point));
        assert_eq!(scaled("1.005", 3), Some(1005.0)); // 1.005 * 1000.0 is 1004.9999999999999
        assert_eq!(scaled("4.10", 3), Some(4100.0));
        assert_eq!(scaled("12.35", 3), Some(12_350.0));
        assert_eq!(scaled("3.35", 12), Some(3.35e12));
        assert_eq!(scaled("1.98", 9), Some(1.98e9));
        assert_eq!(scaled("250", -3), Some(0.25));
        assert_eq!(scaled("-2,5", 3), Some(-2500.0)); // general path (decimal comma)
        assert_eq!(scaled("1,234.5e2", 3), Some(123_450_000.0));
        assert_eq!(scaled("1.5e-3", 9), Some(1.5e6));
        assert_eq!(scaled("12345678901234567", 3), Some(1.2345678901234567e19));
        assert_eq!(read_scaled("1,125", 3), Some(Number::Ambiguous { point: 1_125_000.0, comma: 1125.0 }));
        assert_eq!(read_scaled("65.536", -3), Some(Number::Ambiguous { point: 0.065536, comma: 65.536 }));
        assert_eq!(scaled("1e99999999999999999999", 0), None);
    }

    #[test]
    fn not_numbers() {
        for t in [
            "",
            " ",
            "0x3",
            "No-CC",
            "(32, 8, 1)",
            "nan",
            "inf",
            "1,23.4",
            "1,2,3",
            "12-3",
            ",5",
            "5,",
            ".",
            "1.2.3,4,5",
        ] {
            assert_eq!(read_number(t), None, "{t:?}");
        }
        for t in ["1,234,567e3", "1e", "1e+", "1,234.5.6", "1.2,3"] {
            assert_eq!(read_number(t), None, "{t:?}");
        }
    }
}
