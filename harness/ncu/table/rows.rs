//! A table's kernel rows: a raw page's row (a whole kernel), a details page's row (one metric of
//! the current kernel, or the first row of the next), and the check that kernels come in ncu's
//! `ID` order.

use super::values::{settle, value};
use super::{Building, Page, Parser, Table};
use crate::error::Result;
use crate::ncu::fields::Fields;
use crate::ncu::model::{Metric, MetricValue, ncu_error};
use crate::ncu::units::read_unit_exponent;
use std::path::Path;

impl<'a> Parser<'a> {
    /// A raw page's kernel row: a whole kernel. A row with every column overwrites the record of
    /// the previous such row (same metric names), so that a row allocates nothing.
    pub(super) fn raw_row(&mut self, line: usize) -> Result<()> {
        let table = self.table.as_mut().expect("a table");
        check_order(table, &self.fields, line, self.origin)?;
        let Page::Raw { columns, sorted, reuse } = &mut table.page else { unreachable!("a raw page") };
        let complete = columns.last().is_none_or(|c| c.index < self.fields.len());
        let mut kernel = match (reuse.take(), &sorted) {
            (Some(k), Some(_)) if complete => k,
            _ => Building { record: table.columns.kernel(&self.fields, table.capture), ambiguous: Vec::new() },
        };
        table.columns.fill(&self.fields, table.capture, &mut kernel.record);
        kernel.ambiguous.clear();
        let metrics = &mut kernel.record.metrics;
        match sorted {
            Some(sorted) if complete && metrics.len() == columns.len() => {
                for (slot, column) in metrics.values_mut().zip(sorted.iter().map(|&c| &columns[c])) {
                    let cell = self.fields.cell(column.index);
                    let (shown, pending) = (&mut table.decimal.shown, &mut kernel.ambiguous);
                    value(cell, &column.unit, column.exp10, line, &column.name, shown, pending, slot);
                }
            }
            _ => {
                metrics.clear();
                for column in columns.iter() {
                    if let Some(cell) = self.fields.get(column.index) {
                        let mut slot = Metric { value: MetricValue::NotAvailable, unit: String::new() };
                        let (shown, pending) = (&mut table.decimal.shown, &mut kernel.ambiguous);
                        value(cell, &column.unit, column.exp10, line, &column.name, shown, pending, &mut slot);
                        metrics.insert(column.name.clone(), slot);
                    }
                }
            }
        }
        settle(&mut kernel, &mut table.decimal, self.sink)?;
        table.kernels += 1;
        self.kernels += 1;
        self.sink.kernel(&kernel.record)?;
        if complete {
            *reuse = Some(kernel);
        }
        Ok(())
    }

    /// A details page's row: one metric (or a rule) of the current kernel, or the first row of the
    /// next kernel, which completes the current one.
    pub(super) fn details_row(&mut self, line: usize) -> Result<()> {
        let table = self.table.as_mut().expect("a table");
        let (id, process) = (self.fields.cell(0).trim(), table.columns.process(&self.fields));
        let same = table
            .current
            .as_ref()
            .is_some_and(|k| k.record.id == id && k.record.process.as_deref().unwrap_or("") == process);
        if !same {
            if let Some(mut done) = table.current.take() {
                settle(&mut done, &mut table.decimal, self.sink)?;
                table.kernels += 1;
                self.kernels += 1;
                self.sink.kernel(&done.record)?;
            }
            check_order(table, &self.fields, line, self.origin)?;
            let record = table.columns.kernel(&self.fields, table.capture);
            table.current = Some(Building { record, ambiguous: Vec::new() });
        }
        let Page::Details { name, value: value_column, unit, section } = table.page else { unreachable!("details") };
        let name = self.fields.cell(name).trim();
        let Some(cell) = self.fields.get(value_column).filter(|_| !name.is_empty()) else {
            return Ok(()); // a rule row, or a row cut short
        };
        let printed = unit.map_or("", |c| self.fields.cell(c));
        let known = read_unit_exponent(printed);
        if known.is_none() && self.unknown_units.insert(printed.trim().to_string()) {
            self.sink.warning(unknown_unit(line, printed, name))?;
        }
        let (unit, exp10) = known.unwrap_or_else(|| (printed.trim().to_string(), 0));
        let kernel = table.current.as_mut().expect("a kernel");
        let key = if kernel.record.metrics.contains_key(name) {
            let section = section.map_or("", |c| self.fields.cell(c)).trim();
            let key = format!("{section}: {name}");
            if self.renamed.insert(key.clone()) {
                self.sink.warning(format!(
                    "line {line}: kernel ID {id} already has a metric named {name:?}; this one, from section \
                     {section:?}, is kept as {key:?} (likewise for every kernel)"
                ))?;
            }
            if kernel.record.metrics.contains_key(&key) {
                return Ok(());
            }
            key
        } else {
            name.to_string()
        };
        let mut metric = Metric { value: MetricValue::NotAvailable, unit: String::new() };
        value(cell, &unit, exp10, line, &key, &mut table.decimal.shown, &mut kernel.ambiguous, &mut metric);
        kernel.record.metrics.insert(key, metric);
        Ok(())
    }
}

/// Checks that the kernel starting at `row` comes after the previous kernel of its process in
/// ncu's `ID` order (when IDs are numbers), and records it.
fn check_order(table: &mut Table, row: &Fields, line: usize, origin: &Path) -> Result<()> {
    let Ok(id) = row.cell(0).trim().parse::<u64>() else { return Ok(()) };
    let process = table.columns.process(row);
    if let Some(&(previous, previous_line)) = table.last_ids.get(process)
        && id <= previous
    {
        let whose = if process.is_empty() { String::new() } else { format!(" of process {process}") };
        let message = format!(
            "kernel ID {id}{whose} comes after ID {previous} (line {previous_line}) in the same table: ncu prints \
             kernels in increasing ID order, each kernel's rows together, so this file was reordered or edited, or \
             holds several captures without a header line before each. Keep ncu's order (print the capture again, \
             e.g. `ncu --import REPORT --csv`), or put each capture's header line before its rows."
        );
        return Err(ncu_error(origin, Some(line), message));
    }
    if let Some(last) = table.last_ids.get_mut(process) {
        *last = (id, line);
    } else {
        table.last_ids.insert(process.to_string(), (id, line));
    }
    Ok(())
}

/// The warning for a unit [`read_unit_exponent`] does not know.
pub(super) fn unknown_unit(line: usize, printed: &str, metric: &str) -> String {
    format!(
        "line {line}: unit {:?} (metric {metric:?}) is not one kernelgate knows, so its values are kept as \
         printed, unscaled (likewise for every metric in it); print the capture with `--print-units base` for \
         base units.",
        printed.trim()
    )
}
