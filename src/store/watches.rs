//! Watches: a page value (price, stock, flight status) checked on a
//! schedule, with trigger rules. The scheduler asks for [`Watches::due`]
//! watches and records each check with [`Watches::record_observation`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::types::Json;

use crate::error::{Error, Result};
use crate::store::watch_alerts::{AlertRow, NewAlert};
use crate::store::watch_observations::ObservationRow;
use crate::store::{Store, new_id, now};
pub use crate::tools::catalogue::data::WatchHealth;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum WatchStatus {
    Active,
    Paused,
    /// Kept for its observations; never due again.
    Deleted,
}

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WatchRow {
    pub id: String,
    /// What is watched: `price`, `restock`, `trip`, ... (free text).
    pub kind: String,
    pub title: String,
    pub target_url: String,
    pub selector: Option<String>,
    #[sqlx(json)]
    pub trigger_rules: Value,
    pub frequency_secs: i64,
    pub next_check_at: String,
    pub last_checked_at: Option<String>,
    #[sqlx(json(nullable))]
    pub last_value: Option<Value>,
    pub status: WatchStatus,
    pub created_at: String,
    pub updated_at: String,
    /// Extra fields to extract (`{"status": "string"}`), beside price and stock.
    #[sqlx(json)]
    pub schema: Value,
    pub window_start: Option<String>,
    pub window_end: Option<String>,
    pub health: WatchHealth,
    pub consecutive_failures: i64,
    pub last_error: Option<String>,
    /// `http` or `browser`: how the last good check read the page.
    pub check_method: Option<String>,
    pub currency: Option<String>,
    pub baseline_price: Option<f64>,
    pub last_alerted_price: Option<f64>,
    pub all_time_low: Option<f64>,
    /// Each rule's armed state and firing count, by rule key.
    #[sqlx(json)]
    pub rule_state: Value,
    pub cooldown_secs: i64,
    pub last_alert_at: Option<String>,
    pub breaks: i64,
    /// Until then its alerts reach the inbox only (a notification's "Snooze 1 day").
    pub snoozed_until: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewWatch {
    pub kind: String,
    pub title: String,
    pub target_url: String,
    pub selector: Option<String>,
    pub trigger_rules: Value,
    pub frequency_secs: i64,
    /// The first check; `None` means now.
    pub first_check_at: Option<String>,
    pub schema: Value,
    pub window_start: Option<String>,
    pub window_end: Option<String>,
    pub cooldown_secs: i64,
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct NewObservation {
    /// When the check ran (RFC 3339, as [`now`] writes it); the next check
    /// is `frequency_secs` later.
    pub observed_at: String,
    /// The extracted value; `None` when extraction failed (`last_value`
    /// then keeps the previous value).
    pub value: Option<Value>,
    pub raw_text: Option<String>,
    pub triggered: bool,
    pub error: Option<String>,
    /// The typed reading (watch checks); `None` for plain observations.
    pub reading: Option<ObservedReading>,
}

/// The typed part of a watch check's observation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservedReading {
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub in_stock: Option<bool>,
    pub health: WatchHealth,
    pub method: Option<String>,
    /// The keys of the rules that fired.
    pub fired_rules: Vec<String>,
}

/// Everything one check changes, written in one transaction by
/// [`Watches::apply_check`]: the observation, the watch's state, the alerts.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckWrite {
    pub observation: NewObservation,
    pub health: WatchHealth,
    pub consecutive_failures: i64,
    pub last_error: Option<String>,
    pub check_method: Option<String>,
    pub currency: Option<String>,
    pub baseline_price: Option<f64>,
    pub last_alerted_price: Option<f64>,
    pub all_time_low: Option<f64>,
    pub rule_state: Value,
    pub last_alert_at: Option<String>,
    pub breaks: i64,
    pub alerts: Vec<NewAlert>,
    /// Added to the period before the next check, so watches of one site spread out.
    pub jitter_secs: i64,
}

