//! Reading JSON out of a model's free text.

use serde_json::Value;

/// The first JSON object of a model's answer (after any `</think>`; from
/// at most 64 `{`), as the skills' language steps and model-assisted
/// extraction read it.
pub fn first_object(answer: &str) -> Option<Value> {
    let text = answer.rfind("</think>").map_or(answer, |i| &answer[i + "</think>".len()..]).trim();
    text.match_indices('{').take(64).find_map(|(i, _)| {
        match serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>().next() {
            Some(Ok(v @ Value::Object(_))) => Some(v),
            _ => None,
        }
    })
}
