//! The run's final answer as a template: each value the run read (a price
//! the extraction returned, a status read as text) and wrote in its answer
//! becomes a slot, filled at each replay with what the same step reads
//! then, written the way the answer wrote it (`21.490.000` stays grouped
//! with dots).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The answer with `{{slot.N}}` where a value read by a step stood.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    pub text: String,
    pub slots: Vec<Slot>,
}

/// Where a slot's value is read at replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    /// The plan's step (0-based) whose result holds it.
    pub step: usize,
    /// JSON pointer into that step's `data` (`/data/price`).
    pub pointer: String,
    /// How the run's answer wrote it.
    pub recorded: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<NumberStyle>,
}

/// How a number was written: its grouping and decimal separators and how
/// many decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberStyle {
    pub group: Option<char>,
    pub decimal: char,
    pub decimals: usize,
}

/// One value a read step returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadValue {
    pub step: usize,
    pub pointer: String,
    pub value: Value,
}

/// Keys of a read's result that describe it rather than hold what was read.
const NOT_READ: &[&str] = &["confidence", "sources", "missing_fields", "notes", "flagged", "truncated"];

/// The scalar values of `data` (a read step's result), with their pointers.
pub fn collect(step: usize, data: &Value, out: &mut Vec<ReadValue>) {
    fn walk(step: usize, v: &Value, pointer: &mut String, out: &mut Vec<ReadValue>, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    if NOT_READ.contains(&k.as_str()) {
                        continue;
                    }
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    walk(step, v, pointer, out, budget);
                    pointer.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().take(200) {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    walk(step, v, pointer, out, budget);
                    pointer.truncate(len);
                }
            }
            Value::Number(_) => {
                *budget -= 1;
                out.push(ReadValue { step, pointer: pointer.clone(), value: v.clone() });
            }
            Value::String(s) if s.chars().count() <= 200 && s.trim().chars().count() >= 3 => {
                *budget -= 1;
                out.push(ReadValue { step, pointer: pointer.clone(), value: v.clone() });
            }
            _ => {}
        }
    }
    let mut budget = 2000;
    walk(step, data, &mut String::new(), out, &mut budget);
}

/// The template of `answer` over the values the steps read: the latest
/// read of a value wins (the run's answer quotes what it saw last).
pub fn build(answer: &str, values: &[ReadValue]) -> Template {
    let mut slots: Vec<Slot> = Vec::new();
    // Pieces of the answer: text, or a slot's index.
    let mut pieces: Vec<Result<String, usize>> = vec![Ok(answer.to_owned())];

    // Strings written verbatim in the answer, the longest first.
    let mut strings: Vec<&ReadValue> = values.iter().filter(|v| v.value.is_string()).collect();
    strings.sort_by_key(|v| std::cmp::Reverse(v.value.as_str().map_or(0, str::len)));
    for v in &strings {
        let s = v.value.as_str().unwrap_or_default();
        // A number's text (`21.490.000 ₫`) is matched as a number below.
        if s.chars().filter(char::is_ascii_digit).count() * 2 >= s.chars().count() {
            continue;
        }
        let latest = values.iter().rev().find(|w| w.value == v.value).unwrap_or(*v);
        split_on(&mut pieces, s, || {
            slots.push(Slot {
                step: latest.step,
                pointer: latest.pointer.clone(),
                recorded: s.to_owned(),
                number: None,
            });
            slots.len() - 1
        });
    }

    // Numbers: each written number that equals a number read.
    let mut out: Vec<Result<String, usize>> = Vec::new();
    for piece in pieces {
        let Ok(text) = piece else {
            out.push(piece);
            continue;
        };
        let mut at = 0;
        for (start, end, value, style) in numbers_in(&text) {
            let found = values.iter().rev().find(|v| number_of(&v.value).is_some_and(|n| same(n, value)));
            let Some(found) = found else { continue };
            out.push(Ok(text[at..start].to_owned()));
            slots.push(Slot {
                step: found.step,
                pointer: found.pointer.clone(),
                recorded: text[start..end].to_owned(),
                number: Some(style),
            });
            out.push(Err(slots.len() - 1));
            at = end;
        }
        out.push(Ok(text[at..].to_owned()));
    }
    let text = out
        .into_iter()
        .map(|p| match p {
            Ok(t) => t,
            Err(i) => format!("{{{{slot.{i}}}}}"),
        })
        .collect();
    Template { text, slots }
}

