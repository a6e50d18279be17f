//! A run's roofline as one self-contained SVG (pure): each case placed under the GPU's measured
//! roofs (Williams, Waterman & Patterson 2009, "Roofline: an insightful visual performance model
//! for multicore architectures", CACM 52(4)).
//!
//! Two panels, log-log. The roofline: x = arithmetic intensity (declared FLOPs / declared bytes,
//! FLOP/byte), y = achieved GFLOP/s (FLOPs / median); each device-memory ceiling is the roof
//! `y = bandwidth x intensity` up to the FMA peak, which is the flat roof. A case that declares no
//! FLOPs has intensity 0, which a log axis cannot show: those are placed in the bandwidth panel
//! beside it, y = achieved GB/s (bytes / median) under the device-memory ceilings as flat lines, in
//! the order of the legend along x. Each case is a numbered point with a `<title>` (trial, value,
//! % of its ceiling); the legend below maps numbers to trials. The roofs are named in a legend of
//! their own above both panels (`keys`), outside the plotting areas, where no roof or point is. A point may carry where it was
//! before ([`Was`]: the diff report's old side), drawn as a hollow grey point with an arrow to where
//! it is now. Written by hand, like the diff report's charts (`report::chart` says why). Used for a
//! run's own roofline (`<stem>-roofline.svg`, [`points`]) and for the diff report's
//! (`crate::report::diff::roof`).

use super::chart::{NEW, OLD, PALETTE, RED};
use super::html_escape as escape;
use crate::model::{Ceiling, Ceilings};
use crate::record::CaseResult;
use std::fmt::Write as _;

/// Width of the picture, px.
const WIDTH: f64 = 1000.0;
/// Top and bottom of both panels' plotting area, px: below the title (baseline 20) and the roofs'
/// legend ([`KEY_Y`]).
const TOP: f64 = 64.0;
const BOTTOM: f64 = 464.0;
/// Baseline of the roofs' legend, px: one row above both panels, outside their plotting areas.
const KEY_Y: f64 = 44.0;
/// Width of a character of the 11 px text, px: DejaVu Sans (Debian's `sans-serif`) draws digits
/// 7.0 px wide at 11 px, letters narrower; the legend reserves this much a character.
const KEY_CHAR: f64 = 7.0;
/// Left and right of the bandwidth panel, then of the roofline panel, px.
const STRIP: (f64, f64) = (80.0, 300.0);
const ROOF: (f64, f64) = (400.0, 960.0);
/// Height of a legend row, px; the legend has two columns.
const ROW: f64 = 15.0;

/// The device-memory roofs drawn, with their colours.
const DRAM: [(Ceiling, &str); 3] =
    [(Ceiling::Copy, PALETTE[0]), (Ceiling::DramRead, PALETTE[1]), (Ceiling::DramWrite, PALETTE[2])];

/// One case's place: its number in the legend, name, and where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// 1-based, the legend's order.
    pub number: usize,
    /// Trial name.
    pub trial: String,
    /// FLOP/byte; `None` for a case with no FLOPs or no bytes (bandwidth panel, or not placed).
    pub intensity: Option<f64>,
    /// Achieved GFLOP/s (roofline panel) or GB/s (bandwidth panel).
    pub value: f64,
    /// Its ceiling's name and the % of it, when it has one.
    pub of_ceiling: Option<(Ceiling, f64)>,
    /// Where it was before (the old side of a diff); `None` for a run's own roofline.
    pub was: Option<Was>,
}

/// Where a [`Point`] was before: in the same panel as the point (an old position in the other
/// panel, FLOPs declared on one side only, is not drawn).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Was {
    /// FLOP/byte, `None` in the bandwidth panel.
    pub intensity: Option<f64>,
    /// GFLOP/s (roofline panel) or GB/s (bandwidth panel).
    pub value: f64,
}

