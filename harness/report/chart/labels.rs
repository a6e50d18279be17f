//! Where a trend chart's change-point labels go: rows above the plot, no two overlapping (pure).

/// Rows of change-point labels above a trend's plot, at most.
pub(super) const LABEL_ROWS: usize = 3;
/// Height of a row of change-point labels, chart units (12-unit bold text is 14 high).
pub(super) const LABEL_ROW: f64 = 16.0;
/// Width of a character of a change-point label, chart units: 12-unit bold text of DejaVu Sans
/// (Debian's `system-ui`) measured 7.4 to 7.6 per character in Chromium for `change at c000004`;
/// a little more, so that a wider face still fits.
const LABEL_CHAR: f64 = 8.0;
/// Room kept between two labels of one row, and between a label and its rule, chart units.
const LABEL_GAP: f64 = 4.0;

/// A change-point label to place ([`place_labels`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Label {
    /// The x of its rule, chart units.
    pub x: f64,
    /// The whole label (`change at c000004`).
    pub text: String,
    /// The label where the whole one finds no room (`c000004`).
    pub short: String,
    /// Whether it is best read right of its rule (else left of it).
    pub right: bool,
}

/// Where [`place_labels`] put a [`Label`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    /// The text drawn: the label's whole text or its short one.
    pub text: String,
    /// The text's anchor x, chart units: its left end when `right`, else its right end.
    pub x: f64,
    /// Whether the text is right of its rule (anchored at its start) or left of it (at its end).
    pub right: bool,
    /// Its row, 0 the nearest the plot.
    pub row: usize,
}

impl Placed {
    /// Its box, `(left, right, top, bottom)` in chart units, the rows counted up from 0 (the
    /// text's estimated width, [`LABEL_CHAR`] a character; a row [`LABEL_ROW`] high).
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let width = LABEL_CHAR * self.text.chars().count() as f64;
        let (l, r) = if self.right { (self.x, self.x + width) } else { (self.x - width, self.x) };
        let bottom = -LABEL_ROW * self.row as f64;
        (l, r, bottom - LABEL_ROW + 2.0, bottom)
    }
}

