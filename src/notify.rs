//! Native notifications from the core (the desktop's notification service,
//! `org.freedesktop.Notifications` over D-Bus), so the CLI notifies as well
//! as the desktop app. Alerts go out through [`deliver_pending`]: every
//! alert recorded but not sent yet, each once, over one persistent
//! connection ([`bus`]) with the watch's buttons (Open the page, Snooze 1
//! day, Stop watching); the id the daemon gave each is kept on the alert's
//! row, so a button pressed later acts on it (`host::actions`).

mod bus;
#[cfg(all(unix, not(target_os = "macos")))]
pub mod buttons;

use crate::error::Result;
use crate::store::Store;
pub use crate::store::watch_alerts::Shown;
use crate::store::watch_alerts::{AlertChannel, AlertRow};

/// The application name notifications carry.
pub const APP_NAME: &str = "Halley";

/// A notification to show: its buttons are `(key, label)` pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Note {
    pub summary: String,
    pub body: String,
    pub actions: Vec<(String, String)>,
}

/// A button pressed on a notification this process showed (or that a
/// daemon broadcast): `daemon` is the signal's sender, which the bus vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoked {
    pub daemon: String,
    pub id: u32,
    pub action: String,
}

/// Shows notes, all at once over the one connection (the daemon answers
/// them in order). Returns once every note is in the bus's hands; then the
/// daemon's answers: each note's id, `None` when it could not be shown (no
/// session bus, no daemon: the alert stays in the inbox).
pub async fn show_all(notes: Vec<Note>) -> impl Future<Output = Vec<Option<Shown>>> + Send + 'static {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let submitted: Vec<_> = notes.into_iter().map(bus::submit).collect();
        let mut answers = Vec::with_capacity(submitted.len());
        for s in submitted {
            // A note the bus thread could not send is answered at once.
            let _ = s.written.await;
            answers.push(s.answer);
        }
        async move { futures::future::join_all(answers).await.into_iter().map(|a| a.ok().flatten()).collect() }
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        let mut shown = Vec::with_capacity(notes.len());
        for note in notes {
            shown.push(other::show(note).await);
        }
        std::future::ready(shown)
    }
}

/// Shows one notification without buttons; `false` when it could not be shown.
pub async fn push(summary: &str, body: &str) -> Result<bool> {
    let note = Note { summary: summary.to_owned(), body: body.to_owned(), actions: Vec::new() };
    Ok(show_all(vec![note]).await.await.into_iter().next().flatten().is_some())
}

/// The buttons pressed from now on. A long-lived process (the desktop app,
/// `halley serve`, `halley watch run`) listens, and this starts its
/// connection to the bus at once, and a monitor of the bus that hears the
/// presses on notifications of processes that have exited since
/// (`halley watch poll`). When no Halley process runs, a press does nothing
/// (the alert stays in the inbox).
pub fn subscribe() -> tokio::sync::broadcast::Receiver<Invoked> {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        bus::ensure_started();
        bus::ensure_monitor();
        bus::INVOKED.subscribe()
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        // Notifications there carry no buttons: nothing is ever pressed.
        static NEVER: std::sync::LazyLock<tokio::sync::broadcast::Sender<Invoked>> =
            std::sync::LazyLock::new(|| tokio::sync::broadcast::channel(1).0);
        NEVER.subscribe()
    }
}

/// Sends every push alert not sent yet, oldest first, and marks each sent
/// so it never goes out twice. Returns how many were handed to the
/// notification daemon; their ids are recorded as it answers ([`deliver`]).
pub async fn deliver_pending(store: &Store) -> Result<usize> {
    let unsent = store.watch_alerts().unsent().await?;
    Ok(deliver(store, unsent).await?.handed)
}

/// Alerts handed to the notification daemon.
pub struct Delivery {
    pub handed: usize,
    /// The daemon's answers, recorded on the alerts' rows (their ids, for
    /// the buttons) as they come, by a task of their own: a daemon drawing
    /// many notifications answers slowly, and nobody need wait for it. How
    /// many were shown.
    pub recorded: tokio::task::JoinHandle<usize>,
}

/// Sends these alerts (each claimed first: a pass running beside this one
/// does not send it too), with a watch's buttons in the user's language;
/// returns once they are all on the bus.
pub async fn deliver(store: &Store, alerts: Vec<AlertRow>) -> Result<Delivery> {
    let asked: Vec<(i64, bool)> = alerts.iter().map(|a| (a.id, a.channel != AlertChannel::Push)).collect();
    let won = store.watch_alerts().claim(&asked).await?;
    let claimed: Vec<AlertRow> = alerts
        .into_iter()
        .zip(won)
        .filter(|(a, won)| *won && a.channel == AlertChannel::Push)
        .map(|(a, _)| a)
        .collect();
    let labels = if claimed.is_empty() { Vec::new() } else { buttons::labels(store).await };
    let notes = claimed
        .iter()
        .map(|a| Note {
            summary: a.title.clone(),
            body: a.body.clone(),
            actions: if a.watch_id.is_some() { labels.clone() } else { Vec::new() },
        })
        .collect();
    let handed = claimed.len();
    if handed > 0 {
        crate::crashpoint::point_with(|| format!("before side effect: {handed} notification(s)"));
    }
    let answers = show_all(notes).await;
    if handed > 0 {
        crate::crashpoint::point_with(|| format!("after side effect: {handed} notification(s) on the bus"));
    }
    let store = store.clone();
    let waiting = Waiting::begin();
    let recorded = tokio::spawn(async move {
        let _waiting = waiting;
        let shown = answers.await;
        let shown: Vec<(i64, Shown)> = claimed.iter().zip(shown).filter_map(|(a, s)| s.map(|s| (a.id, s))).collect();
        if let Err(e) = store.watch_alerts().mark_shown(&shown).await {
            tracing::warn!("the notifications' ids are not recorded: {}", e.message());
        }
        shown.len()
    });
    Ok(Delivery { handed, recorded })
}

/// Deliveries whose daemon answers (the notifications' ids) are not
/// recorded yet.
static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One delivery waiting for its answers (counted in [`WAITING`] while alive).
struct Waiting;

impl Waiting {
    fn begin() -> Waiting {
        WAITING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Waiting
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Waits, at most `within`, until the daemon's answers to every delivery of
/// this process are recorded: a process about to exit (`halley watch poll`)
/// calls it, so the ids are on the alerts' rows and a button pressed later
/// reaches the Halley process that listens then.
pub async fn settle(within: std::time::Duration) {
    let deadline = tokio::time::Instant::now() + within;
    while WAITING.load(std::sync::atomic::Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
mod other {
    //! macOS and Windows: the platform's notifications through notify-rust,
    //! without buttons.
    use super::{Note, Shown};

    pub async fn show(note: Note) -> Option<Shown> {
        let shown = tokio::task::spawn_blocking(move || {
            notify_rust::Notification::new()
                .appname(super::APP_NAME)
                .summary(&note.summary)
                .body(&note.body)
                .show()
                .map(|_| ())
        })
        .await;
        match shown {
            Ok(Ok(())) => Some(Shown { id: 0, daemon: String::new() }),
            Ok(Err(e)) => {
                tracing::warn!("no native notification ({e}); the alert is in the inbox");
                None
            }
            Err(_) => None,
        }
    }
}