/// Split the text pieces on each occurrence of `needle`, standing alone.
fn split_on(pieces: &mut Vec<Result<String, usize>>, needle: &str, mut slot: impl FnMut() -> usize) {
    let mut index = None;
    let mut out = Vec::new();
    for piece in pieces.drain(..) {
        let Ok(text) = piece else {
            out.push(piece);
            continue;
        };
        let mut rest = text.as_str();
        while let Some(at) = find_alone(rest, needle) {
            out.push(Ok(rest[..at].to_owned()));
            let i = *index.get_or_insert_with(&mut slot);
            out.push(Err(i));
            rest = &rest[at + needle.len()..];
        }
        out.push(Ok(rest.to_owned()));
    }
    *pieces = out;
}

/// Where `needle` stands in `text` not glued to a letter or digit.
fn find_alone(text: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(needle).map(|a| a + from) {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return Some(at);
        }
        from = at + needle.len().max(1);
    }
    None
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

/// A read value as a number: a JSON number, or a short text that is one.
fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s.chars().count() <= 40 => {
            crate::vocab::number::parse_number(s).ok().filter(|(_, warnings)| warnings.is_empty()).map(|(n, _)| n)
        }
        _ => None,
    }
}

/// The numbers written in `text`: byte range, value, style. `21.490.000`,
/// `1,299.99`, `4,8`, `12`.
fn numbers_in(text: &str) -> Vec<(usize, usize, f64, NumberStyle)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while end < bytes.len() {
            let separator = matches!(bytes[end], b'.' | b',') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
            if !(bytes[end].is_ascii_digit() || separator) {
                break;
            }
            end += 1;
        }
        if bytes.get(end).is_some_and(u8::is_ascii_alphabetic) {
            i = end;
            continue;
        }
        let token = &text[start..end];
        if let Some((value, style)) = read_token(token) {
            out.push((start, end, value, style));
        }
        i = end;
    }
    out
}

/// A number token's value and style.
fn read_token(token: &str) -> Option<(f64, NumberStyle)> {
    let seps: Vec<(usize, char)> = token.char_indices().filter(|(_, c)| matches!(c, '.' | ',')).collect();
    let digits: String = token.chars().filter(char::is_ascii_digit).collect();
    let Some(&(last_at, last)) = seps.last() else {
        return Some((digits.parse().ok()?, NumberStyle { group: None, decimal: '.', decimals: 0 }));
    };
    let tail = token.len() - last_at - 1;
    let kinds: Vec<char> = seps.iter().map(|(_, c)| *c).collect();
    let all_same = kinds.iter().all(|c| *c == last);
    // One separator kind, every group of 3 digits, and either several of
    // them or a tail of 3: grouping (`21.490.000`, `1,250`).
    let grouped = all_same && tail == 3 && token.split(last).skip(1).all(|g| g.len() == 3);
    if grouped && (seps.len() > 1 || token.split(last).next().is_some_and(|h| h.len() <= 3)) {
        return Some((digits.parse().ok()?, NumberStyle { group: Some(last), decimal: other(last), decimals: 0 }));
    }
    if !all_same && kinds[..kinds.len() - 1].contains(&last) {
        return None;
    }
    let group = kinds.first().copied().filter(|c| *c != last);
    let int: String = token[..last_at].chars().filter(char::is_ascii_digit).collect();
    let value: f64 = format!("{int}.{}", &token[last_at + 1..]).parse().ok()?;
    Some((value, NumberStyle { group, decimal: last, decimals: tail }))
}

fn other(c: char) -> char {
    if c == '.' { ',' } else { '.' }
}

