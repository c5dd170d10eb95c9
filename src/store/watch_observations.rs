//! The history of a watch's checks: each extracted value, the raw text it
//! came from, and whether a trigger rule fired. Rows are written by
//! [`crate::store::watches::Watches::record_observation`].

use serde_json::Value;

use crate::error::Result;
use crate::store::Store;

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ObservationRow {
    pub id: i64,
    pub watch_id: String,
    pub observed_at: String,
    /// `None` when extraction failed.
    #[sqlx(json(nullable))]
    pub value: Option<Value>,
    pub raw_text: Option<String>,
    pub triggered: bool,
    pub error: Option<String>,
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub in_stock: Option<bool>,
    pub health: crate::store::watches::WatchHealth,
    pub method: Option<String>,
    /// Keys of the rules that fired.
    #[sqlx(json)]
    pub fired_rules: Value,
}

/// Accessor for the `watch_observations` table.
pub struct WatchObservations<'a> {
    store: &'a Store,
}

impl Store {
    pub fn watch_observations(&self) -> WatchObservations<'_> {
        WatchObservations { store: self }
    }
}

impl WatchObservations<'_> {
    /// A watch's latest `limit` observations, newest first.
    pub async fn for_watch(&self, watch_id: &str, limit: u32) -> Result<Vec<ObservationRow>> {
        Ok(sqlx::query_as("SELECT * FROM watch_observations WHERE watch_id = ?1 ORDER BY id DESC LIMIT ?2")
            .bind(watch_id)
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// The latest observation that extracted a value.
    pub async fn last_value(&self, watch_id: &str) -> Result<Option<ObservationRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM watch_observations WHERE watch_id = ?1 AND value IS NOT NULL ORDER BY id DESC LIMIT 1",
        )
        .bind(watch_id)
        .fetch_optional(self.store.pool())
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::store::test_support::open_temp;
    use crate::store::watches::NewObservation;
    use crate::store::watches::tests::price_watch;

    fn obs(at: &str, value: Option<serde_json::Value>, triggered: bool) -> NewObservation {
        NewObservation { observed_at: at.into(), value, raw_text: None, triggered, error: None, reading: None }
    }

    #[tokio::test]
    async fn for_watch_is_newest_first_and_cascades() {
        let (_dir, store) = open_temp().await;
        let w = store.watches().create(&price_watch("2026-01-01T00:00:00.000Z")).await.unwrap();
        let a = store
            .watches()
            .record_observation(&w.id, &obs("2026-01-01T00:00:00.000Z", Some(json!(3)), false))
            .await
            .unwrap();
        let b = store
            .watches()
            .record_observation(&w.id, &obs("2026-01-01T06:00:00.000Z", Some(json!(2)), true))
            .await
            .unwrap();
        let c = store.watches().record_observation(&w.id, &obs("2026-01-01T12:00:00.000Z", None, false)).await.unwrap();
        assert!(b.triggered);
        assert_eq!(store.watch_observations().for_watch(&w.id, 10).await.unwrap(), vec![c.clone(), b.clone(), a]);
        assert_eq!(store.watch_observations().for_watch(&w.id, 1).await.unwrap(), vec![c]);
        assert_eq!(store.watch_observations().last_value(&w.id).await.unwrap(), Some(b));

        sqlx::query("DELETE FROM watches WHERE id = ?1").bind(&w.id).execute(store.pool()).await.unwrap();
        assert_eq!(store.watch_observations().for_watch(&w.id, 10).await.unwrap(), vec![]);
        assert_eq!(store.watch_observations().last_value(&w.id).await.unwrap(), None);
    }
}
