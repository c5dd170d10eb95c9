//! One persistent connection to the session bus for the whole process: a
//! thread of its own owns it, sends `Notify` calls without waiting for each
//! answer (many in flight, answered in order by the daemon), and hears the
//! `ActionInvoked` signals of the notifications it showed. Notification
//! daemons send those signals to the connection that showed the
//! notification (dunst, GNOME Shell), so a long-lived process keeps this
//! connection open and acts on its notifications' buttons.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use dbus::Message;
use dbus::arg::{PropMap, RefArg, Variant};
use dbus::channel::{BusType, Channel};
use dbus::message::MessageType;
use tokio::sync::{broadcast, oneshot};

use super::{Invoked, Note, Shown};

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
/// How long the thread waits for work before it looks at the bus again
/// (the latency of a button press when nothing is being sent).
const IDLE: Duration = Duration::from_millis(100);
/// A daemon that has not answered a `Notify` by then never will (dunst
/// draws each notification before it answers: 100 at once take 5-10 s).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

type Answer = oneshot::Sender<Option<Shown>>;

/// A note to show: told when it is on the bus (written), then answered
/// with its id (`None`: not shown).
struct Job {
    /// `None`: nothing to show, the thread is only started.
    note: Option<Note>,
    written: oneshot::Sender<()>,
    answer: Answer,
}

/// Where the answers to a submitted note come.
pub(super) struct Submitted {
    /// The note is in the bus's hands (sent and flushed): it is shown even
    /// if this process ends now.
    pub written: oneshot::Receiver<()>,
    pub answer: oneshot::Receiver<Option<Shown>>,
}

static THREAD: Mutex<Option<Sender<Job>>> = Mutex::new(None);

/// The buttons pressed on this process's notifications.
pub(super) static INVOKED: LazyLock<broadcast::Sender<Invoked>> = LazyLock::new(|| broadcast::channel(64).0);

/// Hands `note` to the bus thread (started, or restarted after the bus went
/// away, on demand) and returns where its answer will come.
pub(super) fn submit(note: Note) -> Submitted {
    submit_job(Some(note))
}

fn submit_job(note: Option<Note>) -> Submitted {
    let (answer, answered) = oneshot::channel();
    let (written, on_bus) = oneshot::channel();
    let submitted = Submitted { written: on_bus, answer: answered };
    let mut thread = THREAD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut job = Job { note, written, answer };
    if let Some(tx) = thread.as_ref() {
        match tx.send(job) {
            Ok(()) => return submitted,
            Err(returned) => job = returned.0,
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let _ = tx.send(job);
    let spawned = std::thread::Builder::new().name("halley-notify".into()).spawn(move || serve(&rx));
    match spawned {
        Ok(_) => *thread = Some(tx),
        Err(e) => tracing::warn!("no notification thread: {e}"),
    }
    submitted
}

/// Starts the connection now (a long-lived process that wants to hear the
/// buttons of notifications it will show).
pub(super) fn ensure_started() {
    let thread = THREAD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if thread.is_some() {
        return;
    }
    drop(thread);
    drop(submit_job(None));
}

/// Starts, once per process, a second connection that monitors the bus
/// (`org.freedesktop.DBus.Monitoring.BecomeMonitor`) for `ActionInvoked`
/// signals, whoever they are addressed to: a daemon sends a button's press
/// to the connection that showed the notification, and when that was a
/// process that has exited since (`halley watch poll`), the bus drops it.
/// A long-lived Halley process hears it here instead and acts on it when an
/// alert of its own store holds that id and daemon (`claim_action`), as it
/// does for its own notifications. A monitor only listens; a bus that
/// refuses monitoring (another user's bus, a strict policy) leaves only
/// the process's own notifications' buttons working.
pub(super) fn ensure_monitor() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("halley-notify-monitor".into()).spawn(monitor);
        if let Err(e) = spawned {
            tracing::warn!("no notification monitor: {e}");
        }
    });
}

/// The monitor thread: until the bus goes away.
fn monitor() {
    let become_monitor = || -> Result<Channel, String> {
        let channel = Channel::get_private(BusType::Session).map_err(|e| e.message().unwrap_or("").to_owned())?;
        let rule = format!("type='signal',interface='{NAME}',member='ActionInvoked'");
        let call = Message::new_method_call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.Monitoring",
            "BecomeMonitor",
        )?
        .append2(vec![rule], 0_u32);
        channel
            .send_with_reply_and_block(call, Duration::from_secs(5))
            .map_err(|e| e.message().unwrap_or("").to_owned())?;
        Ok(channel)
    };
    let channel = match become_monitor() {
        Ok(c) => c,
        Err(why) => {
            tracing::warn!(
                "cannot monitor the session bus ({why}): buttons of notifications shown by processes that have exited do nothing"
            );
            return;
        }
    };
    tracing::info!("monitoring the session bus for notification buttons");
    loop {
        if channel.read_write(Some(Duration::from_secs(1))).is_err() || !channel.is_connected() {
            return;
        }
        while let Some(msg) = channel.pop_message() {
            if msg.msg_type() == MessageType::Signal
                && msg.member().as_deref() == Some("ActionInvoked")
                && let (Ok((id, action)), Some(daemon)) = (msg.read2::<u32, String>(), msg.sender())
            {
                let _ = INVOKED.send(Invoked { daemon: daemon.to_string(), id, action });
            }
        }
    }
}