/// `value` written in `style`.
pub fn render_number(value: f64, style: NumberStyle) -> String {
    let negative = value < 0.0;
    let fixed = format!("{:.*}", style.decimals, value.abs());
    let (int, frac) = match fixed.split_once('.') {
        Some((i, f)) => (i.to_owned(), Some(f.to_owned())),
        None => (fixed, None),
    };
    let mut grouped = String::new();
    for (n, c) in int.chars().enumerate() {
        if let Some(g) = style.group.filter(|_| n > 0 && (int.len() - n) % 3 == 0) {
            grouped.push(g);
        }
        grouped.push(c);
    }
    let mut s = if negative { format!("-{grouped}") } else { grouped };
    if let Some(f) = frac {
        s.push(style.decimal);
        s.push_str(&f);
    }
    s
}

/// The answer with each slot filled from the replay's read results (by
/// plan step); a slot whose value is gone is written `?` and named in the
/// returned notes.
pub fn render(template: &Template, results: &[Option<Value>]) -> (String, Vec<String>) {
    let mut text = template.text.clone();
    let mut notes = Vec::new();
    for (i, slot) in template.slots.iter().enumerate() {
        let value = results.get(slot.step).and_then(Option::as_ref).and_then(|d| d.pointer(&slot.pointer));
        let written = match (value, slot.number) {
            (Some(v), Some(style)) => number_of(v).map(|n| render_number(n, style)),
            (Some(Value::String(s)), None) => Some(s.clone()),
            (Some(v), None) if !v.is_null() => Some(v.to_string()),
            _ => None,
        };
        let written = written.unwrap_or_else(|| {
            notes.push(format!(
                "step {} no longer returned the value the answer quoted as `{}` ({})",
                slot.step + 1,
                slot.recorded,
                slot.pointer
            ));
            "?".to_owned()
        });
        text = text.replace(&format!("{{{{slot.{i}}}}}"), &written);
    }
    (text, notes)
}

/// One value a replay's read step found, as the report carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadField {
    /// The plan's step, 1-based.
    pub step: usize,
    /// Where in the step's result: `price`, `items.1.name`.
    pub field: String,
    pub value: Value,
}

/// At most this many read values in a report.
const READ_LIMIT: usize = 12;

/// What the replay's read steps found (by plan step), for the report and
/// for an answer that quoted none of it.
pub fn read_fields(results: &[Option<Value>]) -> Vec<ReadField> {
    let mut values = Vec::new();
    for (step, data) in results.iter().enumerate() {
        if let Some(data) = data {
            collect(step, data, &mut values);
        }
    }
    values
        .into_iter()
        .filter(|v| !v.pointer.is_empty())
        .take(READ_LIMIT)
        .map(|v| ReadField {
            step: v.step + 1,
            field: {
                let path = v.pointer.trim_start_matches('/');
                let path = path.strip_prefix("data/").unwrap_or(path);
                path.replace('/', ".").replace("~1", "/").replace("~0", "~")
            },
            value: v.value,
        })
        .collect()
}

/// The read values as a Markdown list under `answer` (which quoted none
/// of them), numbers written the way the answer's language writes them
/// (`19.990.000` beside Vietnamese, `19,990,000` beside English).
pub fn with_read(answer: Option<&str>, read: &[ReadField]) -> Option<String> {
    if read.is_empty() {
        return answer.map(str::to_owned);
    }
    let text = answer.unwrap_or_default();
    let written: Vec<NumberStyle> = numbers_in(text).into_iter().map(|(_, _, _, s)| s).collect();
    let group = written.iter().find_map(|s| s.group).unwrap_or_else(|| {
        let vi = crate::search::locale::detect(text).is_some_and(|l| l.lang == "vi") || text.contains('₫');
        if vi { '.' } else { ',' }
    });
    let mut out = text.trim_end().to_owned();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    for f in read {
        let value = match &f.value {
            Value::Number(n) => {
                let v = n.as_f64().unwrap_or_default();
                let decimals = if v.fract() == 0.0 { 0 } else { n.to_string().split('.').nth(1).map_or(0, str::len) };
                let style =
                    NumberStyle { group: (v.abs() >= 10_000.0).then_some(group), decimal: other(group), decimals };
                render_number(v, style)
            }
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        out.push_str(&format!("- {}: {value}\n", f.field));
    }
    Some(out.trim_end().to_owned())
}