impl Point {
    /// [`Point::was`] where it is drawn: in the point's own panel, positive and finite.
    pub fn drawn_was(&self) -> Option<Was> {
        self.was.filter(|w| {
            w.intensity.is_some() == self.intensity.is_some()
                && w.value.is_finite()
                && w.value > 0.0
                && w.intensity.is_none_or(|i| i.is_finite() && i > 0.0)
        })
    }
}

/// Places each result: on the roofline when it declares FLOPs and bytes, in the bandwidth panel
/// when it declares bytes only; a result with no bytes is left out (its time has no roof here).
pub fn points(results: &[CaseResult]) -> Vec<Point> {
    let mut out = Vec::new();
    for r in results.iter().filter(|r| r.bytes > 0) {
        let intensity = (r.flops > 0).then(|| crate::ceilings::intensity(r.flops, r.bytes)).flatten();
        out.push(Point {
            number: out.len() + 1,
            trial: r.trial.clone(),
            intensity,
            value: if intensity.is_some() { r.gflops().unwrap_or(0.0) } else { r.bandwidth_gbps() },
            of_ceiling: r.bound.zip(r.pct_of_bound()).map(|(b, pct)| (b.ceiling, pct)),
            was: None,
        });
    }
    out
}

/// A log10 axis from `lo` to `hi` (whole decades) onto pixels `from`..`to`.
#[derive(Debug, Clone, Copy)]
struct Axis {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Axis {
    /// The decades around `values` (positive, finite).
    fn around(values: impl Iterator<Item = f64>, from: f64, to: f64) -> Axis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 10.0);
        }
        let (lo, hi) = (lo.log10().floor(), hi.log10().ceil());
        Axis { lo, hi: if hi > lo { hi } else { lo + 1.0 }, from, to }
    }

    /// The pixel of `v`.
    fn at(&self, v: f64) -> f64 {
        self.from + (v.log10() - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }

    /// The decades, as values.
    fn decades(&self) -> impl Iterator<Item = f64> {
        (self.lo as i32..=self.hi as i32).map(|e| 10f64.powi(e))
    }
}

/// `10^e` as an axis label: `0.01`, `1`, `1000`, `1e+06` beyond.
fn decade(v: f64) -> String {
    if (1e-3..1e6).contains(&v) { crate::units::significant(v) } else { format!("{v:e}") }
}

