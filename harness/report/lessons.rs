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
        "lessons (same-run ratio good / bad, median of the pairs, 95 % CI; bounds in the case table's lessons):\n"
            .to_string();
    for line in crate::units::aligned(&table, 2) {
        out += &line;
        out.push('\n');
    }
    out
}

/// The lessons' series over runs (`kernelgate lessons`): per lesson trial its runs and GPUs, the
/// smallest, median and largest ratio, the highest interval top, the bound in force, and the bound
/// the margin rule gives ([`crate::gate::lesson::margin_bound`] of the largest ratio), or why not:
/// fewer than `min_runs` judged runs. A closing line says how the rule reads.
pub fn series(series: &[crate::lesson_record::LessonSeries], min_runs: usize) -> String {
    let mut table: Vec<[String; 9]> = vec![
        ["lesson trial", "runs", "GPUs", "min", "median", "max", "top of CI", "bound", "margin rule"].map(String::from),
    ];
    for s in series {
        let judged = s.runs - s.unjudged;
        let (three, rule) = match s.ratios {
            Some([min, median, max]) => (
                [min, median, max].map(|x| format!("{x:.3}")),
                if judged >= min_runs {
                    format!("{}", crate::gate::lesson::margin_bound(max))
                } else {
                    format!("- ({judged} of {min_runs} runs)")
                },
            ),
            None => (["-", "-", "-"].map(String::from), format!("- (0 of {min_runs} runs)")),
        };
        let [min, median, max] = three;
        table.push([
            s.trial.clone(),
            if s.unjudged > 0 { format!("{} ({} unjudged)", s.runs, s.unjudged) } else { s.runs.to_string() },
            s.gpus.to_string(),
            min,
            median,
            max,
            s.highest_high.map_or("-".to_string(), |x| format!("{x:.3}")),
            s.bound.to_string(),
            rule,
        ]);
    }
    let mut out: String = crate::units::aligned(&table, 1).into_iter().map(|l| l + "\n").collect();
    out += &format!(
        "ratios good / bad, one per run; margin rule: halfway between the largest ratio and 1.0, rounded up to the \
         next hundredth, from at least {min_runs} judged runs (replace the bound in the case table's lesson with it, \
         these figures in its comment)\n"
    );
    out
}

#[cfg(test)]
mod tests {
    use crate::lesson_record::tests::row;

    /// Golden: two lessons, one with enough runs for the rule (figures made up for the test).
    #[test]
    fn the_series_table_gives_the_margin_rule_only_from_enough_runs() {
        let mut rows: Vec<_> =
            (0..10).map(|i| row("a/g_vs_b/1", "holds", Some([0.60 + 0.001 * f64::from(i), 0.59, 0.62]))).collect();
        rows.push(row("t/p_vs_q/2", "invalid", None));
        rows.push(row("t/p_vs_q/2", "holds", Some([0.2, 0.19, 0.21])));
        let text = super::series(&crate::lesson_record::series(&rows), 10);
        let expected = "  lesson trial            runs  GPUs    min  median    max  top of CI  bound       margin rule
  a/g_vs_b/1                10     1  0.600   0.605  0.609      0.620   0.83              0.81
  t/p_vs_q/2    2 (1 unjudged)     1  0.200   0.200  0.200      0.210   0.83  - (1 of 10 runs)
";
        assert!(text.starts_with(expected), "{text}");
        assert!(text.ends_with("these figures in its comment)\n"), "{text}");
    }

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
lessons (same-run ratio good / bad, median of the pairs, 95 % CI; bounds in the case table's lessons):
  holds    launch/graph_vs_one_by_one/4096x8                  0.658  [0.651, 0.665]  <= 0.83  812 pairs
  BROKEN   transfers/pipeline_4_streams_vs_1_stream/16777216  0.910  [0.900, 0.920]   <= 0.8     1 pair
  INVALID  transfers/h2d_pinned_vs_pageable/16777216              -               -  <= 0.83  812 pairs
";
        assert_eq!(super::lessons(&rows), expected);
        assert_eq!(super::lessons(&[]), "");
    }
}
