//! The report pages' colours against their backgrounds, by WCAG 2.x's contrast ratio (tests only).
//!
//! Relative luminance and contrast ratio as WCAG 2.2 defines them
//! (<https://www.w3.org/TR/WCAG22/#dfn-relative-luminance>,
//! <https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio>): sRGB channels linearised (`c / 12.92` up to
//! 0.04045, the sRGB standard's threshold, which 2.2 adopted for 2.1's 0.03928; else
//! `((c + 0.055) / 1.055)^2.4`), `L = 0.2126 R + 0.7152 G + 0.0722 B`, ratio
//! `(L1 + 0.05) / (L2 + 0.05)` with `L1` the lighter. Chart lines, bars and points need 3:1 against
//! the page (success criterion 1.4.11 "Non-text Contrast"); text 4.5:1 (1.4.3 "Contrast (Minimum)").

/// The relative luminance of `#rrggbb`, 0 (black) to 1 (white).
fn relative_luminance(hex: &str) -> f64 {
    let hex = hex.strip_prefix('#').expect("a colour written #rrggbb");
    assert_eq!(hex.len(), 6, "#{hex} is not #rrggbb");
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits")) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

/// The contrast ratio of two `#rrggbb` colours, 1 to 21.
pub(crate) fn contrast_ratio(a: &str, b: &str) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::chart::{GREEN, NEW, OLD, PALETTE, RED};
    use crate::report::html::{BASE_CSS, CSS};

    /// The page's background (`BASE_CSS`'s `body`).
    const PAGE: &str = "#ffffff";
    /// The diff page's colour of a trial the diff finds faster (its word and its row's mark).
    const FASTER: &str = "#1a7f37";
    /// Likewise for slower.
    const SLOWER: &str = "#cf222e";

    #[test]
    fn the_formula_gives_wcags_own_extremes() {
        assert!((contrast_ratio("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!((contrast_ratio("#777777", "#777777") - 1.0).abs() < 1e-12);
        // A check that can fail: tab10's orange and pink, which the palette replaced, are below 3:1.
        assert!(contrast_ratio("#ff7f0e", PAGE) < 3.0 && contrast_ratio("#e377c2", PAGE) < 3.0);
    }

    #[test]
    fn chart_marks_reach_3_to_1_and_text_4_5_to_1() {
        let css = format!("{BASE_CSS}{CSS}");
        for colour in PALETTE.iter().chain(&[RED, GREEN, OLD, NEW]) {
            let ratio = contrast_ratio(colour, PAGE);
            assert!(ratio >= 3.0, "chart colour {colour}: {ratio:.2}:1 against {PAGE}, under 3:1");
        }
        // Coloured words (faster/slower) and the grey text the page uses.
        for colour in [FASTER, SLOWER, "#1b1f24", "#57606a", "#6e7781"] {
            assert!(css.contains(colour), "{colour} is not in the page's CSS any more: update this test");
            let ratio = contrast_ratio(colour, PAGE);
            assert!(ratio >= 4.5, "text colour {colour}: {ratio:.2}:1 against {PAGE}, under 4.5:1");
        }
        for colour in [OLD, NEW] {
            assert!(css.contains(colour), "{colour} is not in the page's CSS");
        }
    }
}
