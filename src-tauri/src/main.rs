//! Halley desktop app: a thin Tauri shell that opens the side panel (`ui/`)
//! and hands it the core's answers through commands. No business logic here.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod shutdown;

use halley::tools::ToolSpec;

/// The built-in tool catalogue, for the panel's tool list.
#[tauri::command]
fn list_tools() -> Vec<ToolSpec> {
    halley::tools::catalogue::catalogue()
}

fn main() -> anyhow::Result<()> {
    tauri::Builder::default()
        .setup(|app| {
            shutdown::exit_on_signals(app.handle().clone());
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![list_tools])
        .run(tauri::generate_context!("../tauri.conf.json"))?;
    Ok(())
}
