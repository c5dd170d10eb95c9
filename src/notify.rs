//! Native notifications from the core (the desktop's notification service,
//! `org.freedesktop.Notifications` over D-Bus, through notify-rust), so the
//! CLI notifies as well as the desktop app. Alerts go out through
//! [`deliver_pending`]: every alert recorded but not sent yet, each once.

use notify_rust::Notification;

use crate::error::{Error, ErrorCode, Result};
use crate::store::Store;
use crate::store::watch_alerts::AlertChannel;

/// Held while a notification is being shown.
static SENDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The application name notifications carry.
pub const APP_NAME: &str = "Halley";

/// Shows one notification; `Ok(false)` when there is no notification
/// service (no session bus, no daemon): the alert stays in the inbox.
pub async fn push(summary: &str, body: &str) -> Result<bool> {
    // One at a time: notification daemons handle concurrent `Notify` calls
    // badly (dunst: 50 in a row take 1.6 s, 50 at once over a minute).
    let _one = SENDING.lock().await;
    let (summary, body) = (summary.to_owned(), body.to_owned());
    let shown = tokio::task::spawn_blocking(move || {
        Notification::new().appname(APP_NAME).summary(&summary).body(&body).icon("halley").show().map(|_| ())
    })
    .await
    .map_err(|e| Error::new(ErrorCode::Internal, "the notification thread failed").with_source(e))?;
    match shown {
        Ok(()) => Ok(true),
        Err(e) => {
            tracing::warn!("no native notification ({e}); the alert is in the inbox");
            Ok(false)
        }
    }
}

/// Sends every push alert not sent yet, oldest first, and marks each sent
/// (delivered or not) so it never goes out twice. Returns how many were shown.
pub async fn deliver_pending(store: &Store) -> Result<usize> {
    let mut shown = 0;
    for alert in store.watch_alerts().unsent().await? {
        if alert.channel != AlertChannel::Push {
            store.watch_alerts().mark_sent(alert.id, true).await?;
            continue;
        }
        // Claimed first: a pass running beside this one does not send it too.
        if !store.watch_alerts().mark_sent(alert.id, false).await? {
            continue;
        }
        let delivered = push(&alert.title, &alert.body).await?;
        if delivered {
            sqlx::query("UPDATE watch_alerts SET delivered = 1 WHERE id = ?1")
                .bind(alert.id)
                .execute(store.pool())
                .await?;
            shown += 1;
        }
    }
    Ok(shown)
}