/// The thread: connect, then send and listen until the bus goes away.
fn serve(rx: &Receiver<Job>) {
    let channel = match Channel::get_private(BusType::Session) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!("no session bus ({}); alerts stay in the inbox", e.message().unwrap_or("no reason"));
            forget(rx);
            return;
        }
    };
    // Daemons that broadcast the signal rather than address it to us.
    if let Ok(m) =
        Message::new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch")
    {
        let rule = format!("type='signal',interface='{NAME}',member='ActionInvoked'");
        let _ = channel.send(m.append1(rule));
    }
    let mut waiting: HashMap<u32, (Answer, Instant)> = HashMap::new();
    loop {
        // Work first: everything queued goes out before any answer is read.
        let first = if waiting.is_empty() {
            rx.recv_timeout(IDLE).map_err(|e| e == RecvTimeoutError::Disconnected)
        } else {
            rx.try_recv().map_err(|e| e == TryRecvError::Disconnected)
        };
        let mut next = first;
        let mut written = Vec::new();
        loop {
            match next {
                Ok(Job { note, written: on_bus, answer }) => {
                    let sent = note.and_then(|n| notify_call(&n)).and_then(|m| channel.send(m).ok());
                    match sent {
                        Some(serial) => {
                            waiting.insert(serial, (answer, Instant::now()));
                            written.push(on_bus);
                        }
                        None => {
                            let _ = answer.send(None);
                        }
                    }
                }
                Err(true) => return,
                Err(false) => break,
            }
            next = rx.try_recv().map_err(|e| e == TryRecvError::Disconnected);
        }
        if !written.is_empty() {
            channel.flush();
            for w in written {
                let _ = w.send(());
            }
        }
        let wait = if waiting.is_empty() { Duration::ZERO } else { Duration::from_millis(5) };
        if channel.read_write(Some(wait)).is_err() || !channel.is_connected() {
            tracing::warn!("the session bus went away; notifications reconnect on the next alert");
            for (answer, _) in waiting.into_values() {
                let _ = answer.send(None);
            }
            let mut thread = THREAD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *thread = None;
            drop(thread);
            forget(rx);
            return;
        }
        while let Some(msg) = channel.pop_message() {
            receive(&msg, &mut waiting);
        }
        waiting.retain(|_, (_, since)| since.elapsed() < ANSWER_WITHIN);
    }
}

/// Answers every queued note with "not shown".
fn forget(rx: &Receiver<Job>) {
    while let Ok(job) = rx.try_recv() {
        let _ = job.answer.send(None);
    }
}

/// A `Notify` call (`susssasa{sv}i`) for `note`.
fn notify_call(note: &Note) -> Option<Message> {
    let m = Message::new_method_call(NAME, PATH, NAME, "Notify").ok()?;
    let actions: Vec<&str> = note.actions.iter().flat_map(|(key, label)| [key.as_str(), label.as_str()]).collect();
    let mut hints = PropMap::new();
    hints.insert("urgency".into(), Variant(Box::new(1_u8) as Box<dyn RefArg>));
    hints.insert("desktop-entry".into(), Variant(Box::new("halley".to_owned()) as Box<dyn RefArg>));
    Some(
        m.append3(super::APP_NAME, 0_u32, "halley")
            .append3(note.summary.as_str(), note.body.as_str(), actions)
            .append2(hints, -1_i32),
    )
}

fn receive(msg: &Message, waiting: &mut HashMap<u32, (Answer, Instant)>) {
    match msg.msg_type() {
        MessageType::MethodReturn | MessageType::Error => {
            let Some((answer, _)) = msg.get_reply_serial().and_then(|s| waiting.remove(&s)) else { return };
            let shown = match (msg.msg_type(), msg.read1::<u32>(), msg.sender()) {
                (MessageType::MethodReturn, Ok(id), Some(daemon)) => Some(Shown { id, daemon: daemon.to_string() }),
                _ => {
                    let why: Option<String> = msg.read1().ok();
                    tracing::warn!("no native notification ({}); the alert is in the inbox", why.unwrap_or_default());
                    None
                }
            };
            let _ = answer.send(shown);
        }
        MessageType::Signal
            if msg.interface().as_deref() == Some(NAME) && msg.member().as_deref() == Some("ActionInvoked") =>
        {
            if let (Ok((id, action)), Some(daemon)) = (msg.read2::<u32, String>(), msg.sender()) {
                let _ = INVOKED.send(Invoked { daemon: daemon.to_string(), id, action });
            }
        }
        _ => {}
    }
}
