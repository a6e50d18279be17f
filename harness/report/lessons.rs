//! The block a run prints after its table: one line per lesson trial ([`crate::lesson_record`]),
//! its verdict, the ratio good / bad with its 95 % interval against the bound, the pairs.

use crate::lesson_record::LessonRow;

/// The lessons block: a heading, then per row `verdict  trial  ratio [low, high]  <= bound  pairs`,
/// aligned, with `BROKEN`, `UNCLEAR` and `INVALID` in capitals so they stand out and `-` where no
/// ratio was computed; `""` for no rows.
pub fn lessons(rows: &[LessonRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let table: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let verdict = if r.verdict == "holds" { r.verdict.clone() } else { r.verdict.to_uppercase() };
            let ratio = r.ratio.map_or("-".to_string(), |x| format!("{x:.3}"));
            let interval = match (r.ratio_low, r.ratio_high) {
                (Some(low), Some(high)) => format!("[{low:.3}, {high:.3}]"),
                _ => "-".to_string(),
            };
            let pairs = crate::units::count(r.pairs, "pair");
            [verdict, r.trial.clone(), ratio, interval, format!("<= {}", r.bound), pairs]
        })
        .collect();
    let mut out =
        "lessons (same-run ratio good / bad, median of the pairs, 95 % CI; bounds in harness/cases/<family>.rs):\n"
            .to_string();
    for line in crate::units::aligned(&table, 2) {
        out += &line;
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lesson_record::tests::row;

    /// Golden: the block for a holding, a broken and an invalid lesson (figures made up for the
    /// test).
    #[test]
    fn the_block_lines_up_and_shouts_what_did_not_hold() {
        let mut broken = row("transfers/pipeline_4_streams_vs_1_stream/16777216", "broken", Some([0.91, 0.9, 0.92]));
        broken.bound = 0.8;
        broken.pairs = 1;
        let rows = [
            row("launch/graph_vs_one_by_one/4096x8", "holds", Some([0.658, 0.6512, 0.6649])),
            broken,
            row("transfers/h2d_pinned_vs_pageable/16777216", "invalid", None),
        ];
        let expected = "\
lessons (same-run ratio good / bad, median of the pairs, 95 % CI; bounds in harness/cases/<family>.rs):
  holds    launch/graph_vs_one_by_one/4096x8                  0.658  [0.651, 0.665]  <= 0.83  812 pairs
  BROKEN   transfers/pipeline_4_streams_vs_1_stream/16777216  0.910  [0.900, 0.920]   <= 0.8     1 pair
  INVALID  transfers/h2d_pinned_vs_pageable/16777216              -               -  <= 0.83  812 pairs
";
        assert_eq!(super::lessons(&rows), expected);
        assert_eq!(super::lessons(&[]), "");
    }
}
