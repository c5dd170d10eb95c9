//! The desktop's side of the tray, for tests: a minimal
//! StatusNotifierWatcher on the session bus (what a panel's tray host
//! provides; the test session has none) that records the items registering
//! with it, and a client for an item's menu over `com.canonical.dbusmenu`,
//! the way a tray host reads and clicks it. On Linux, Tauri's tray
//! (libayatana-appindicator) exports its menu this way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use zbus::blocking::{Connection, Proxy, connection};
use zbus::message::Header;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

const WATCHER_NAME: &str = "org.kde.StatusNotifierWatcher";
const WATCHER_PATH: &str = "/StatusNotifierWatcher";
const ITEM_INTERFACE: &str = "org.kde.StatusNotifierItem";
const MENU_INTERFACE: &str = "com.canonical.dbusmenu";

/// An item that registered: its bus name and object path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub bus_name: String,
    pub path: String,
}

/// The watcher's D-Bus object.
struct Watcher {
    items: Arc<Mutex<Vec<Item>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    /// `service` is a bus name or (libappindicator) an object path on the
    /// caller's connection.
    fn register_status_notifier_item(&self, service: &str, #[zbus(header)] header: Header<'_>) {
        let sender = header.sender().map(ToString::to_string).unwrap_or_default();
        let item = if service.starts_with('/') {
            Item { bus_name: sender, path: service.to_owned() }
        } else {
            Item { bus_name: service.to_owned(), path: "/StatusNotifierItem".to_owned() }
        };
        self.items.lock().unwrap_or_else(PoisonError::into_inner).push(item);
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        let items = self.items.lock().unwrap_or_else(PoisonError::into_inner);
        items.iter().map(|i| format!("{}{}", i.bus_name, i.path)).collect()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

/// A StatusNotifierWatcher owning its well-known name on the session bus
/// until dropped.
pub struct StatusNotifierWatcher {
    connection: Connection,
    items: Arc<Mutex<Vec<Item>>>,
}

impl StatusNotifierWatcher {
    /// Takes `org.kde.StatusNotifierWatcher` on the session bus (an error if
    /// a real tray host already has it).
    pub fn start() -> Result<Self> {
        let items = Arc::new(Mutex::new(Vec::new()));
        let connection = connection::Builder::session()?
            .name(WATCHER_NAME)?
            .serve_at(WATCHER_PATH, Watcher { items: Arc::clone(&items) })?
            .build()
            .with_context(|| format!("owning {WATCHER_NAME} on the session bus"))?;
        Ok(Self { connection, items })
    }

    /// Waits for an item to register and returns its menu.
    pub fn wait_item(&self, timeout: Duration) -> Result<TrayMenu> {
        let deadline = Instant::now() + timeout;
        loop {
            let first = self.items.lock().unwrap_or_else(PoisonError::into_inner).first().cloned();
            if let Some(item) = first {
                return TrayMenu::of(&self.connection, item);
            }
            if Instant::now() >= deadline {
                bail!("no tray item registered with the StatusNotifierWatcher within {timeout:?}");
            }
            sleep(Duration::from_millis(50));
        }
    }
}

/// One entry of a tray menu, as a tray host shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: i32,
    /// Empty for a separator.
    pub label: String,
    /// `standard` or `separator`.
    pub kind: String,
    /// For a check item: 1 checked, 0 not.
    pub toggle_state: Option<i32>,
}

/// A registered item's menu, over `com.canonical.dbusmenu`.
pub struct TrayMenu {
    pub item: Item,
    menu: Proxy<'static>,
}

impl TrayMenu {
    fn of(connection: &Connection, item: Item) -> Result<TrayMenu> {
        let sni = Proxy::new_owned(connection.clone(), item.bus_name.clone(), item.path.clone(), ITEM_INTERFACE)?;
        let path: OwnedObjectPath = sni.get_property("Menu").context("the tray item has no Menu")?;
        let menu = Proxy::new_owned(connection.clone(), item.bus_name.clone(), path, MENU_INTERFACE)?;
        Ok(TrayMenu { item, menu })
    }

    /// The top-level entries (`GetLayout` of the root, all properties).
    pub fn entries(&self) -> Result<Vec<Entry>> {
        type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
        let reply = self.menu.call_method("GetLayout", &(0i32, -1i32, Vec::<String>::new()))?;
        let (_revision, (_root, _props, children)): (u32, Node) = reply.body().deserialize()?;
        children
            .into_iter()
            .map(|child| {
                let (id, props, _): Node =
                    unwrap_variant(child)?.try_into().context("a menu entry is not (ia{sv}av)")?;
                let text = |key: &str| props.get(key).and_then(|v| String::try_from(v.try_clone().ok()?).ok());
                Ok(Entry {
                    id,
                    label: text("label").unwrap_or_default(),
                    kind: text("type").unwrap_or_else(|| "standard".to_owned()),
                    toggle_state: props.get("toggle-state").and_then(|v| i32::try_from(v).ok()),
                })
            })
            .collect()
    }

    /// The entry labelled `label`.
    pub fn entry(&self, label: &str) -> Result<Entry> {
        let entries = self.entries()?;
        entries.iter().find(|e| e.label == label).cloned().with_context(|| format!("no {label:?} in {entries:?}"))
    }

    /// Clicks the entry labelled `label`, as a tray host does when the user
    /// picks it (`Event(id, "clicked", 0, timestamp)`).
    pub fn click(&self, label: &str) -> Result<()> {
        let id = self.entry(label)?.id;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let timestamp = u32::try_from(now).unwrap_or(u32::MAX);
        self.menu.call_method("Event", &(id, "clicked", Value::I32(0), timestamp))?;
        Ok(())
    }

    /// Waits until the entry `label` is (1) or is not (0) checked.
    pub fn wait_toggle(&self, label: &str, state: i32, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            let entry = self.entry(label)?;
            if entry.toggle_state == Some(state) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("{label:?} has toggle-state {:?}, not {state}, after {timeout:?}", entry.toggle_state);
            }
            sleep(Duration::from_millis(50));
        }
    }
}

/// The value inside a variant (`av` elements may come wrapped once more).
fn unwrap_variant(v: OwnedValue) -> Result<OwnedValue> {
    match &*v {
        Value::Value(inner) => Ok(OwnedValue::try_from(inner.as_ref().try_clone()?)?),
        _ => Ok(v),
    }
}
