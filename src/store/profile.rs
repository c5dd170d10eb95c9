//! The user's profile: dotted keys (`travel.passport.number`) holding JSON
//! values, read and written by the `user_profile_*` tools.

use std::collections::BTreeSet;

use serde_json::Value;
use sqlx::types::Json;

use crate::error::{Error, Result};
use crate::store::{Store, now};

/// Accessor for the `profile` table.
pub struct Profile<'a> {
    store: &'a Store,
}

impl Store {
    pub fn profile(&self) -> Profile<'_> {
        Profile { store: self }
    }
}

impl Profile<'_> {
    /// The value at exactly `key`.
    pub async fn get(&self, key: &str) -> Result<Option<Value>> {
        let row: Option<(Json<Value>,)> = sqlx::query_as("SELECT value FROM profile WHERE key = ?1")
            .bind(key)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.map(|(Json(v),)| v))
    }

    /// `prefix` itself and every key below it (`prefix.` ...), sorted by key.
    /// An empty prefix means every key.
    pub async fn list_prefix(&self, prefix: &str) -> Result<Vec<(String, Value)>> {
        if prefix.is_empty() {
            return self.all().await;
        }
        // substr/length instead of LIKE: no wildcard escaping to get wrong.
        let below = format!("{prefix}.");
        let rows: Vec<(String, Json<Value>)> = sqlx::query_as(
            "SELECT key, value FROM profile
             WHERE key = ?1 OR substr(key, 1, length(?2)) = ?2
             ORDER BY key",
        )
        .bind(prefix)
        .bind(&below)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(|(k, Json(v))| (k, v)).collect())
    }

    /// Every key, sorted.
    pub async fn all(&self) -> Result<Vec<(String, Value)>> {
        let rows: Vec<(String, Json<Value>)> =
            sqlx::query_as("SELECT key, value FROM profile ORDER BY key").fetch_all(self.store.pool()).await?;
        Ok(rows.into_iter().map(|(k, Json(v))| (k, v)).collect())
    }

    /// Upsert `set` and delete `unset` in one transaction. Returns the unset
    /// keys that existed, sorted and without duplicates. A key may not be
    /// both set and unset.
    pub async fn apply(&self, set: &[(String, Value)], unset: &[String]) -> Result<Vec<String>> {
        let unset: BTreeSet<&str> = unset.iter().map(String::as_str).collect();
        if let Some((key, _)) = set.iter().find(|(k, _)| unset.contains(k.as_str())) {
            return Err(Error::invalid_arguments(format!("profile key {key:?} is both set and unset")));
        }
        if let Some((key, _)) = set.iter().find(|(k, _)| k.is_empty()) {
            return Err(Error::invalid_arguments(format!("profile key {key:?} is empty")));
        }
        let at = now();
        let mut tx = self.store.begin_write().await?;
        for (key, value) in set {
            sqlx::query(
                "INSERT INTO profile (key, value, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            )
            .bind(key)
            .bind(Json(value))
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        let mut removed = Vec::new();
        for key in unset {
            let done = sqlx::query("DELETE FROM profile WHERE key = ?1").bind(key).execute(&mut *tx).await?;
            if done.rows_affected() > 0 {
                removed.push(key.to_string());
            }
        }
        tx.commit().await?;
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    fn kv(k: &str, v: serde_json::Value) -> (String, serde_json::Value) {
        (k.to_string(), v)
    }

    #[tokio::test]
    async fn apply_sets_unsets_and_reports_existing() {
        let (_dir, store) = open_temp().await;
        let p = store.profile();
        assert_eq!(p.get("name").await.unwrap(), None);
        let removed = p
            .apply(&[kv("name", json!("An")), kv("travel.seat", json!("aisle")), kv("travel", json!({"x": 1}))], &[])
            .await
            .unwrap();
        assert_eq!(removed, Vec::<String>::new());
        assert_eq!(p.get("name").await.unwrap(), Some(json!("An")));

        let removed = p
            .apply(&[kv("name", json!({"first": "An"}))], &["travel.seat".into(), "nope".into(), "travel.seat".into()])
            .await
            .unwrap();
        assert_eq!(removed, vec!["travel.seat".to_string()]);
        assert_eq!(p.all().await.unwrap(), vec![kv("name", json!({"first": "An"})), kv("travel", json!({"x": 1}))]);
    }

    #[tokio::test]
    async fn apply_rejects_conflicting_and_empty_keys() {
        let (_dir, store) = open_temp().await;
        let err = store.profile().apply(&[kv("a", json!(1))], &["a".into()]).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let err = store.profile().apply(&[kv("", json!(1))], &[]).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        assert_eq!(store.profile().all().await.unwrap(), vec![]);
    }

    #[tokio::test]
    async fn list_prefix_matches_key_and_children_only() {
        let (_dir, store) = open_temp().await;
        let p = store.profile();
        p.apply(
            &[
                kv("travel", json!(0)),
                kv("travel.seat", json!(1)),
                kv("travel.passport.no", json!(2)),
                kv("traveller", json!(3)),
                kv("a%b", json!(4)),
                kv("a%b.c", json!(5)),
                kv("axb.c", json!(6)),
                kv("a_b.c", json!(7)),
            ],
            &[],
        )
        .await
        .unwrap();
        assert_eq!(
            p.list_prefix("travel").await.unwrap(),
            vec![kv("travel", json!(0)), kv("travel.passport.no", json!(2)), kv("travel.seat", json!(1))]
        );
        assert_eq!(p.list_prefix("a%b").await.unwrap(), vec![kv("a%b", json!(4)), kv("a%b.c", json!(5))]);
        assert_eq!(p.list_prefix("a_b").await.unwrap(), vec![kv("a_b.c", json!(7))]);
        assert_eq!(p.list_prefix("").await.unwrap().len(), 8);
        assert_eq!(p.list_prefix("missing").await.unwrap(), vec![]);
    }
}
