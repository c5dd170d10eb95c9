//! The `settings` table: the front end's settings as key → JSON value
//! (never secrets: those are in the OS keyring).

use serde_json::{Map, Value};
use sqlx::types::Json;

use crate::error::{Error, ErrorCode, Result};
use crate::protocol::Settings;
use crate::store::{Store, now};

/// Accessor for the `settings` table.
pub struct SettingsTable<'a> {
    store: &'a Store,
}

impl Store {
    pub fn settings(&self) -> SettingsTable<'_> {
        SettingsTable { store: self }
    }
}

impl SettingsTable<'_> {
    /// Every key with its value.
    pub async fn all(&self) -> Result<Map<String, Value>> {
        let rows: Vec<(String, Json<Value>)> =
            sqlx::query_as("SELECT key, value FROM settings ORDER BY key").fetch_all(self.store.pool()).await?;
        Ok(rows.into_iter().map(|(k, Json(v))| (k, v)).collect())
    }

    /// The value at `key`.
    pub async fn get(&self, key: &str) -> Result<Option<Value>> {
        let row: Option<(Json<Value>,)> = sqlx::query_as("SELECT value FROM settings WHERE key = ?1")
            .bind(key)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.map(|(Json(v),)| v))
    }

    /// Replace every setting with `values` in one transaction: keys absent
    /// from it, or null in it, are removed.
    pub async fn replace(&self, values: &Map<String, Value>) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM settings").execute(&mut *tx).await?;
        let at = now();
        for (key, value) in values.iter().filter(|(_, v)| !v.is_null()) {
            sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)")
                .bind(key)
                .bind(Json(value))
                .bind(&at)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// The saved settings (defaults when none were saved).
pub async fn load(store: &Store) -> Result<Settings> {
    let values = store.settings().all().await?;
    serde_json::from_value(Value::Object(values))
        .map_err(|e| Error::new(ErrorCode::Storage, "the saved settings cannot be read").with_source(e))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::store::test_support::open_temp;

    #[tokio::test]
    async fn settings_are_replaced_as_a_whole_and_nulls_dropped() {
        let (_dir, store) = open_temp().await;
        assert!(store.settings().all().await.unwrap().is_empty());
        let first = json!({"model": "qwen2.5:7b", "language": "vi", "autostart": true});
        store.settings().replace(first.as_object().unwrap()).await.unwrap();
        assert_eq!(store.settings().get("language").await.unwrap(), Some(json!("vi")));
        let second = json!({"model": null, "language": "en"});
        store.settings().replace(second.as_object().unwrap()).await.unwrap();
        assert_eq!(serde_json::Value::Object(store.settings().all().await.unwrap()), json!({"language": "en"}));
    }
}
