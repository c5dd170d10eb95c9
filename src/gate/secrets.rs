//! The user's sensitive values as the gate reads them from the store (the
//! rules that recognise them are `crate::secrets::keys`).

use serde_json::Value;

use crate::error::Result;
pub use crate::secrets::keys::*;
use crate::store::Store;

/// The sensitive values in the user's profile, as strings (numbers too),
/// one per scalar (arrays are flattened), then those of the client-tool
/// results marked sensitive that the core keeps now.
pub async fn secret_values(store: &Store) -> Result<Vec<SecretValue>> {
    let mut out = profile_values(store).await?;
    out.extend(store.sensitive_results().values());
    Ok(out)
}

/// The sensitive values in the user's profile alone.
pub async fn profile_values(store: &Store) -> Result<Vec<SecretValue>> {
    let all = store.profile().all().await?;
    let marked: Vec<String> = all
        .iter()
        .find(|(k, _)| k == MARKED_KEYS)
        .and_then(|(_, v)| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (key, value) in all {
        if key == MARKED_KEYS || !is_sensitive_key(&key, &marked) {
            continue;
        }
        collect(&key, &value, &mut out);
    }
    Ok(out)
}

fn collect(key: &str, value: &Value, out: &mut Vec<SecretValue>) {
    match value {
        Value::String(s) if !s.trim().is_empty() => out.push(SecretValue::profile(key, s.clone())),
        Value::Number(n) => out.push(SecretValue::profile(key, n.to_string())),
        Value::Array(items) => items.iter().for_each(|v| collect(key, v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| collect(&format!("{key}.{k}"), v, out)),
        _ => {}
    }
}
