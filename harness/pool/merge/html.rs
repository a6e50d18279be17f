//! The merged report as one self-contained HTML page ([`Merged::html`]).

use super::{Merged, Outcome, QUIET};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

impl Merged {
    /// One self-contained HTML page saying what the Markdown says, with nothing cut: the status,
    /// each GPU kind's jobs and counts, the shards missing, the trials not `unchanged` and why, then
    /// every trial (one column per GPU kind), its verdict told by word and colour ([`crate::report::ab::VERDICT_COLOURS`]).
    pub fn html(&self) -> String {
        use crate::report::html::{escape, page_start};
        let css = "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #d0d7de;\
                   text-align:left;vertical-align:top}.wrap{overflow-x:auto}";
        let mut out = page_start(&format!("kernelgate merge: {}", self.headline()), css);
        writeln!(out, "<h1>kernelgate merge: {}</h1>", escape(&self.headline())).unwrap();
        if let Some(compared) = self.compared() {
            writeln!(out, "<p>Compared: {}</p>", escape(&compared)).unwrap();
        }
        out.push_str("<ul>\n");
        for gpu in &self.gpus {
            let uuids: BTreeSet<&str> =
                self.jobs.iter().filter(|j| &j.gpu == gpu).map(|j| j.gpu_uuid.as_str()).collect();
            writeln!(
                out,
                "<li><b>{}</b>: {} (GPUs {})</li>",
                escape(gpu),
                escape(&self.gpu_line(gpu)),
                escape(&uuids.into_iter().collect::<Vec<_>>().join(", "))
            )
            .unwrap();
        }
        out.push_str("</ul>\n");
        if !self.missing.is_empty() {
            out.push_str("<h2>Did not report</h2>\n<p>Run these jobs again; missing is never a pass.</p>\n<ul>\n");
            for m in &self.missing {
                let line = Merged::missing_line(m);
                let (name, value) = line.split_once(": --partition ").unwrap_or((&line, ""));
                writeln!(
                    out,
                    "<li>{} {}: <code>--partition {}</code></li>",
                    escape(&m.gpu),
                    escape(name),
                    escape(value)
                )
                .unwrap();
            }
            out.push_str("</ul>\n");
        }
        for n in &self.notes {
            writeln!(out, "<p><em>{}</em></p>", escape(n)).unwrap();
        }
        let changed: Vec<(&String, &BTreeMap<String, Outcome>)> =
            self.trials.iter().filter(|(_, by)| by.values().any(|o| !QUIET.contains(&o.verdict.as_str()))).collect();
        let all: Vec<(&String, &BTreeMap<String, Outcome>)> = self.trials.iter().collect();
        for (title, rows) in [("Not unchanged", changed), ("Every trial (–: not reported on that GPU kind)", all)] {
            if !rows.is_empty() {
                writeln!(out, "<h2>{}</h2>", escape(title)).unwrap();
                self.html_table(&mut out, &rows);
            }
            let why = self.reasons();
            if title == "Not unchanged" && !why.is_empty() {
                out.push_str("<h3>Why</h3>\n<ul>\n");
                for line in &why {
                    writeln!(out, "<li>{}</li>", escape(line)).unwrap();
                }
                out.push_str("</ul>\n");
            }
        }
        out.push_str("</body>\n</html>\n");
        out
    }

    /// One table of `rows`: a trial per row, a GPU kind per column, each verdict by word and colour.
    fn html_table(&self, out: &mut String, rows: &[(&String, &BTreeMap<String, Outcome>)]) {
        use crate::report::html::escape;
        let colour = |v: &str| {
            let v = if v == "broken" { "regressed" } else { v };
            crate::report::ab::VERDICT_COLOURS.iter().find(|(name, _)| *name == v).map(|(_, c)| *c)
        };
        out.push_str("<div class=\"wrap\"><table>\n<tr><th>trial</th>");
        for g in &self.gpus {
            write!(out, "<th>{}</th>", escape(g)).unwrap();
        }
        out.push_str("</tr>\n");
        for (t, by) in rows {
            write!(out, "<tr><td>{}</td>", escape(t)).unwrap();
            for g in &self.gpus {
                let text = escape(&Merged::cell(by.get(g)));
                match by.get(g).and_then(|o| colour(&o.verdict)) {
                    Some(c) => write!(out, "<td style=\"color:{c}\"><b>{text}</b></td>").unwrap(),
                    None => write!(out, "<td>{text}</td>").unwrap(),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div>\n");
    }
}