/// Places the change-point labels `wanted` (sorted by x) above a plot so that no two overlap
/// (pure). Each label goes, in order, in the lowest of [`LABEL_ROWS`] rows where it fits inside
/// `span` (left, right, chart units) at least [`LABEL_GAP`] from the labels already there, on the
/// side of its rule a way of placing chooses if it fits there, else on the other. Labels whose
/// rules are closer than a whole label are a cluster. The ways, each tried: whole labels on their
/// own preferred sides ([`Label::right`]); whole labels facing away from the nearest other rule;
/// whole labels with the sides of a cluster alternating (left of the first rule, right of the
/// second, ...: two a row); the same with a cluster's labels shortened to their commit; every label
/// shortened. The placing kept is the one that places the most labels, then uses the fewest rows
/// (a label in a row of its own is less plainly its rule's), then shortens the fewest, then comes
/// first. The answer has one entry per label, in order; `None` for a label that found
/// no room (the chart names it in a note).
pub(crate) fn place_labels(wanted: &[Label], span: (f64, f64)) -> Vec<Option<Placed>> {
    let width = |text: &str| LABEL_CHAR * text.chars().count() as f64;
    let n = wanted.len();
    // Each label's place in its cluster, and whether it is the cluster's last.
    let mut nth = vec![0usize; n];
    let mut last = vec![true; n];
    for i in 1..n {
        if wanted[i].x - wanted[i - 1].x < width(&wanted[i - 1].text) + 2.0 * LABEL_GAP {
            nth[i] = nth[i - 1] + 1;
            last[i - 1] = false;
        }
    }
    let clustered = |i: usize| nth[i] > 0 || !last[i];
    let away = |i: usize| {
        let before = if i > 0 { wanted[i].x - wanted[i - 1].x } else { f64::INFINITY };
        let after = if i + 1 < n { wanted[i + 1].x - wanted[i].x } else { f64::INFINITY };
        if before == after { wanted[i].right } else { before < after }
    };
    let alternate = |i: usize| if clustered(i) { nth[i] % 2 == 1 || last[i] } else { wanted[i].right };
    type Rule<'r> = &'r dyn Fn(usize) -> bool;
    let ways: [(Rule, Rule); 5] = [
        (&|i| wanted[i].right, &|_| false),
        (&away, &|_| false),
        (&alternate, &|_| false),
        (&alternate, &clustered),
        (&alternate, &|_| true),
    ];
    let score = |p: &[Option<Placed>]| {
        let rows = p.iter().flatten().map(|p| p.row + 1).max().unwrap_or(0);
        let shortened = p.iter().zip(wanted).filter(|(p, l)| p.as_ref().is_some_and(|p| p.text != l.text)).count();
        (p.iter().filter(|p| p.is_none()).count(), rows, shortened)
    };
    let mut best: Option<Vec<Option<Placed>>> = None;
    for (side, short) in ways {
        let mut rows: Vec<Vec<(f64, f64)>> = vec![Vec::new(); LABEL_ROWS];
        let mut placed = Vec::with_capacity(n);
        for (i, label) in wanted.iter().enumerate() {
            let text = if short(i) { &label.short } else { &label.text };
            let prefer = side(i);
            let found = (0..LABEL_ROWS)
                .flat_map(|row| [prefer, !prefer].map(|right| (row, right)))
                .map(|(row, right)| {
                    let x = if right { label.x + LABEL_GAP } else { label.x - LABEL_GAP };
                    Placed { text: text.clone(), x, right, row }
                })
                .find(|candidate| {
                    let (l, r, _, _) = candidate.bounds();
                    let free = rows[candidate.row].iter().all(|&(a, b)| r + LABEL_GAP <= a || b + LABEL_GAP <= l);
                    l >= span.0 && r <= span.1 && free
                });
            if let Some(p) = &found {
                let (l, r, _, _) = p.bounds();
                rows[p.row].push((l, r));
            }
            placed.push(found);
        }
        if best.as_ref().is_none_or(|b| score(&placed) < score(b)) {
            best = Some(placed);
        }
    }
    best.unwrap_or_default()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Whether two boxes `(left, right, top, bottom)` share any area.
    fn intersect(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
        a.0 < b.1 && b.0 < a.1 && a.2 < b.3 && b.2 < a.3
    }

    /// Change-point labels of a trend over 40 commits at the chart's x positions, at `commits`.
    pub(crate) fn labels_at(commits: &[usize]) -> Vec<Label> {
        let x_at = |i: usize| 84.0 + (i as f64 + 0.5) * 692.0 / 40.0;
        commits
            .iter()
            .map(|&i| Label {
                x: x_at(i),
                text: format!("change at c{i:06}"),
                short: format!("c{i:06}"),
                right: x_at(i) <= 84.0 + 0.75 * 692.0,
            })
            .collect()
    }

    /// Five adjacent commits, two more, and two at the right edge.
    const CROWDED: [usize; 9] = [3, 4, 5, 6, 7, 12, 13, 38, 39];
    /// Ten adjacent commits.
    pub(crate) const DENSE: [usize; 10] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

    /// What is wrong with `placed`: two labels that overlap, or one outside the 800-unit chart.
    fn overlaps(placed: &[Option<Placed>]) -> Vec<String> {
        let boxes: Vec<_> = placed.iter().flatten().map(|p| (p, p.bounds())).collect();
        let mut wrong = Vec::new();
        for (i, (p, a)) in boxes.iter().enumerate() {
            if a.0 < 0.0 || a.1 > 800.0 {
                wrong.push(format!("{p:?} leaves the chart"));
            }
            for (q, b) in &boxes[i + 1..] {
                if intersect(*a, *b) {
                    wrong.push(format!("{p:?} overlaps {q:?}"));
                }
            }
        }
        wrong
    }

    /// No two change-point labels overlap and each stays inside the chart, for change points close
    /// together: a crowd is staggered (left of the first rule, right of the second, in one row,
    /// then up), a denser one shortened to its commits, and what still finds no room is left to
    /// the chart's note, never drawn over another. The check sees an overlap where there is one:
    /// the labels each drawn right of its rule in one row (as the chart drew them before) overlap.
    #[test]
    fn change_point_labels_never_overlap() {
        let placed = place_labels(&labels_at(&CROWDED), (0.0, 800.0));
        assert_eq!(overlaps(&placed), Vec::<String>::new());
        assert!(placed.iter().all(Option::is_some), "room for every label here: {placed:#?}");
        let rows: std::collections::BTreeSet<usize> = placed.iter().flatten().map(|p| p.row).collect();
        assert!(rows.len() > 1, "crowded labels are staggered: {placed:#?}");
        let (first, second) = (placed[0].as_ref().unwrap(), placed[1].as_ref().unwrap());
        assert!(!first.right && second.right && first.row == 0 && second.row == 0, "{first:?} {second:?}");

        // Two change points a third of the chart apart, the second near the right edge (issue 9's
        // restore report, 995a49f and d83240a over 15 runs): one row, each left of its rule.
        let two = [(430.0, "995a49f"), (660.7, "d83240a")].map(|(x, c)| Label {
            x,
            text: format!("change at {c}"),
            short: c.into(),
            right: x <= 84.0 + 0.75 * 692.0,
        });
        let placed = place_labels(&two, (0.0, 800.0));
        assert_eq!(overlaps(&placed), Vec::<String>::new());
        assert!(placed.iter().all(|p| p.as_ref().is_some_and(|p| p.row == 0 && !p.right)), "{placed:#?}");

        let dense = place_labels(&labels_at(&DENSE), (0.0, 800.0));
        assert_eq!((dense.len(), overlaps(&dense)), (DENSE.len(), Vec::<String>::new()));
        assert!(dense.iter().flatten().all(|p| p.text.len() == 7), "shortened to the commit: {dense:#?}");
        assert!(dense.iter().flatten().count() >= 2 * LABEL_ROWS, "two a row at least: {dense:#?}");

        // Negative control: one row, each right of its rule.
        let naive: Vec<Option<Placed>> = labels_at(&CROWDED)
            .into_iter()
            .map(|l| Some(Placed { text: l.text, x: l.x + LABEL_GAP, right: true, row: 0 }))
            .collect();
        assert!(!overlaps(&naive).is_empty(), "the check finds overlapping labels");

        // Room for all: each in row 0, whole, on its own side.
        let apart = labels_at(&[3, 12, 21, 39]);
        let placed = place_labels(&apart, (0.0, 800.0));
        assert!(
            placed
                .iter()
                .zip(&apart)
                .all(|(p, l)| { p.as_ref().is_some_and(|p| p.row == 0 && p.text == l.text && p.right == l.right) })
        );
    }
}
