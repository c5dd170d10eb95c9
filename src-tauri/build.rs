//! Build script of the desktop shell: reads the root `tauri.conf.json`,
//! generates the ACL for the app's commands and checks the capabilities.

use std::path::Path;

/// Commands the shell exposes to its windows; each gets `allow-*`/`deny-*`
/// permissions, and `capabilities/<window>.json` grants the ones it needs.
const COMMANDS: &[&str] = &["op", "set_autostart", "dialog_request"];

/// The pages of `ui/dist` the app loads: the panel and the two dialogs.
const PAGES: &[(&str, &str)] = &[
    ("index.html", "The panel UI is not built."),
    ("confirm.html", "A confirmation waits: the dialog UI is not built, answer it in the panel."),
    ("challenge.html", "A challenge waits in the browser: the dialog UI is not built."),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    ensure_frontend_dist(Path::new("../ui/dist"))?;
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )?;
    Ok(())
}

/// `generate_context!` refuses to compile when `frontendDist` is missing, and
/// `cargo build`/`clippy` should work before `make ui` has run: write a
/// placeholder for each missing page that says how to build the real one.
/// `npm run build` empties the directory and replaces them.
fn ensure_frontend_dist(dist: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dist)?;
    for (page, what) in PAGES {
        let path = dist.join(page);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.exists() {
            continue;
        }
        std::fs::write(
            path,
            format!(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Halley</title></head>\n\
                 <body><h1>Halley</h1><p>{what} Run <code>make ui</code> and rebuild.</p></body></html>\n"
            ),
        )?;
    }
    Ok(())
}
