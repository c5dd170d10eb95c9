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

/// Managed state; see the module documentation.
pub struct Shell {
    host: Result<Arc<Host>, WireError>,
    /// The data directory (`HALLEY_DATA_DIR` or the OS default), when known.
    data_dir: Option<PathBuf>,
}

impl Shell {
    /// Open the core on the data directory. A failure is kept and answered
    /// to every `op` so the panel can say what is wrong.
    pub async fn open() -> Shell {
        let data_dir = match DataDir::resolve(None) {
            Ok(dir) => dir,
            Err(e) => return Shell { host: Err(e.to_wire()), data_dir: None },
        };
        let root = data_dir.root().to_path_buf();
        let host = Host::open(data_dir, browser_settings()).await.map_err(|e| {
            eprintln!("halley-desktop: cannot open the core: {e}");
            e.to_wire()
        });
        Shell { host, data_dir: Some(root) }
    }

    pub fn host(&self) -> Result<&Arc<Host>, WireError> {
        self.host.as_ref().map_err(Clone::clone)
    }

    /// A file of the shell's own in the data directory.
    pub fn file(&self, name: &str) -> Option<PathBuf> {
        self.data_dir.as_ref().map(|d| d.join(name))
    }
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
