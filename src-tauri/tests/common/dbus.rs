//! Watches desktop notifications on the session bus: `dbus-monitor` on
//! `org.freedesktop.Notifications`, keeping each `Notify` call's app name,
//! summary and body.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::{self, sleep};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::KillOnDrop;

/// One `Notify` call seen on the bus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notification {
    pub app_name: String,
    pub summary: String,
    pub body: String,
}

#[derive(Default)]
struct Seen {
    started: bool,
    notifications: Vec<Notification>,
}

/// A running `dbus-monitor`; stopped on drop.
pub struct NotificationMonitor {
    _process: KillOnDrop,
    seen: Arc<Mutex<Seen>>,
}

impl NotificationMonitor {
    /// Starts monitoring the session bus and waits until the monitor is
    /// connected (it prints its own `NameAcquired` first).
    pub fn start() -> Result<Self> {
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            bail!("no session bus (DBUS_SESSION_BUS_ADDRESS); run under scripts/with-session.sh");
        }
        let mut child = Command::new("dbus-monitor")
            .args(["--session", "interface='org.freedesktop.Notifications'"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting dbus-monitor (package dbus)")?;
        let stdout = child.stdout.take().context("dbus-monitor: no stdout")?;
        let seen = Arc::new(Mutex::new(Seen::default()));
        let sink = Arc::clone(&seen);
        thread::spawn(move || {
            let mut parser = Parser::default();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let done = parser.line(&line);
                if let Ok(mut s) = sink.lock() {
                    s.started = true;
                    s.notifications.extend(done);
                }
            }
        });
        let monitor = Self { _process: KillOnDrop(Some(child)), seen };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !monitor.seen.lock().is_ok_and(|s| s.started) {
            if Instant::now() >= deadline {
                bail!("dbus-monitor printed nothing within 10 s");
            }
            sleep(Duration::from_millis(20));
        }
        Ok(monitor)
    }

    /// Every notification seen so far.
    pub fn notifications(&self) -> Vec<Notification> {
        self.seen.lock().map(|s| s.notifications.clone()).unwrap_or_default()
    }

    /// Waits for a notification matching `pred`.
    pub fn wait_for(&self, timeout: Duration, pred: impl Fn(&Notification) -> bool) -> Result<Notification> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(n) = self.notifications().into_iter().find(|n| pred(n)) {
                return Ok(n);
            }
            if Instant::now() >= deadline {
                bail!("no matching notification within {timeout:?}; seen: {:?}", self.notifications());
            }
            sleep(Duration::from_millis(50));
        }
    }
}

/// Parses dbus-monitor's text output. A `Notify` call's arguments are
/// `app_name, replaces_id, app_icon, summary, body, actions, hints,
/// expire_timeout`; its top-level strings are indented by three spaces (a
/// string may span lines) and nested ones further.
#[derive(Default)]
struct Parser {
    in_notify: bool,
    strings: Vec<String>,
    open: Option<String>,
}

impl Parser {
    /// Feeds one line; returns a notification when one is complete.
    fn line(&mut self, line: &str) -> Option<Notification> {
        if let Some(open) = self.open.as_mut() {
            open.push('\n');
            if let Some(rest) = line.strip_suffix('"') {
                open.push_str(rest);
                let s = self.open.take().unwrap_or_default();
                self.strings.push(s);
            } else {
                open.push_str(line);
            }
            return None;
        }
        if !line.starts_with(' ') {
            // A new message: finish the previous Notify, if any.
            let done = self.finish();
            self.in_notify = line.starts_with("method call") && line.contains("member=Notify");
            return done;
        }
        // expire_timeout, the last argument: the call is complete (its
        // reply has no interface, so the monitor does not show it).
        if self.in_notify && line.starts_with("   int32 ") {
            return self.finish();
        }
        if self.in_notify
            && let Some(rest) = line.strip_prefix("   string \"")
        {
            match rest.strip_suffix('"') {
                Some(s) => self.strings.push(s.to_owned()),
                None => self.open = Some(rest.to_owned()),
            }
        }
        None
    }

    fn finish(&mut self) -> Option<Notification> {
        let strings = std::mem::take(&mut self.strings);
        if !std::mem::take(&mut self.in_notify) || strings.len() < 4 {
            return None;
        }
        // app_name, app_icon, summary, body (replaces_id is a uint32).
        Some(Notification { app_name: strings[0].clone(), summary: strings[2].clone(), body: strings[3].clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_notify_calls() {
        let out = "signal time=1 sender=org.freedesktop.DBus -> destination=:1.9 serial=2 path=/org/freedesktop/DBus; interface=org.freedesktop.DBus; member=NameAcquired
   string \":1.9\"
method call time=2 sender=:1.10 -> destination=:1.3 serial=7 path=/org/freedesktop/Notifications; interface=org.freedesktop.Notifications; member=Notify
   string \"notify-send\"
   uint32 0
   string \"\"
   string \"Price dropped\"
   string \"two
lines\"
   array [
   ]
   array [
      dict entry(
         string \"urgency\"
         variant             byte 1
      )
   ]
   int32 -1
";
        let mut p = Parser::default();
        let got: Vec<Notification> = out.lines().filter_map(|l| p.line(l)).collect();
        assert_eq!(
            got,
            vec![Notification {
                app_name: "notify-send".into(),
                summary: "Price dropped".into(),
                body: "two\nlines".into()
            }]
        );
    }
}
