//! Alerts: what a watch's check found (a rule fired, the watch broke or
//! recovered) or what `notify_send` was asked to say. Each is a row, once:
//! `UNIQUE (watch_id, rule, value)` is the idempotency key, so a check re-run
//! after a crash never alerts twice. `sent_at` says the native notification
//! went out (NULL: still to send, picked up by the next pass); `read_at`
//! says the user saw it in the panel's inbox (NULL: counted as unread).

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};

use crate::error::Result;
use crate::store::{Store, now};

/// Where an alert goes: a native notification (and the inbox), or the inbox only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "kebab-case")]
#[sqlx(rename_all = "kebab-case")]
pub enum AlertChannel {
    Push,
    InApp,
}

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AlertRow {
    pub id: i64,
    pub watch_id: Option<String>,
    pub observation_id: Option<i64>,
    pub rule: String,
    pub value: String,
    pub title: String,
    pub body: String,
    pub url: Option<String>,
    pub channel: AlertChannel,
    pub created_at: String,
    pub sent_at: Option<String>,
    pub delivered: Option<bool>,
    pub read_at: Option<String>,
    /// The id the notification daemon gave it, and the daemon's unique bus name.
    pub notification_id: Option<i64>,
    pub notify_daemon: Option<String>,
    /// The notification button pressed (`open`, `snooze`, `stop`), once.
    pub action: Option<String>,
    pub action_at: Option<String>,
    /// The routine whose scheduled replay this is the result of.
    pub routine_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewAlert {
    pub watch_id: Option<String>,
    pub rule: String,
    pub value: String,
    pub title: String,
    pub body: String,
    pub url: Option<String>,
    pub channel: AlertChannel,
    /// A scheduled replay's result: its routine.
    pub routine_id: Option<String>,
}

/// Accessor for the `watch_alerts` table.
pub struct WatchAlerts<'a> {
    store: &'a Store,
}

impl Store {
    pub fn watch_alerts(&self) -> WatchAlerts<'_> {
        WatchAlerts { store: self }
    }
}

/// Inserts `alert` in `tx` unless its key is already there: `None` then
/// (it was alerted before). In-app alerts need no sending: they are sent at once.
pub(crate) async fn insert_in(
    tx: &mut Transaction<'static, Sqlite>,
    observation_id: Option<i64>,
    alert: &NewAlert,
) -> Result<Option<AlertRow>> {
    let at = now();
    let sent = (alert.channel == AlertChannel::InApp).then_some(at.as_str());
    Ok(sqlx::query_as(
        "INSERT INTO watch_alerts (watch_id, observation_id, rule, value, title, body, url, channel, created_at,
             sent_at, delivered, routine_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (watch_id, rule, value) DO NOTHING RETURNING *",
    )
    .bind(alert.watch_id.as_deref())
    .bind(observation_id)
    .bind(&alert.rule)
    .bind(&alert.value)
    .bind(&alert.title)
    .bind(&alert.body)
    .bind(alert.url.as_deref())
    .bind(alert.channel)
    .bind(&at)
    .bind(sent)
    .bind(sent.map(|_| true))
    .bind(alert.routine_id.as_deref())
    .fetch_optional(&mut **tx)
    .await?)
}

