//! Build script of the desktop shell: reads the root `tauri.conf.json`,
//! generates the ACL for the app's commands and checks the capabilities.

use std::path::Path;

/// Commands the shell exposes to the panel; each gets `allow-*`/`deny-*`
/// permissions, and `capabilities/panel.json` grants the ones it needs.
const COMMANDS: &[&str] = &["list_tools"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    ensure_frontend_dist(Path::new("../ui/dist"))?;
    println!("cargo:rerun-if-changed=../ui/dist/index.html");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )?;
    Ok(())
}

/// `generate_context!` refuses to compile when `frontendDist` is missing, and
/// `cargo build`/`clippy` should work before `make ui` has run: write a
/// placeholder page that says how to build the real one. `npm run build`
/// empties the directory and replaces it.
fn ensure_frontend_dist(dist: &Path) -> std::io::Result<()> {
    let index = dist.join("index.html");
    if index.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dist)?;
    std::fs::write(
        index,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Halley</title></head>\n\
         <body><h1>Halley</h1><p>The panel UI is not built. Run <code>make ui</code> and rebuild.</p></body></html>\n",
    )
}
