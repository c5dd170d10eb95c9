//! `user_profile_get` / `user_profile_set`: the user's preferences and
//! constraints as dotted keys (`travel.preferred_airlines`) with JSON values.

use std::collections::BTreeMap;

pub use crate::tools::catalogue::profile::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::Store;

/// Longest accepted key, in bytes.
const MAX_KEY_LEN: usize = 200;

/// A dotted key: non-empty segments of letters (any script, so Vietnamese
/// works), digits, `_` and `-`, joined by single dots.
fn check_key(key: &str) -> Result<()> {
    let ok = !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key
            .split('.')
            .all(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_arguments(format!(
            "invalid profile key {key:?}: use dotted names such as `travel.preferred_airlines` \
             (letters, digits, `_`, `-`; at most {MAX_KEY_LEN} bytes)"
        )))
    }
}

/// `user_profile_get`.
pub async fn get(store: &Store, args: UserProfileGetArgs) -> Result<UserProfileGetOutput> {
    let mut values = BTreeMap::new();
    let mut missing = Vec::new();
    match args.keys {
        None => values.extend(store.profile().all().await?),
        Some(keys) => {
            for key in &keys {
                check_key(key)?;
            }
            for key in keys {
                let found = store.profile().list_prefix(&key).await?;
                if found.is_empty() {
                    missing.push(key);
                } else {
                    values.extend(found);
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    let marked: Vec<String> = store
        .profile()
        .get(crate::gate::secrets::MARKED_KEYS)
        .await?
        .and_then(|v| v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()))
        .unwrap_or_default();
    let mut masked = Vec::new();
    // Sensitive by the key or by the value (a card number, a phone, an
    // email, an address under any key): the whole value is a placeholder,
    // which is what a browser tool fills in.
    for (key, value) in &mut values {
        if key != crate::gate::secrets::MARKED_KEYS && crate::gate::secrets::is_sensitive(key, value, &marked) {
            *value = Value::String(crate::gate::secrets::placeholder(key));
            masked.push(key.clone());
        }
    }
    Ok(UserProfileGetOutput { values, missing, masked })
}

/// `user_profile_set`: every change in one transaction.
pub async fn set(store: &Store, args: UserProfileSetArgs) -> Result<UserProfileSetOutput> {
    if args.set.is_empty() && args.unset.is_empty() {
        return Err(Error::invalid_arguments("nothing to change: `set` is empty and no `unset` keys were given"));
    }
    for key in args.set.keys().chain(args.unset.iter()) {
        check_key(key)?;
    }
    if let Some(both) = args.unset.iter().find(|k| args.set.contains_key(*k)) {
        return Err(Error::invalid_arguments(format!("key `{both}` is both in `set` and in `unset`")));
    }
    let entries: Vec<(String, Value)> = args.set.into_iter().collect();
    let mut removed = store.profile().apply(&entries, &args.unset).await?;
    removed.sort();
    let updated = entries.into_iter().map(|(k, _)| k).collect();
    Ok(UserProfileSetOutput { updated, removed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_checked() {
        assert!(check_key("travel.preferred_airlines").is_ok());
        assert!(check_key("sở_thích.hãng_bay").is_ok());
        assert!(check_key("shopping.budget-vnd").is_ok());
        for bad in ["", ".a", "a.", "a..b", "a b", "a/b", &"x".repeat(201)] {
            assert!(check_key(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[tokio::test]
    async fn set_then_get_by_key_and_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("halley.db")).await.unwrap();
        let args: UserProfileSetArgs = serde_json::from_value(json!({
            "set": {"travel.preferred_airlines": ["VN", "NH"], "shopping.budget_vnd": 25000000}
        }))
        .unwrap();
        let out = set(&store, args).await.unwrap();
        assert_eq!(out.updated, vec!["shopping.budget_vnd", "travel.preferred_airlines"]);

        let got = get(&store, UserProfileGetArgs { keys: Some(vec!["travel".into(), "nope".into()]) }).await.unwrap();
        assert_eq!(
            got,
            UserProfileGetOutput {
                values: BTreeMap::from([("travel.preferred_airlines".to_string(), json!(["VN", "NH"]))]),
                missing: vec!["nope".into()],
                masked: Vec::new(),
            }
        );

        let args = UserProfileSetArgs { set: BTreeMap::new(), unset: vec!["travel.preferred_airlines".into()] };
        assert_eq!(set(&store, args).await.unwrap().removed, vec!["travel.preferred_airlines"]);
        let all = get(&store, UserProfileGetArgs::default()).await.unwrap();
        assert_eq!(all.values, BTreeMap::from([("shopping.budget_vnd".to_string(), json!(25000000))]));
    }

    /// Keys the word list once missed, and values sensitive by their shape
    /// under any key, come back as placeholders; ordinary ones in clear.
    #[tokio::test]
    async fn sensitive_keys_and_values_come_back_as_placeholders() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("halley.db")).await.unwrap();
        let args: UserProfileSetArgs = serde_json::from_value(json!({"set": {
            "travel.passportNumber": "B7654321",
            "billing.cardNumber": "4111 1111 1111 1111",
            "contact.mobile": "0901234567",
            "contact.e-mail": "an.nguyen@example.vn",
            "dia_chi": "123 Nguyễn Huệ, Quận 1",
            "shopping.delivery.street": "Nguyễn Huệ",
            "misc.reach_me": "+84 90 123 4567",
            "misc.id": "079203001234",
            "shopping.budget_vnd": 25000000,
            "shopping.last_price": "21.490.000 ₫",
            "travel.city": "Đà Lạt"
        }}))
        .unwrap();
        set(&store, args).await.unwrap();
        let got = get(&store, UserProfileGetArgs::default()).await.unwrap();
        let hidden = [
            "billing.cardNumber",
            "contact.e-mail",
            "contact.mobile",
            "dia_chi",
            "misc.id",
            "misc.reach_me",
            "shopping.delivery.street",
            "travel.passportNumber",
        ];
        assert_eq!(got.masked, hidden);
        for key in hidden {
            assert_eq!(got.values[key], json!(format!("{{{{profile.{key}}}}}")), "{key}");
        }
        assert_eq!(got.values["shopping.budget_vnd"], json!(25000000));
        assert_eq!(got.values["shopping.last_price"], json!("21.490.000 ₫"));
        assert_eq!(got.values["travel.city"], json!("Đà Lạt"));
    }

    #[tokio::test]
    async fn bad_sets_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("halley.db")).await.unwrap();
        let empty = set(&store, UserProfileSetArgs::default()).await.unwrap_err();
        assert_eq!(empty.code(), crate::error::ErrorCode::InvalidArguments);
        let args = UserProfileSetArgs {
            set: BTreeMap::from([("ok.key".to_string(), json!(1)), ("bad key".to_string(), json!(2))]),
            unset: vec![],
        };
        assert!(set(&store, args).await.is_err());
        assert!(store.profile().all().await.unwrap().is_empty());
    }
}