/// The roofline of one run's GPU as an SVG document (pure): `title` names the run and GPU,
/// `ceilings` its measured ceilings (the roofs: [`Ceiling::Copy`], [`Ceiling::DramRead`],
/// [`Ceiling::DramWrite`] and [`Ceiling::Fma`] where measured), `points` the cases ([`points`]).
/// The root (`class="chart roofline"`) carries `data-points` (every point), `data-roofline` (points
/// on the roofline), `data-bandwidth` (points in the bandwidth panel) and `data-moved` (points drawn
/// with where they were); each point is a `circle class="pt"` with `data-n` (its number), each old
/// position a `circle class="was"` with the same `data-n` and an arrow (`class="move"`) to the point.
pub fn svg(title: &str, ceilings: &Ceilings, points: &[Point]) -> String {
    let roof_points: Vec<&Point> = points.iter().filter(|p| p.intensity.is_some()).collect();
    let strip_points: Vec<&Point> = points.iter().filter(|p| p.intensity.is_none()).collect();
    let dram: Vec<(Ceiling, &str, f64)> =
        DRAM.iter().filter_map(|&(c, colour)| Some((c, colour, ceilings.value(c)?))).collect();
    let fma = ceilings.value(Ceiling::Fma);
    let ridges: Vec<f64> = fma.map_or(Vec::new(), |f| dram.iter().map(|d| f / d.2).collect());
    let was = |ps: &[&Point]| -> Vec<Was> { ps.iter().filter_map(|p| p.drawn_was()).collect() };
    let (roof_was, strip_was) = (was(&roof_points), was(&strip_points));
    let x = Axis::around(
        roof_points
            .iter()
            .filter_map(|p| p.intensity)
            .chain(roof_was.iter().filter_map(|w| w.intensity))
            .chain(ridges.iter().copied()),
        ROOF.0,
        ROOF.1,
    );
    let y = Axis::around(
        roof_points.iter().map(|p| p.value).chain(roof_was.iter().map(|w| w.value)).chain(fma),
        BOTTOM,
        TOP,
    );
    let by = Axis::around(
        strip_points.iter().map(|p| p.value).chain(strip_was.iter().map(|w| w.value)).chain(dram.iter().map(|d| d.2)),
        BOTTOM,
        TOP,
    );
    let legend_rows = points.len().div_ceil(2);
    let height = BOTTOM + 60.0 + ROW * legend_rows as f64 + 10.0;
    let mut s = String::new();
    write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart roofline" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" data-points="{}" data-roofline="{}" data-bandwidth="{}" data-moved="{}" font-family="sans-serif" font-size="11"><title>{}</title>"#,
        points.len(),
        roof_points.len(),
        strip_points.len(),
        roof_was.len() + strip_was.len(),
        escape(title)
    )
    .unwrap();
    write!(s, r#"<text x="{}" y="20" font-size="14">{}</text>"#, STRIP.0, escape(title)).unwrap();
    // Frames, decades and axis titles.
    for (left, right) in [STRIP, ROOF] {
        write!(
            s,
            r##"<rect x="{left}" y="{TOP}" width="{}" height="{}" fill="none" stroke="#57606a"/>"##,
            right - left,
            BOTTOM - TOP
        )
        .unwrap();
    }
    for v in x.decades() {
        let px = x.at(v);
        write!(s, r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{BOTTOM}" stroke="#d0d7de"/><text x="{px:.1}" y="{}" text-anchor="middle">{}</text>"##, BOTTOM + 14.0, decade(v)).unwrap();
    }
    for (axis, left, right) in [(y, ROOF.0, ROOF.1), (by, STRIP.0, STRIP.1)] {
        for v in axis.decades() {
            let py = axis.at(v);
            write!(s, r##"<line x1="{left}" y1="{py:.1}" x2="{right}" y2="{py:.1}" stroke="#d0d7de"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##, left - 4.0, py + 4.0, decade(v)).unwrap();
        }
    }
    let mid = (TOP + BOTTOM) / 2.0;
    write!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle">arithmetic intensity, FLOP/byte (declared FLOPs / declared bytes)</text>"#, (ROOF.0 + ROOF.1) / 2.0, BOTTOM + 30.0).unwrap();
    write!(
        s,
        r#"<text x="{}" y="{mid}" text-anchor="middle" transform="rotate(-90 {} {mid})">achieved GFLOP/s</text>"#,
        ROOF.0 - 50.0,
        ROOF.0 - 50.0
    )
    .unwrap();
    write!(
        s,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">no FLOPs declared</text>"#,
        (STRIP.0 + STRIP.1) / 2.0,
        BOTTOM + 30.0
    )
    .unwrap();
    write!(
        s,
        r#"<text x="{}" y="{mid}" text-anchor="middle" transform="rotate(-90 {} {mid})">achieved GB/s</text>"#,
        STRIP.0 - 50.0,
        STRIP.0 - 50.0
    )
    .unwrap();
    // Roofs: each bandwidth as a slope up to the FMA peak, and flat in the bandwidth panel; named
    // in the legend above the panels.
    let x_hi = 10f64.powf(x.hi);
    let x_lo = 10f64.powf(x.lo);
    let y_lo = 10f64.powf(y.lo);
    for &(c, colour, gbps) in &dram {
        let start = x_lo.max(y_lo / gbps);
        let end = fma.map_or(x_hi, |f| (f / gbps).min(x_hi));
        write!(
            s,
            r#"<line class="roof" data-ceiling="{c}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2"/>"#,
            x.at(start),
            y.at(gbps * start),
            x.at(end),
            y.at(gbps * end),
        )
        .unwrap();
        let py = by.at(gbps);
        write!(
            s,
            r#"<line class="roof" data-ceiling="{c}" x1="{}" y1="{py:.1}" x2="{}" y2="{py:.1}" stroke="{colour}" stroke-width="2"/>"#,
            STRIP.0, STRIP.1,
        )
        .unwrap();
    }
    if let Some(f) = fma {
        let start = ridges.iter().copied().fold(x_hi, f64::min).max(x_lo);
        write!(
            s,
            r#"<line class="roof" data-ceiling="fma" x1="{:.1}" y1="{:.1}" x2="{}" y2="{:.1}" stroke="{RED}" stroke-width="2"/>"#,
            x.at(start),
            y.at(f),
            ROOF.1,
            y.at(f),
        )
        .unwrap();
    }
    for key in keys(&dram, fma) {
        write!(
            s,
            r#"<g class="roof-key"><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="2"/><text x="{:.1}" y="{KEY_Y}">{}</text></g>"#,
            key.x,
            KEY_Y - 4.0,
            key.x + KEY_SWATCH,
            KEY_Y - 4.0,
            key.colour,
            key.x + KEY_SWATCH + 5.0,
            escape(&key.text)
        )
        .unwrap();
    }
    // The points.
    let tip = |p: &Point, unit: &str| {
        let of = p.of_ceiling.map_or(String::new(), |(c, pct)| format!(", {pct:.1} % of {c}"));
        let at = p.intensity.map_or(String::new(), |i| format!(" at {} FLOP/byte", crate::units::significant(i)));
        escape(&format!("{} {}: {} {unit}{at}{of}", p.number, p.trial, crate::units::significant(p.value)))
    };
    let was_tip = |p: &Point, w: &Was, unit: &str| {
        let at = w.intensity.map_or(String::new(), |i| format!(" at {} FLOP/byte", crate::units::significant(i)));
        escape(&format!("{} {}: was {} {unit}{at} (old side)", p.number, p.trial, crate::units::significant(w.value)))
    };
    for p in &roof_points {
        let (px, py) = (x.at(p.intensity.expect("on the roofline")), y.at(p.value));
        if let Some(w) = p.drawn_was() {
            let from = (x.at(w.intensity.expect("in the point's panel")), y.at(w.value));
            moved(&mut s, p, from, (px, py), &was_tip(p, &w, "GFLOP/s"));
        }
        point(&mut s, p, px, py, &tip(p, "GFLOP/s"));
    }
    let step = (STRIP.1 - STRIP.0) / (strip_points.len() + 1) as f64;
    for (i, p) in strip_points.iter().enumerate() {
        let (px, py) = (STRIP.0 + step * (i + 1) as f64, by.at(p.value));
        if let Some(w) = p.drawn_was() {
            moved(&mut s, p, (px, by.at(w.value)), (px, py), &was_tip(p, &w, "GB/s"));
        }
        point(&mut s, p, px, py, &tip(p, "GB/s"));
    }
    // The legend.
    for (i, p) in points.iter().enumerate() {
        let (col, row) = (i / legend_rows, i % legend_rows);
        let of = p.of_ceiling.map_or(String::new(), |(c, pct)| format!(" ({pct:.1} % of {c})"));
        write!(
            s,
            r#"<text x="{}" y="{:.1}">{}</text>"#,
            STRIP.0 + 450.0 * col as f64,
            BOTTOM + 60.0 + ROW * row as f64,
            escape(&format!("{} {}{of}", p.number, p.trial))
        )
        .unwrap();
    }
    s.push_str("</svg>");
    s
}

/// Length of a legend entry's stroke of its roof's colour, px.
const KEY_SWATCH: f64 = 18.0;

/// One entry of the roofs' legend ([`keys`]).
#[derive(Debug, Clone, PartialEq)]
struct Key {
    /// Left end of its stroke, px.
    x: f64,
    /// The roof's name and value (`copy 4188 GB/s`).
    text: String,
    /// The roof's colour.
    colour: &'static str,
}

impl Key {
    /// Its box, `(left, right, top, bottom)` in px: the stroke and the text (its width estimated,
    /// [`KEY_CHAR`] a character; 11 px text from 9 px above its baseline to 3 px below).
    fn bounds(&self) -> (f64, f64, f64, f64) {
        let right = self.x + KEY_SWATCH + 5.0 + KEY_CHAR * self.text.chars().count() as f64;
        (self.x, right, KEY_Y - 10.0, KEY_Y + 3.0)
    }
}

/// The roofs' legend (pure): one entry per device-memory roof drawn (`dram`: ceiling, colour,
/// GB/s) and one for the FMA peak, left to right in one row from the bandwidth panel's left edge,
/// 18 px apart, at [`KEY_Y`], above both panels' plotting areas (from [`TOP`] down), where no roof
/// and no point is drawn. The labels used to sit inside the panels, beside the roofs, where close
/// ceilings (dram_read 4315, dram_write 4347, copy 4188 GB/s on one H200) put them over the lines
/// and the points.
fn keys(dram: &[(Ceiling, &'static str, f64)], fma: Option<f64>) -> Vec<Key> {
    let mut out = Vec::new();
    let mut x = STRIP.0;
    let named = dram
        .iter()
        .map(|&(c, colour, gbps)| (format!("{c} {gbps:.0} GB/s"), colour))
        .chain(fma.map(|f| (format!("fma {f:.0} GFLOP/s"), RED)));
    for (text, colour) in named {
        let key = Key { x, text, colour };
        x = key.bounds().1 + 18.0;
        out.push(key);
    }
    out
}

/// Where point `p` was (`from`, a hollow grey circle with its tooltip) and an arrow from there to
/// where it is (`to`), from circle edge to circle edge with a 6 px head; no arrow where the two are
/// under 16 px apart (the circles' radii, the head and a 2 px shaft).
fn moved(s: &mut String, p: &Point, from: (f64, f64), to: (f64, f64), tip: &str) {
    write!(
        s,
        r#"<circle class="was" data-n="{}" cx="{:.1}" cy="{:.1}" r="4" fill="none" stroke="{OLD}" stroke-width="1.5"><title>{tip}</title></circle>"#,
        p.number, from.0, from.1
    )
    .unwrap();
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = dx.hypot(dy);
    if length < 16.0 {
        return;
    }
    let (ux, uy) = (dx / length, dy / length);
    // From the old circle's edge to the new one's, the head 6 px long and 5 px wide.
    let (x0, y0) = (from.0 + 4.0 * ux, from.1 + 4.0 * uy);
    let (tx, ty) = (to.0 - 4.0 * ux, to.1 - 4.0 * uy);
    let (bx, by) = (tx - 6.0 * ux, ty - 6.0 * uy);
    write!(
        s,
        r#"<g class="move" data-n="{}"><line x1="{x0:.1}" y1="{y0:.1}" x2="{bx:.1}" y2="{by:.1}" stroke="{OLD}" stroke-width="1.5"/><polygon points="{tx:.1},{ty:.1} {:.1},{:.1} {:.1},{:.1}" fill="{OLD}"/></g>"#,
        p.number,
        bx - 2.5 * uy,
        by + 2.5 * ux,
        bx + 2.5 * uy,
        by - 2.5 * ux
    )
    .unwrap();
}

/// One numbered point at (`px`, `py`) with its tooltip.
fn point(s: &mut String, p: &Point, px: f64, py: f64, tip: &str) {
    write!(
        s,
        r#"<circle class="pt" data-n="{}" cx="{px:.1}" cy="{py:.1}" r="4" fill="{NEW}"><title>{tip}</title></circle><text x="{:.1}" y="{:.1}" font-size="9">{}</text>"#,
        p.number,
        px + 5.0,
        py - 5.0,
        p.number
    )
    .unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::result;

    #[test]
    fn axes_are_whole_decades_and_map_logarithmically() {
        let a = Axis::around([0.3, 20.0].into_iter(), 0.0, 300.0);
        assert_eq!((a.lo, a.hi), (-1.0, 2.0));
        assert!(
            (a.at(0.1) - 0.0).abs() < 1e-9 && (a.at(1.0) - 100.0).abs() < 1e-9 && (a.at(100.0) - 300.0).abs() < 1e-9
        );
        assert_eq!(decade(0.01), "0.01");
        assert_eq!(decade(1000.0), "1000");
        assert_eq!(decade(1e7), "1e7");
    }

    /// The committed H200 run `20261201T165209Z-8c8c911` (77 trials): its bytes, FLOPs, medians and
    /// copy bandwidth (its excerpt in tests/fixtures/baselines/, those rows alone), each case bound
    /// as the case table declares or derives. The FMA peak is a fixture input (60000 GFLOP/s), not
    /// a measurement: that run measured the copy only.
    #[test]
    fn the_roofline_of_a_committed_run() {
        const RUN: &str = "baselines/nvidia-h200-sm90/runs/20261201T165209Z-8c8c911.csv";
        let path = crate::source::fixture_path(RUN);
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (trial, statistic, value, copy) =
            (col("trial"), col("statistic"), col("value"), col("copy_bandwidth_gbps"));
        let mut by_trial: std::collections::BTreeMap<String, (f64, u64, u64)> = Default::default();
        let mut copy_gbps = 0.0;
        for record in reader.records() {
            let r = record.unwrap();
            copy_gbps = r[copy].parse().unwrap();
            let entry = by_trial.entry(r[trial].to_string()).or_default();
            let v: f64 = r[value].parse().unwrap();
            match &r[statistic] {
                "median" => entry.0 = v,
                "bytes" => entry.1 = v as u64,
                "flops" => entry.2 = v as u64,
                _ => {}
            }
        }
        assert_eq!((by_trial.len(), copy_gbps), (77, 4223.206434886277));
        let m = |ceiling, value| crate::model::Measured { ceiling, value, spread: 0.0, samples: 20, work: 1.0 };
        let ceilings = Ceilings { measured: vec![m(Ceiling::Copy, copy_gbps), m(Ceiling::Fma, 60000.0)], wall_s: 0.0 };
        // The bounds the shipped suite's table declares (its table test checks them): the read-only
        // families are DRAM-read-bound, matmul FMA-bound; every other case is derived.
        let declared = |trial: &str| match trial.split('/').next() {
            Some("reduction" | "histogram") => Some(Ceiling::DramRead),
            Some("matmul") => Some(Ceiling::Fma),
            _ => None,
        };
        let results: Vec<CaseResult> = by_trial
            .iter()
            .map(|(t, &(median, bytes, flops))| {
                let mut r = result(t, median, bytes, flops);
                r.bound = crate::ceilings::bound(declared(t), bytes, flops, &ceilings);
                r
            })
            .collect();
        let ps = points(&results);
        let svg = svg("8c8c911 on NVIDIA H200", &ceilings, &ps);
        let on_roof = results.iter().filter(|r| r.bytes > 0 && r.flops > 0).count();
        let in_strip = results.iter().filter(|r| r.bytes > 0 && r.flops == 0).count();
        assert!(on_roof > 10 && in_strip > 10, "{on_roof} {in_strip}");
        assert!(svg.contains(&format!(r#"data-roofline="{on_roof}" data-bandwidth="{in_strip}""#)));
        assert_eq!(svg.matches(r#"<circle class="pt""#).count(), on_roof + in_strip);
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>") && svg.matches("<svg").count() == 1);
        // The roofs, labelled with their values; matmul against fma, the read-only families against
        // nothing here (dram_read was not measured in that run), the rest against copy.
        assert!(svg.contains(">copy 4223 GB/s</text>") && svg.contains(">fma 60000 GFLOP/s</text>"));
        assert_eq!(svg.matches(r#"class="roof""#).count(), 3, "copy twice (both panels) and fma");
        // matmul/cublas/4096x4096x4096 at its intensity (2 x 4096^3 / (3 x 4 x 4096^2) = 682.7
        // FLOP/byte) and GFLOP/s. The roofline's x axis spans 0.1 (the reductions' 0.25) to 1000
        // decades over 400..960 px; y spans the decades around the achieved GFLOP/s and the peak.
        let cublas = ps.iter().find(|p| p.trial == "matmul/cublas/4096x4096x4096").unwrap();
        let intensity = cublas.intensity.unwrap();
        assert!((intensity - 2.0 * 4096.0 / 12.0).abs() < 1e-9);
        let cx = 400.0 + (intensity.log10() + 1.0) / 4.0 * 560.0;
        let circle = format!(r#"data-n="{}" cx="{cx:.1}""#, cublas.number);
        assert!(svg.contains(&circle), "{circle} not in the picture");
        let (c, pct) = cublas.of_ceiling.unwrap();
        assert_eq!(c, Ceiling::Fma);
        assert!((pct - 100.0 * cublas.value / 60000.0).abs() < 1e-9);
        // The copy kernels are in the bandwidth panel, against copy.
        let copy_case = ps.iter().find(|p| p.trial == "coalescing/copy/67108864").unwrap();
        assert_eq!(copy_case.intensity, None);
        assert_eq!(copy_case.of_ceiling.map(|o| o.0), Some(Ceiling::Copy));
        assert!(svg.contains(&format!("{} coalescing/copy/67108864 (62.7 % of copy)", copy_case.number)), "{svg}");
    }

    /// The roof lines of a picture, `(x1, y1, x2, y2)` each.
    fn roof_lines(svg: &str) -> Vec<(f64, f64, f64, f64)> {
        svg.split(r#"<line class="roof""#)
            .skip(1)
            .map(|line| {
                let at = |name: &str| -> f64 {
                    line.split(&format!(" {name}=\"")).nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
                };
                (at("x1"), at("y1"), at("x2"), at("y2"))
            })
            .collect()
    }

    /// Whether the segment from `(x1, y1)` to `(x2, y2)` meets the box `(left, right, top,
    /// bottom)`: sampled every 0.25 px along it (a roof is a few hundred px long).
    fn crosses((x1, y1, x2, y2): (f64, f64, f64, f64), (l, r, t, b): (f64, f64, f64, f64)) -> bool {
        let steps = ((x2 - x1).hypot(y2 - y1) * 4.0).ceil().max(1.0) as usize;
        (0..=steps).any(|i| {
            let f = i as f64 / steps as f64;
            let (x, y) = (x1 + f * (x2 - x1), y1 + f * (y2 - y1));
            (l..=r).contains(&x) && (t..=b).contains(&y)
        })
    }

    /// The roofs' legend is above both plotting areas, inside the picture, its entries apart, and
    /// no roof line crosses it: for the three device-memory roofs of one H200 (within 4 % of one
    /// another) and its FMA peak, with points near the top of both panels, and for a run that
    /// measured the copy only. The check sees a crossing where there is one: where the legend used
    /// to be, the copy roof's label in the bandwidth panel 4 px above its line, the dram_write roof
    /// 1.6 px above the copy roof crosses it.
    #[test]
    fn the_roofs_legend_is_where_no_roof_or_point_is() {
        let m = |ceiling, value| crate::model::Measured { ceiling, value, spread: 0.0, samples: 20, work: 1.0 };
        // b38 r2's ceilings (baselines/nvidia-h200-sm90/reports/roofline/README.md).
        let h200 = Ceilings {
            measured: vec![
                m(Ceiling::Copy, 4188.0),
                m(Ceiling::DramRead, 4315.0),
                m(Ceiling::DramWrite, 4347.0),
                m(Ceiling::Fma, 64216.0),
            ],
            wall_s: 0.0,
        };
        let copy_only = Ceilings { measured: vec![m(Ceiling::Copy, 4188.0)], wall_s: 0.0 };
        let ps = points(&[
            result("m/near_peak/1", 2.2e-3, 1_000_000, 140_000_000_000),
            result("m/low/1", 1e-3, 1_000_000_000, 100_000_000),
            result("c/near_copy/1", 0.24e-3, 1_000_000_000, 0),
            result("c/slow/1", 1.0, 1_000_000_000, 0),
        ]);
        for (name, ceilings) in [("H200", &h200), ("copy only", &copy_only)] {
            let svg = svg(name, ceilings, &ps);
            let roofs = roof_lines(&svg);
            let dram: Vec<(Ceiling, &'static str, f64)> =
                DRAM.iter().filter_map(|&(c, colour)| Some((c, colour, ceilings.value(c)?))).collect();
            let keys = keys(&dram, ceilings.value(Ceiling::Fma));
            assert_eq!(keys.len(), ceilings.measured.len(), "{name}: one entry per roof");
            assert_eq!(roofs.len(), 2 * dram.len() + usize::from(ceilings.value(Ceiling::Fma).is_some()), "{name}");
            for (i, key) in keys.iter().enumerate() {
                let b = key.bounds();
                assert!(b.0 >= 0.0 && b.1 <= WIDTH && b.2 > 20.0 && b.3 < TOP, "{name}: {key:?} {b:?}");
                for roof in &roofs {
                    assert!(!crosses(*roof, b), "{name}: {roof:?} crosses {key:?}");
                }
                for other in &keys[i + 1..] {
                    assert!(b.1 + 10.0 <= other.bounds().0, "{name}: {key:?} and {other:?} overlap");
                }
                assert!(svg.contains(&format!(">{}</text>", key.text)), "{name}: {}", key.text);
            }
            // Every point (radius 4) and its number (9 px text, 5 px above it) is below the legend.
            let below = keys.iter().map(|k| k.bounds().3).fold(0.0, f64::max);
            for circle in svg.split(r#"<circle class="pt""#).skip(1) {
                let cy: f64 = circle.split(" cy=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
                assert!(cy - 5.0 - 9.0 > below, "{name}: a point at {cy} reaches the legend (down to {below})");
            }
        }
        // Negative control: the old label of the copy roof in the bandwidth panel.
        let svg = svg("H200", &h200, &ps);
        let (copy, write) = (roof_lines(&svg)[1], roof_lines(&svg)[5]);
        assert_eq!((copy.1, write.1), (copy.3, write.3), "the flat copy and dram_write roofs");
        let old = (STRIP.0 + 4.0, STRIP.0 + 4.0 + KEY_CHAR * 14.0, copy.1 - 4.0 - 10.0, copy.1 - 4.0 + 3.0);
        assert!(crosses(write, old), "the check finds a roof through a label: {write:?} {old:?}");
    }

    #[test]
    fn cases_are_placed_by_what_they_declare() {
        let ps = points(&[
            result("m/m/1", 1e-3, 1_000_000, 100_000_000),
            result("c/c/1", 1e-3, 1_000_000_000, 0),
            result("l/l/1", 1e-3, 0, 0),
        ]);
        assert_eq!(ps.len(), 2, "no bytes: not placed");
        assert_eq!((ps[0].intensity, ps[0].value), (Some(100.0), 100.0));
        assert_eq!((ps[1].intensity, ps[1].value, ps[1].number), (None, 1000.0, 2));
    }
}
