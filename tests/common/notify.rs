//! Notifications seen on the session bus, for the core's tests: the desktop
//! crate's `dbus-monitor` reader (`src-tauri/tests/common/dbus.rs`).

use std::process::Child;

#[path = "../../src-tauri/tests/common/dbus.rs"]
mod dbus;

pub use dbus::NotificationMonitor;

/// A child process killed and reaped when dropped.
pub struct KillOnDrop(pub Option<Child>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A monitor when there is a session bus (the test session); `None` elsewhere.
pub fn monitor() -> Option<NotificationMonitor> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        eprintln!("note: no session bus; notifications are not checked (run under scripts/with-session.sh)");
        return None;
    }
    Some(NotificationMonitor::start().expect("dbus-monitor"))
}
