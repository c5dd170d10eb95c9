//! What the shell holds for the app's lifetime: the core's [`Host`] (or why
//! it could not be opened) and where the shell keeps its own small files.

use std::path::PathBuf;
use std::sync::Arc;

use halley::core::BrowserSettings;
use halley::error::WireError;
use halley::host::Host;
use halley::{DataDir, Error, ErrorCode};

/// Set to `1` (tests, CI) to run the managed browser headless.
const HEADLESS_ENV: &str = "HALLEY_HEADLESS";

/// The local API's port instead of the default 4000 (`0`: any free port).
const API_PORT_ENV: &str = "HALLEY_API_PORT";

/// Managed state; see the module documentation.
pub struct Shell {
    host: Result<Arc<Host>, WireError>,
    /// The data directory (`HALLEY_DATA_DIR` or the OS default), when known.
    data_dir: Option<PathBuf>,
    /// Holds the local API once it listens (started beside the panel, not
    /// before it: reading its token may wait on the keyring); dropping it
    /// would stop the server.
    api: Arc<tokio::sync::Mutex<Option<halley::api::Server>>>,
    /// Checks the due watches while the app runs (dropping it stops it).
    _watches: Option<halley::host::watches::Scheduler>,
    /// The archival passages embedded in the background.
    _embedder: Option<halley::host::memory::EmbedWorker>,
}

impl Shell {
    /// Open the core on the data directory. A failure is kept and answered
    /// to every `op` so the panel can say what is wrong.
    pub async fn open() -> Shell {
        let data_dir = match DataDir::resolve(None) {
            Ok(dir) => dir,
            Err(e) => {
                return Shell {
                    host: Err(e.to_wire()),
                    data_dir: None,
                    api: Arc::default(),
                    _watches: None,
                    _embedder: None,
                };
            }
        };
        let root = data_dir.root().to_path_buf();
        let host = Host::open(data_dir, browser_settings()).await.map_err(|e| {
            eprintln!("halley-desktop: cannot open the core: {e}");
            e.to_wire()
        });
        let api = Arc::default();
        let mut watches = None;
        let mut embedder = None;
        if let Ok(host) = &host {
            // The panel asks what MCP clients cannot.
            host.set_has_panel(true);
            start_api(Arc::clone(host), DataDir::at(&root), Arc::clone(&api));
            watches = Some(host.start_watch_scheduler(watch_tick()));
            embedder = Some(host.start_embedder(halley::host::memory::EMBED_TICK));
        }
        Shell { host, data_dir: Some(root), api, _watches: watches, _embedder: embedder }
    }

    pub fn host(&self) -> Result<&Arc<Host>, WireError> {
        self.host.as_ref().map_err(Clone::clone)
    }

    /// Stop the local API, if it listens (requests in flight get a moment
    /// to finish).
    pub async fn stop_api(&self) {
        let server = self.api.lock().await.take();
        if let Some(server) = server {
            server.stop().await;
        }
    }

    /// A file of the shell's own in the data directory.
    pub fn file(&self, name: &str) -> Option<PathBuf> {
        self.data_dir.as_ref().map(|d| d.join(name))
    }
}

/// How often the watch scheduler looks for due watches
/// (`HALLEY_WATCH_TICK_SECS`, else every 30 s).
fn watch_tick() -> std::time::Duration {
    std::env::var("HALLEY_WATCH_TICK_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or(halley::host::watches::DEFAULT_TICK, |s| std::time::Duration::from_secs(s.max(1)))
}

/// Serve the local API on 127.0.0.1 (port 4000, or `HALLEY_API_PORT`) in
/// the background. A port taken by another program is reported, and the
/// app goes on without the API.
fn start_api(host: Arc<Host>, dir: DataDir, slot: Arc<tokio::sync::Mutex<Option<halley::api::Server>>>) {
    let port = std::env::var(API_PORT_ENV).ok().and_then(|p| p.parse().ok()).unwrap_or(halley::api::DEFAULT_PORT);
    tauri::async_runtime::spawn(async move {
        let token = match halley::secrets::SecretStore::os() {
            Ok(secrets) => halley::secrets::token::get_or_create(&secrets, &dir).await,
            Err(e) => Err(e),
        };
        let served = match token {
            Ok(token) => halley::api::serve(host, port, token.into_exposed()).await,
            Err(e) => Err(e),
        };
        match served {
            Ok(mut server) => {
                // `halley api token --rotate` in a terminal takes effect here.
                server.follow_keyring(dir);
                eprintln!("halley-desktop: the local API listens on http://{}", server.addr());
                *slot.lock().await = Some(server);
            }
            Err(e) => eprintln!("halley-desktop: the local API is off: {}", e.message()),
        }
    });
}

/// A visible browser beside the panel, unless `HALLEY_HEADLESS=1`. The
/// executable is the core's business (`HALLEY_CHROMIUM` or found).
fn browser_settings() -> BrowserSettings {
    let headless = std::env::var(HEADLESS_ENV).is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "yes"));
    BrowserSettings { headless, ..BrowserSettings::default() }
}

/// A wire error for what the shell itself cannot do.
pub fn not_available(message: impl Into<String>) -> WireError {
    Error::new(ErrorCode::NotAvailable, message.into()).to_wire()
}
