//! The user's profile: dotted keys (`travel.passport.number`) holding JSON
//! values, read and written by the `user_profile_*` tools. Values under
//! sensitive keys (the gate's list plus the user's marked keys) and values
//! sensitive by their shape whatever their key (a card number, a phone
//! number, an email, an address: `crate::secrets::shapes`) are sealed
//! at rest with a key in the OS keyring ([`crate::secrets::sealed`]): the
//! database never holds them in plain text, and without a keyring they are
//! not stored. Plain values left by an older Halley are sealed at the
//! first access.

use std::collections::BTreeSet;

use serde_json::Value;
use sqlx::types::Json;

use crate::error::{Error, Result};
use crate::secrets::keys::{MARKED_KEYS, is_sensitive as is_sensitive_entry};
use crate::secrets::sealed;
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
        let row: Option<(String, Json<Value>)> = sqlx::query_as("SELECT key, value FROM profile WHERE key = ?1")
            .bind(key)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(self.opened(row.into_iter().collect()).await?.pop().map(|(_, v)| v))
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
        self.opened(rows).await
    }

    /// Every key, sorted.
    pub async fn all(&self) -> Result<Vec<(String, Value)>> {
        let rows: Vec<(String, Json<Value>)> =
            sqlx::query_as("SELECT key, value FROM profile ORDER BY key").fetch_all(self.store.pool()).await?;
        self.opened(rows).await
    }

    /// Rows as the caller reads them: sealed values opened. A sensitive
    /// value still in plain text (an older Halley's) is sealed now, when
    /// the keyring answers.
    async fn opened(&self, rows: Vec<(String, Json<Value>)>) -> Result<Vec<(String, Value)>> {
        if rows.iter().any(|(_, Json(v))| sealed::is_sealed(v)) {
            let sealer = self.store.sealer().await?;
            let mut out = Vec::with_capacity(rows.len());
            for (k, Json(v)) in rows {
                out.push((k, sealer.open(v)?));
            }
            return Ok(out);
        }
        let marked = self.marked().await?;
        if rows.iter().any(|(k, Json(v))| is_sensitive(k, v, &marked)) {
            match self.seal_plain(&marked).await {
                Ok(()) => {}
                Err(e) => tracing::warn!("sensitive profile values stay in plain text for now: {}", e.message()),
            }
        }
        Ok(rows.into_iter().map(|(k, Json(v))| (k, v)).collect())
    }

    /// The keys the user marked sensitive ([`MARKED_KEYS`]).
    async fn marked(&self) -> Result<Vec<String>> {
        let row: Option<(Json<Value>,)> = sqlx::query_as("SELECT value FROM profile WHERE key = ?1")
            .bind(MARKED_KEYS)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.map(|(Json(v),)| marked_list(&v)).unwrap_or_default())
    }

    /// Seal every sensitive value still stored in plain text.
    async fn seal_plain(&self, marked: &[String]) -> Result<()> {
        let rows: Vec<(String, Json<Value>)> =
            sqlx::query_as("SELECT key, value FROM profile").fetch_all(self.store.pool()).await?;
        let plain: Vec<(String, Value)> = rows
            .into_iter()
            .filter(|(k, Json(v))| !sealed::is_sealed(v) && is_sensitive(k, v, marked))
            .map(|(k, Json(v))| (k, v))
            .collect();
        if plain.is_empty() {
            return Ok(());
        }
        let sealer = self.store.sealer().await?;
        let mut tx = self.store.begin_write().await?;
        for (key, value) in &plain {
            sqlx::query("UPDATE profile SET value = ?2 WHERE key = ?1 AND value = ?3")
                .bind(key)
                .bind(Json(sealer.seal(value)?))
                .bind(Json(value))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Upsert `set` and delete `unset` in one transaction. Returns the unset
    /// keys that existed, sorted and without duplicates. A key may not be
    /// both set and unset. Sensitive values are sealed before they are
    /// written; without a keyring they are refused (`keyring`) and nothing
    /// of `set` is written.
    pub async fn apply(&self, set: &[(String, Value)], unset: &[String]) -> Result<Vec<String>> {
        let unset: BTreeSet<&str> = unset.iter().map(String::as_str).collect();
        if let Some((key, _)) = set.iter().find(|(k, _)| unset.contains(k.as_str())) {
            return Err(Error::invalid_arguments(format!("profile key {key:?} is both set and unset")));
        }
        if let Some((key, _)) = set.iter().find(|(k, _)| k.is_empty()) {
            return Err(Error::invalid_arguments(format!("profile key {key:?} is empty")));
        }
        let marked = match set.iter().find(|(k, _)| k == MARKED_KEYS) {
            Some((_, v)) => marked_list(v),
            None => self.marked().await?,
        };
        let mut stored = Vec::with_capacity(set.len());
        for (key, value) in set {
            let value = if is_sensitive(key, value, &marked) {
                self.store
                    .sealer()
                    .await
                    .map_err(|e| Error::new(e.code(), format!("`{key}` is sensitive: {}", e.message())))?
                    .seal(value)?
            } else {
                value.clone()
            };
            stored.push((key, value));
        }
        let at = now();
        let mut tx = self.store.begin_write().await?;
        for (key, value) in &stored {
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
        // Keys newly marked sensitive: their values are sealed now.
        if set.iter().any(|(k, _)| k == MARKED_KEYS) {
            self.seal_plain(&marked).await?;
        }
        Ok(removed)
    }
}

/// Whether a profile entry is sealed: by its key or its value, the rule
/// the gate reads too (the marked-keys list itself is not).
fn is_sensitive(key: &str, value: &Value, marked: &[String]) -> bool {
    key != MARKED_KEYS && is_sensitive_entry(key, value, marked)
}

/// The marked keys a [`MARKED_KEYS`] value lists.
fn marked_list(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::error::ErrorCode;
    use crate::gate::secrets::MARKED_KEYS;
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

    /// The raw stored text of `key`.
    async fn raw(store: &crate::store::Store, key: &str) -> String {
        let (v,): (String,) =
            sqlx::query_as("SELECT value FROM profile WHERE key = ?1").bind(key).fetch_one(store.pool()).await.unwrap();
        v
    }

    #[tokio::test]
    async fn sensitive_values_are_sealed_at_rest_and_read_back_plain() {
        let (_dir, store) = open_temp().await;
        let p = store.profile();
        p.apply(&[kv("travel.passport.number", json!("C9988776")), kv("name", json!("Nguyễn An"))], &[]).await.unwrap();
        let sealed = raw(&store, "travel.passport.number").await;
        assert!(!sealed.contains("C9988776") && sealed.contains("$sealed"), "{sealed}");
        assert_eq!(raw(&store, "name").await, "\"Nguyễn An\"");
        assert_eq!(p.get("travel.passport.number").await.unwrap(), Some(json!("C9988776")));
        assert_eq!(p.list_prefix("travel").await.unwrap(), vec![kv("travel.passport.number", json!("C9988776"))]);

        // A value an older Halley left in plain text is sealed at the first read.
        sqlx::query("INSERT INTO profile (key, value, updated_at) VALUES ('bank.iban', '\"VN12 3456\"', 'x')")
            .execute(store.pool())
            .await
            .unwrap();
        assert_eq!(p.get("bank.iban").await.unwrap(), Some(json!("VN12 3456")));
        assert!(!raw(&store, "bank.iban").await.contains("VN12"));

        // A key the user marks sensitive is sealed from then on.
        p.apply(&[kv("notes.visa", json!("E-visa 123"))], &[]).await.unwrap();
        p.apply(&[kv(MARKED_KEYS, json!(["notes.visa"]))], &[]).await.unwrap();
        assert!(!raw(&store, "notes.visa").await.contains("E-visa"));
        assert_eq!(p.get("notes.visa").await.unwrap(), Some(json!("E-visa 123")));
        // The database file itself holds none of them.
        store.close().await;
        let bytes = std::fs::read(store.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("C9988776") && !text.contains("VN12 3456") && !text.contains("E-visa 123"));
    }

    /// Values sensitive by their shape are sealed under any key, written
    /// now or left plain by an older Halley (sealed at the first read).
    #[tokio::test]
    async fn values_sensitive_by_their_shape_are_sealed_whatever_their_key() {
        let (_dir, store) = open_temp().await;
        let p = store.profile();
        p.apply(&[kv("misc.a", json!("4111 1111 1111 1111")), kv("misc.b", json!("Hà Nội"))], &[]).await.unwrap();
        assert!(raw(&store, "misc.a").await.contains("$sealed"));
        assert_eq!(raw(&store, "misc.b").await, "\"Hà Nội\"");
        for (key, value) in [
            ("shopping.delivery", "\"123 Nguyễn Huệ, Quận 1\""),
            ("contact.reach", "\"090 123 4567\""),
            ("contact.e-mail", "\"an.nguyen@example.vn\""),
        ] {
            sqlx::query("INSERT INTO profile (key, value, updated_at) VALUES (?1, ?2, 'x')")
                .bind(key)
                .bind(value)
                .execute(store.pool())
                .await
                .unwrap();
        }
        assert_eq!(p.get("contact.reach").await.unwrap(), Some(json!("090 123 4567")));
        for key in ["shopping.delivery", "contact.reach", "contact.e-mail"] {
            assert!(raw(&store, key).await.contains("$sealed"), "{key}");
        }
        assert_eq!(p.get("misc.a").await.unwrap(), Some(json!("4111 1111 1111 1111")));
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