/// What may be edited on a watch (`None`: unchanged).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WatchEdit {
    pub title: Option<String>,
    pub kind: Option<String>,
    pub selector: Option<Option<String>>,
    pub schema: Option<Value>,
    pub trigger_rules: Option<Value>,
    pub frequency_secs: Option<i64>,
    pub window: Option<(Option<String>, Option<String>)>,
    pub cooldown_secs: Option<i64>,
}

/// Accessor for the `watches` table.
pub struct Watches<'a> {
    store: &'a Store,
}

impl Store {
    pub fn watches(&self) -> Watches<'_> {
        Watches { store: self }
    }
}

/// `at` plus `secs`, formatted like [`now`].
pub(crate) fn add_secs(at: &str, secs: i64) -> Result<String> {
    let t = chrono::DateTime::parse_from_rfc3339(at)
        .map_err(|e| Error::invalid_arguments(format!("bad timestamp {at:?}")).with_source(e))?;
    let next = t.with_timezone(&chrono::Utc) + chrono::TimeDelta::seconds(secs);
    Ok(next.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

impl Watches<'_> {
    pub async fn create(&self, new: &NewWatch) -> Result<WatchRow> {
        let at = now();
        let mut tx = self.store.begin_durable().await?;
        let row = sqlx::query_as(
            "INSERT INTO watches (id, kind, title, target_url, selector, trigger_rules, frequency_secs,
                 next_check_at, status, created_at, updated_at, schema, window_start, window_end, cooldown_secs)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'active', ?9, ?9, ?10, ?11, ?12, ?13) RETURNING *",
        )
        .bind(new_id("watch"))
        .bind(&new.kind)
        .bind(&new.title)
        .bind(&new.target_url)
        .bind(new.selector.as_deref())
        .bind(Json(&new.trigger_rules))
        .bind(new.frequency_secs)
        .bind(new.first_check_at.as_deref().unwrap_or(&at))
        .bind(&at)
        .bind(Json(&new.schema))
        .bind(new.window_start.as_deref())
        .bind(new.window_end.as_deref())
        .bind(new.cooldown_secs)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    pub async fn get(&self, id: &str) -> Result<Option<WatchRow>> {
        Ok(sqlx::query_as("SELECT * FROM watches WHERE id = ?1").bind(id).fetch_optional(self.store.pool()).await?)
    }

    /// Watches not deleted, newest first.
    pub async fn list(&self, limit: u32) -> Result<Vec<WatchRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM watches WHERE status <> 'deleted' ORDER BY created_at DESC, rowid DESC LIMIT ?1",
        )
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Active watches whose next check is at or before `now` (a timestamp
    /// in [`now`]'s format), most overdue first.
    pub async fn due(&self, now: &str) -> Result<Vec<WatchRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM watches WHERE status = 'active' AND next_check_at <= ?1
                 AND (window_end IS NULL OR window_end >= ?1) ORDER BY next_check_at, rowid",
        )
        .bind(now)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Pause, resume or delete; `not_found` if there is no such watch.
    pub async fn set_status(&self, id: &str, status: WatchStatus) -> Result<WatchRow> {
        let row: Option<WatchRow> =
            sqlx::query_as("UPDATE watches SET status = ?2, updated_at = ?3 WHERE id = ?1 RETURNING *")
                .bind(id)
                .bind(status)
                .bind(now())
                .fetch_all(self.store.pool())
                .await?
                .into_iter()
                .next();
        row.ok_or_else(|| Error::not_found(format!("no watch {id}")))
    }

    /// Mutes the watch's notifications for `secs` from now (its alerts
    /// still reach the inbox); `not_found` for a deleted or unknown watch.
    pub async fn snooze(&self, id: &str, secs: i64) -> Result<WatchRow> {
        let at = now();
        let row: Option<WatchRow> = sqlx::query_as(
            "UPDATE watches SET snoozed_until = ?2, updated_at = ?3 WHERE id = ?1 AND status <> 'deleted' RETURNING *",
        )
        .bind(id)
        .bind(add_secs(&at, secs)?)
        .bind(&at)
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| Error::not_found(format!("no watch {id}")))
    }

    /// Every watch not deleted, oldest first (for export and `poll --all`).
    pub async fn all(&self) -> Result<Vec<WatchRow>> {
        Ok(sqlx::query_as("SELECT * FROM watches WHERE status <> 'deleted' ORDER BY created_at, rowid")
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Edit a watch (not a deleted one); `not_found` if there is none. A
    /// changed frequency moves the next check to now plus the new period
    /// at the latest.
    pub async fn update(&self, id: &str, edit: &WatchEdit) -> Result<WatchRow> {
        let mut tx = self.store.begin_write().await?;
        let Some(row): Option<WatchRow> = sqlx::query_as("SELECT * FROM watches WHERE id = ?1 AND status <> 'deleted'")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
        else {
            return Err(Error::not_found(format!("no watch {id}")));
        };
        let at = now();
        let next = match edit.frequency_secs {
            Some(f) => {
                let soonest = add_secs(&at, f)?;
                if soonest < row.next_check_at { soonest } else { row.next_check_at.clone() }
            }
            None => row.next_check_at.clone(),
        };
        let (window_start, window_end) = edit.window.clone().unwrap_or((row.window_start, row.window_end));
        let updated: WatchRow = sqlx::query_as(
            "UPDATE watches SET title = ?2, kind = ?3, selector = ?4, schema = ?5, trigger_rules = ?6,
                 frequency_secs = ?7, window_start = ?8, window_end = ?9, cooldown_secs = ?10,
                 next_check_at = ?11, updated_at = ?12
             WHERE id = ?1 RETURNING *",
        )
        .bind(id)
        .bind(edit.title.as_ref().unwrap_or(&row.title))
        .bind(edit.kind.as_ref().unwrap_or(&row.kind))
        .bind(edit.selector.clone().unwrap_or(row.selector))
        .bind(Json(edit.schema.as_ref().unwrap_or(&row.schema)))
        .bind(Json(edit.trigger_rules.as_ref().unwrap_or(&row.trigger_rules)))
        .bind(edit.frequency_secs.unwrap_or(row.frequency_secs))
        .bind(window_start)
        .bind(window_end)
        .bind(edit.cooldown_secs.unwrap_or(row.cooldown_secs))
        .bind(next)
        .bind(&at)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Record a watch's check in ONE transaction: the observation, the
    /// watch's new state (health, prices, rule states, schedule) and the
    /// alerts it caused (those whose key exists already are skipped).
    /// Returns the observation and the alerts newly recorded. `not_found`
    /// if there is no such watch (or it was deleted meanwhile).
    pub async fn apply_check(&self, watch_id: &str, write: &CheckWrite) -> Result<(ObservationRow, Vec<AlertRow>)> {
        let mut tx = self.store.begin_write().await?;
        let freq: Option<(i64,)> =
            sqlx::query_as("SELECT frequency_secs FROM watches WHERE id = ?1 AND status <> 'deleted'")
                .bind(watch_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((freq,)) = freq else {
            return Err(Error::not_found(format!("no watch {watch_id}")));
        };
        let obs = &write.observation;
        let next = add_secs(&obs.observed_at, freq + write.jitter_secs.clamp(0, freq))?;
        let row = insert_observation(&mut tx, watch_id, obs).await?;
        sqlx::query(
            "UPDATE watches SET last_checked_at = ?2, last_value = COALESCE(?3, last_value), next_check_at = ?4,
                 updated_at = ?5, health = ?6, consecutive_failures = ?7, last_error = ?8,
                 check_method = COALESCE(?9, check_method), currency = COALESCE(?10, currency),
                 baseline_price = ?11, last_alerted_price = ?12, all_time_low = ?13, rule_state = ?14,
                 last_alert_at = ?15, breaks = ?16
             WHERE id = ?1",
        )
        .bind(watch_id)
        .bind(&obs.observed_at)
        .bind(obs.value.as_ref().map(Json))
        .bind(&next)
        .bind(now())
        .bind(write.health)
        .bind(write.consecutive_failures)
        .bind(write.last_error.as_deref())
        .bind(write.check_method.as_deref())
        .bind(write.currency.as_deref())
        .bind(write.baseline_price)
        .bind(write.last_alerted_price)
        .bind(write.all_time_low)
        .bind(Json(&write.rule_state))
        .bind(write.last_alert_at.as_deref())
        .bind(write.breaks)
        .execute(&mut *tx)
        .await?;
        let mut alerts = Vec::new();
        for alert in &write.alerts {
            if let Some(a) = crate::store::watch_alerts::insert_in(&mut tx, Some(row.id), alert).await? {
                alerts.push(a);
            }
        }
        tx.commit().await?;
        Ok((row, alerts))
    }

    /// Record a check in one transaction: insert the observation, set
    /// `last_checked_at`, `last_value` (when a value was extracted) and
    /// `next_check_at`. `not_found` if there is no such watch.
    pub async fn record_observation(&self, watch_id: &str, obs: &NewObservation) -> Result<ObservationRow> {
        let mut tx = self.store.begin_write().await?;
        let freq: Option<(i64,)> = sqlx::query_as("SELECT frequency_secs FROM watches WHERE id = ?1")
            .bind(watch_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some((freq,)) = freq else {
            return Err(Error::not_found(format!("no watch {watch_id}")));
        };
        let next = add_secs(&obs.observed_at, freq)?;
        let row = insert_observation(&mut tx, watch_id, obs).await?;
        sqlx::query(
            "UPDATE watches SET last_checked_at = ?2, last_value = COALESCE(?3, last_value),
                 next_check_at = ?4, updated_at = ?5
             WHERE id = ?1",
        )
        .bind(watch_id)
        .bind(&obs.observed_at)
        .bind(obs.value.as_ref().map(Json))
        .bind(&next)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }
}

async fn insert_observation(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    watch_id: &str,
    obs: &NewObservation,
) -> Result<ObservationRow> {
    let typed = obs.reading.clone().unwrap_or_default();
    Ok(sqlx::query_as(
        "INSERT INTO watch_observations (watch_id, observed_at, value, raw_text, triggered, error, price, currency,
             in_stock, health, method, fired_rules)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING *",
    )
    .bind(watch_id)
    .bind(&obs.observed_at)
    .bind(obs.value.as_ref().map(Json))
    .bind(obs.raw_text.as_deref())
    .bind(obs.triggered)
    .bind(obs.error.as_deref())
    .bind(typed.price)
    .bind(typed.currency.as_deref())
    .bind(typed.in_stock)
    .bind(typed.health)
    .bind(typed.method.as_deref())
    .bind(Json(&typed.fired_rules))
    .fetch_one(&mut **tx)
    .await?)
}

#[cfg(test)]
pub(crate) mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    pub(crate) fn price_watch(first_check_at: &str) -> NewWatch {
        NewWatch {
            kind: "price".into(),
            title: "Phone".into(),
            target_url: "https://store.example/p/123".into(),
            selector: Some("#price".into()),
            trigger_rules: json!([{"op": "<=", "value": 19990000}]),
            frequency_secs: 6 * 3600,
            first_check_at: Some(first_check_at.into()),
            schema: json!({}),
            window_start: None,
            window_end: None,
            cooldown_secs: 3600,
        }
    }

    #[tokio::test]
    async fn create_list_due_and_status() {
        let (_dir, store) = open_temp().await;
        let w1 = store.watches().create(&price_watch("2026-01-01T00:00:00.000Z")).await.unwrap();
        let w2 = store.watches().create(&price_watch("2026-01-01T12:00:00.000Z")).await.unwrap();
        assert!(w1.id.starts_with("watch-"));
        assert_eq!((w1.status, w1.last_value.as_ref()), (WatchStatus::Active, None));
        assert_eq!(store.watches().get(&w1.id).await.unwrap(), Some(w1.clone()));
        assert_eq!(store.watches().list(10).await.unwrap(), vec![w2.clone(), w1.clone()]);

        let due = |t: &'static str| {
            let store = store.clone();
            async move { store.watches().due(t).await.unwrap().into_iter().map(|w| w.id).collect::<Vec<_>>() }
        };
        assert_eq!(due("2025-12-31T23:59:59.999Z").await, Vec::<String>::new());
        assert_eq!(due("2026-01-01T00:00:00.000Z").await, vec![w1.id.clone()]);
        assert_eq!(due("2026-01-02T00:00:00.000Z").await, vec![w1.id.clone(), w2.id.clone()]);

        store.watches().set_status(&w1.id, WatchStatus::Paused).await.unwrap();
        let w2 = store.watches().set_status(&w2.id, WatchStatus::Deleted).await.unwrap();
        assert_eq!(w2.status, WatchStatus::Deleted);
        assert_eq!(due("2026-01-02T00:00:00.000Z").await, Vec::<String>::new());
        assert_eq!(store.watches().list(10).await.unwrap().len(), 1);
        let err = store.watches().set_status("watch-none", WatchStatus::Active).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn a_window_ends_checks_and_edits_keep_what_is_not_given() {
        let (_dir, store) = open_temp().await;
        let new =
            NewWatch { window_end: Some("2026-01-01T06:00:00.000Z".into()), ..price_watch("2026-01-01T00:00:00.000Z") };
        let w = store.watches().create(&new).await.unwrap();
        let due = |t: &'static str| {
            let store = store.clone();
            async move { store.watches().due(t).await.unwrap().len() }
        };
        assert_eq!((due("2026-01-01T05:00:00.000Z").await, due("2026-01-01T07:00:00.000Z").await), (1, 0));

        let edit = WatchEdit { title: Some("Phone X".into()), frequency_secs: Some(60), ..WatchEdit::default() };
        let e = store.watches().update(&w.id, &edit).await.unwrap();
        assert_eq!((e.title.as_str(), e.frequency_secs, e.selector.as_deref()), ("Phone X", 60, Some("#price")));
        // A shorter period never pushes the next check later.
        assert_eq!(e.next_check_at, w.next_check_at);
        store.watches().set_status(&w.id, WatchStatus::Deleted).await.unwrap();
        let err = store.watches().update(&w.id, &edit).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn zero_frequency_is_rejected_by_the_schema() {
        let (_dir, store) = open_temp().await;
        let bad = NewWatch { frequency_secs: 0, ..price_watch("2026-01-01T00:00:00.000Z") };
        let err = store.watches().create(&bad).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Storage);
    }

    #[tokio::test]
    async fn record_observation_moves_the_schedule() {
        let (_dir, store) = open_temp().await;
        let w = store.watches().create(&price_watch("2026-01-01T00:00:00.000Z")).await.unwrap();
        let obs = NewObservation {
            observed_at: "2026-01-01T00:00:05.000Z".into(),
            value: Some(json!({"amount": 21000000, "currency": "VND"})),
            raw_text: Some("21.000.000₫".into()),
            triggered: false,
            error: None,
            reading: None,
        };
        let o = store.watches().record_observation(&w.id, &obs).await.unwrap();
        assert_eq!((o.watch_id.as_str(), o.triggered, o.value.as_ref()), (w.id.as_str(), false, obs.value.as_ref()));
        let w1 = store.watches().get(&w.id).await.unwrap().unwrap();
        assert_eq!(w1.next_check_at, "2026-01-01T06:00:05.000Z");
        assert_eq!(
            (w1.last_checked_at.as_deref(), w1.last_value.as_ref()),
            (Some("2026-01-01T00:00:05.000Z"), obs.value.as_ref())
        );

        // A failed extraction keeps the last value.
        let failed = NewObservation {
            observed_at: "2026-01-01T06:00:05.000Z".into(),
            value: None,
            raw_text: None,
            triggered: false,
            error: Some("selector not found".into()),
            reading: None,
        };
        store.watches().record_observation(&w.id, &failed).await.unwrap();
        let w2 = store.watches().get(&w.id).await.unwrap().unwrap();
        assert_eq!(
            (w2.next_check_at.as_str(), w2.last_value.as_ref()),
            ("2026-01-01T12:00:05.000Z", obs.value.as_ref())
        );

        let err = store.watches().record_observation("watch-none", &obs).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        let bad_time = NewObservation { observed_at: "yesterday".into(), ..obs };
        let err = store.watches().record_observation(&w.id, &bad_time).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
    }
}
