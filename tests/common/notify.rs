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

/// Presses the button `key` of the notification `id` on screen through the
/// session's dunst itself: its context menu (`dunstctl context`), answered
/// by the session's `dmenu` script (scripts/with-session.sh), so the app
/// gets the daemon's real `ActionInvoked` signal. `None` outside the test
/// session.
pub fn press(id: u32, key: &str) -> Option<()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let dir = std::env::var_os("HALLEY_SESSION_DIR")?;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let choice = std::path::Path::new(&dir).join("dmenu-choice");
    std::fs::write(&choice, format!("[{id},{key}]")).expect("the menu choice");
    let status = std::process::Command::new("dunstctl").arg("context").status().expect("dunstctl");
    assert!(status.success(), "dunstctl context: {status}");
    // dunst runs its menu on its own: the script takes the choice.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while choice.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!choice.exists(), "dunst did not offer notification {id}'s buttons");
    Some(())
}
