//! One metric cell's value ([`value`]) and the table's decimal separator: a value that reads
//! either way waits until the table shows which separator it uses ([`settle`]).

use super::{Building, DecimalState};
use crate::error::Result;
use crate::ncu::model::{Metric, MetricValue, Sink};
use crate::ncu::number::{Decimal, Number, read_number, read_scaled};

/// One metric value from `cell` into `slot`, in `unit` after scaling by `10^exp10` (the slot's unit
/// string is reused). A number shows the table's decimal separator (recorded in `shown` when it
/// is the first to); an ambiguous one is read by it, or waits in `pending` for [`settle`] while the
/// table has not shown it.
#[allow(clippy::too_many_arguments)]
pub(super) fn value(
    cell: &str,
    unit: &str,
    exp10: i32,
    line: usize,
    key: &str,
    shown: &mut Option<(Decimal, usize)>,
    pending: &mut Vec<(String, Number, usize, String)>,
    slot: &mut Metric,
) {
    let t = cell.trim_ascii();
    slot.value = if t.eq_ignore_ascii_case("n/a") {
        MetricValue::NotAvailable
    } else if super::super::parse::is_not_finite(t) {
        MetricValue::NotFinite(t.to_string())
    } else {
        match read_scaled(t, exp10) {
            Some(Number::Exact { value, shows }) => {
                if let (Some(d), None) = (shows, &shown) {
                    *shown = Some((d, line));
                }
                MetricValue::Number(value)
            }
            Some(n @ Number::Ambiguous { .. }) => match shown {
                Some((d, _)) => MetricValue::Number(n.value(*d)),
                None => {
                    pending.push((key.to_string(), n, line, t.to_string()));
                    MetricValue::NotAvailable // settled with the kernel
                }
            },
            None => MetricValue::Text(t.to_string()),
        }
    };
    slot.unit.clear();
    slot.unit.push_str(unit);
}

/// Reads the kernel's waiting values by the table's decimal separator (a decimal point, with a
/// warning, where nothing in the table has shown it yet).
pub(super) fn settle(kernel: &mut Building, decimal: &mut DecimalState, sink: &mut dyn Sink) -> Result<()> {
    if let (Some((Decimal::Comma, line)), Some((at, text)), false) =
        (decimal.shown, &decimal.assumed, decimal.conflict_warned)
    {
        decimal.conflict_warned = true;
        sink.warning(format!(
            "line {line}: this value has a decimal comma, but ambiguous values earlier in this table (first \
             {text:?} on line {at}) were read with a decimal point, since no value before them showed the \
             table's decimal separator; if the table uses decimal commas, those values are off by a factor of \
             1000. Print the capture with a decimal point (ncu in the C or an English locale) to be sure."
        ))?;
    }
    for (key, number, line, text) in kernel.ambiguous.drain(..) {
        let separator = match decimal.shown {
            Some((d, _)) => d,
            None => {
                if decimal.assumed.is_none() {
                    let printed = read_number(&text).unwrap_or(number); // the readings before the unit's factor
                    let (point, comma) = (printed.value(Decimal::Point), printed.value(Decimal::Comma));
                    sink.warning(format!(
                        "line {line}: {text:?} is {point} where `.` is the decimal separator and {comma} where `,` \
                         is, and no value of this table before it (nor of its kernel) shows which the table uses; \
                         it was read as {point} (a decimal point, as ncu prints in the C and English locales), and \
                         so are the table's other such values until one shows the separator."
                    ))?;
                    decimal.assumed = Some((line, text));
                }
                Decimal::Point
            }
        };
        if let Some(m) = kernel.record.metrics.get_mut(&key) {
            m.value = MetricValue::Number(number.value(separator));
        }
    }
    Ok(())
}
