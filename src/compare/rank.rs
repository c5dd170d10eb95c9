//! Ranking: the keys (given or default), the order of two items, and the
//! reason each ranked item sits above the next.

use std::cmp::Ordering;

use serde_json::Value;

use super::finish::Finished;
use super::target::{Kind, Wanted};
use super::types::{NormalizeCompareArgs, SortOrder};
use crate::error::{Error, Result};

/// The ranking keys: (target index, direction).
pub(super) fn resolve_rank_keys(args: &NormalizeCompareArgs, targets: &[Wanted]) -> Result<Vec<(usize, SortOrder)>> {
    let Some(keys) = &args.rank_by else {
        let mut keys: Vec<(usize, SortOrder)> =
            targets.iter().enumerate().filter_map(|(i, t)| t.default_order().map(|o| (i, o))).collect();
        keys.sort_by_key(|(i, _)| targets[*i].default_priority());
        return Ok(keys);
    };
    let mut out: Vec<(usize, SortOrder)> = Vec::new();
    for key in keys {
        let Some(i) = targets.iter().position(|t| t.name == key.field) else {
            let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" is not in the schema ({})",
                key.field,
                names.join(", ")
            )));
        };
        if out.iter().any(|(j, _)| *j == i) {
            return Err(Error::invalid_arguments(format!("rank_by names \"{}\" twice", key.field)));
        }
        if targets[i].kind == Kind::Text {
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" is a string; only number, integer and boolean fields can be ranked",
                key.field
            )));
        }
        let Some(order) = key.order.or_else(|| targets[i].default_order()) else {
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" has no default direction; give \"order\": \"asc\" or \"desc\"",
                key.field
            )));
        };
        out.push((i, order));
    }
    Ok(out)
}

pub(super) fn cmp_items(a: &Finished, b: &Finished, keys: &[(usize, SortOrder)]) -> Ordering {
    for &(i, order) in keys {
        let ord = match (a.nums[i], b.nums[i]) {
            (Some(x), Some(y)) => match order {
                SortOrder::Asc => x.total_cmp(&y),
                SortOrder::Desc => y.total_cmp(&x),
            },
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

fn show_field(item: &Finished, targets: &[Wanted], i: usize) -> String {
    match item.out.normalized.get(&targets[i].name) {
        Some(Value::Bool(b)) => (if *b { "yes" } else { "no" }).to_string(),
        Some(v) => v.to_string(),
        None => "null".to_string(),
    }
}

/// Why `a` ranks above `next` (or `a`'s values when it is last).
pub(super) fn reason(a: &Finished, next: Option<&Finished>, targets: &[Wanted], keys: &[(usize, SortOrder)]) -> String {
    let Some(b) = next else {
        let parts: Vec<String> = keys
            .iter()
            .map(|&(i, _)| match a.nums[i] {
                Some(_) => format!("{} {}", targets[i].name, show_field(a, targets, i)),
                None => format!("no {}", targets[i].name),
            })
            .collect();
        return parts.join(", ");
    };
    let other = &b.out.source;
    let mut tied = Vec::new();
    for &(i, order) in keys {
        let name = &targets[i].name;
        let decisive = match (a.nums[i], b.nums[i]) {
            (Some(x), Some(y)) if x == y => {
                tied.push(name.as_str());
                continue;
            }
            (None, None) => continue,
            (Some(_), Some(_)) => {
                let word = if order == SortOrder::Asc { "lower" } else { "higher" };
                format!("{name} {} ({word} than {other}'s {})", show_field(a, targets, i), show_field(b, targets, i))
            }
            (Some(_), None) => format!("{name} {} ({other} has none)", show_field(a, targets, i)),
            (None, Some(_)) => format!("no {name}"),
        };
        return if tied.is_empty() {
            decisive
        } else {
            format!("tied with {other} on {}; {decisive}", tied.join(", "))
        };
    }
    format!("tied with {other} on every ranking field; input order kept")
}