impl WatchAlerts<'_> {
    /// Records one alert in its own transaction; `None` when its key exists.
    pub async fn insert(&self, alert: &NewAlert) -> Result<Option<AlertRow>> {
        let mut tx = self.store.begin_write().await?;
        let row = insert_in(&mut tx, None, alert).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Push alerts whose notification has not gone out yet, oldest first.
    pub async fn unsent(&self) -> Result<Vec<AlertRow>> {
        Ok(sqlx::query_as("SELECT * FROM watch_alerts WHERE sent_at IS NULL ORDER BY id")
            .fetch_all(self.store.pool())
            .await?)
    }

    /// The notification went out (or could not: `delivered` false); either
    /// way it is not tried again. False when another pass marked it first.
    pub async fn mark_sent(&self, id: i64, delivered: bool) -> Result<bool> {
        Ok(self.claim(&[(id, delivered)]).await?.first().copied().unwrap_or(false))
    }

    /// Claim these alerts (`(id, delivered)`: see [`WatchAlerts::mark_sent`])
    /// in one durable transaction, before their notifications go out: a
    /// crash, even a power loss, after a notification was shown can never
    /// show it again. Which ones this call claimed (another pass may have
    /// claimed some first).
    pub async fn claim(&self, alerts: &[(i64, bool)]) -> Result<Vec<bool>> {
        if alerts.is_empty() {
            return Ok(Vec::new());
        }
        let at = now();
        let mut tx = self.store.begin_durable().await?;
        let mut claimed = Vec::with_capacity(alerts.len());
        for (id, delivered) in alerts {
            let done =
                sqlx::query("UPDATE watch_alerts SET sent_at = ?2, delivered = ?3 WHERE id = ?1 AND sent_at IS NULL")
                    .bind(id)
                    .bind(&at)
                    .bind(delivered)
                    .execute(&mut *tx)
                    .await?;
            claimed.push(done.rows_affected() == 1);
        }
        tx.commit().await?;
        Ok(claimed)
    }

    /// These alerts' notifications were shown: their ids, for their buttons.
    pub async fn mark_shown(&self, shown: &[(i64, Shown)]) -> Result<()> {
        if shown.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin_write().await?;
        for (id, s) in shown {
            sqlx::query(
                "UPDATE watch_alerts SET delivered = 1, notification_id = ?2, notify_daemon = ?3 WHERE id = ?1",
            )
            .bind(id)
            .bind(i64::from(s.id))
            .bind(&s.daemon)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Records that a button was pressed on the notification `id` of
    /// `daemon`; the alert it showed, or `None` when it is no alert of ours
    /// or a button was pressed on it already (by this or another process).
    pub async fn claim_action(&self, daemon: &str, id: u32, action: &str) -> Result<Option<AlertRow>> {
        Ok(sqlx::query_as(
            "UPDATE watch_alerts SET action = ?3, action_at = ?4
             WHERE id = (SELECT id FROM watch_alerts WHERE notify_daemon = ?1 AND notification_id = ?2
                         ORDER BY id DESC LIMIT 1)
               AND action IS NULL RETURNING *",
        )
        .bind(daemon)
        .bind(i64::from(id))
        .bind(action)
        .bind(now())
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .next())
    }

    /// The inbox: the latest `limit` alerts (of one watch, or all), newest first.
    pub async fn list(&self, watch_id: Option<&str>, limit: u32) -> Result<Vec<AlertRow>> {
        Ok(sqlx::query_as("SELECT * FROM watch_alerts WHERE ?1 IS NULL OR watch_id = ?1 ORDER BY id DESC LIMIT ?2")
            .bind(watch_id)
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// The panel's inbox: the latest `limit` alerts of every watch, unread
    /// first, newest first within each.
    pub async fn inbox(&self, limit: u32) -> Result<Vec<AlertRow>> {
        Ok(sqlx::query_as("SELECT * FROM watch_alerts ORDER BY read_at IS NOT NULL, id DESC LIMIT ?1")
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Whether alert `id` exists.
    pub async fn exists(&self, id: i64) -> Result<bool> {
        let found: Option<(i64,)> = sqlx::query_as("SELECT id FROM watch_alerts WHERE id = ?1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(found.is_some())
    }

    /// Alerts not read yet (the tray's count).
    pub async fn unread_count(&self) -> Result<i64> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM watch_alerts WHERE read_at IS NULL")
            .fetch_one(self.store.pool())
            .await?;
        Ok(n)
    }

    /// Marks alerts read (all of them with `None`); returns how many changed.
    pub async fn mark_read(&self, ids: Option<&[i64]>) -> Result<u64> {
        let at = now();
        let mut tx = self.store.begin_write().await?;
        let mut changed = 0;
        match ids {
            None => {
                changed += sqlx::query("UPDATE watch_alerts SET read_at = ?1 WHERE read_at IS NULL")
                    .bind(&at)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
            }
            Some(ids) => {
                for id in ids {
                    changed += sqlx::query("UPDATE watch_alerts SET read_at = ?2 WHERE id = ?1 AND read_at IS NULL")
                        .bind(id)
                        .bind(&at)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
            }
        }
        tx.commit().await?;
        Ok(changed)
    }
}

/// A notification the daemon showed: its id, and the daemon's unique bus
/// name (ids are the daemon's own; only that name's signals are about it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub id: u32,
    pub daemon: String,
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::store::test_support::open_temp;
    use crate::store::watches::tests::price_watch;

    fn alert(watch: &str, value: &str) -> NewAlert {
        NewAlert {
            watch_id: Some(watch.into()),
            rule: "price<=19990000".into(),
            value: value.into(),
            title: "Phone".into(),
            body: "21.490.000 ₫ → 19.990.000 ₫".into(),
            url: None,
            channel: AlertChannel::Push,
            routine_id: None,
        }
    }

    #[tokio::test]
    async fn the_key_is_unique_and_sending_and_reading_are_tracked() {
        let (_dir, store) = open_temp().await;
        let w = store.watches().create(&price_watch("2026-01-01T00:00:00.000Z")).await.unwrap();
        let a = store.watch_alerts().insert(&alert(&w.id, "19990000#1")).await.unwrap().unwrap();
        assert_eq!(store.watch_alerts().insert(&alert(&w.id, "19990000#1")).await.unwrap(), None);
        let b = store.watch_alerts().insert(&alert(&w.id, "19990000#2")).await.unwrap().unwrap();
        let in_app = NewAlert { channel: AlertChannel::InApp, watch_id: None, ..alert(&w.id, "x") };
        let c = store.watch_alerts().insert(&in_app).await.unwrap().unwrap();
        assert!(c.sent_at.is_some());
        let unsent: Vec<i64> = store.watch_alerts().unsent().await.unwrap().iter().map(|r| r.id).collect();
        assert_eq!(unsent, vec![a.id, b.id]);
        assert!(store.watch_alerts().mark_sent(a.id, true).await.unwrap());
        assert!(!store.watch_alerts().mark_sent(a.id, true).await.unwrap());
        assert_eq!(store.watch_alerts().unsent().await.unwrap().len(), 1);
        assert_eq!(store.watch_alerts().unread_count().await.unwrap(), 3);
        assert_eq!(store.watch_alerts().mark_read(Some(&[b.id])).await.unwrap(), 1);
        assert_eq!(store.watch_alerts().unread_count().await.unwrap(), 2);
        assert_eq!(store.watch_alerts().list(Some(&w.id), 10).await.unwrap().len(), 2);
        assert_eq!(store.watch_alerts().mark_read(None).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_button_acts_once_on_the_alert_its_daemon_showed() {
        let (_dir, store) = open_temp().await;
        let w = store.watches().create(&price_watch("2026-01-01T00:00:00.000Z")).await.unwrap();
        let a = store.watch_alerts().insert(&alert(&w.id, "1#1")).await.unwrap().unwrap();
        let shown = Shown { id: 7, daemon: ":1.4".into() };
        store.watch_alerts().mark_shown(&[(a.id, shown)]).await.unwrap();
        // Another daemon's notification 7, or an id nobody holds: not ours.
        assert_eq!(store.watch_alerts().claim_action(":1.9", 7, "stop").await.unwrap(), None);
        assert_eq!(store.watch_alerts().claim_action(":1.4", 8, "stop").await.unwrap(), None);
        let claimed = store.watch_alerts().claim_action(":1.4", 7, "stop").await.unwrap().unwrap();
        assert_eq!((claimed.id, claimed.action.as_deref(), claimed.delivered), (a.id, Some("stop"), Some(true)));
        // A second process hearing the same press does nothing.
        assert_eq!(store.watch_alerts().claim_action(":1.4", 7, "snooze").await.unwrap(), None);
    }
}
