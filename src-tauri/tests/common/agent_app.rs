//! The app driven with the scripted model server, as the agent tests of
//! the panel use it (`e2e_agent`, `e2e_panel`): its own data dir, pointed
//! at the model (no key in the env), its local API on a free port; the
//! checks of whether a test can run here; the desktop taken for one test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::driver::{AppEnv, TauriDriver, tauri_driver_path};
use super::fixtures::FixtureServer;
use super::model_server::{ModelServer, ToolCall, Turn};
use super::webdriver::Session;
use super::{artifacts_dir, no_display};

pub const UI_TIMEOUT: Duration = Duration::from_secs(30);
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

pub fn app_bin() -> &'static Path {
    // Set for the integration tests; the bench example that shares these
    // helpers starts the app its own way.
    Path::new(option_env!("CARGO_BIN_EXE_halley-desktop").unwrap_or("halley-desktop"))
}

pub fn skip_reason() -> Result<Option<String>> {
    if let Some(why) = no_display() {
        return Ok(Some(why.to_owned()));
    }
    if !Path::new("/usr/bin/chromium").exists() && std::env::var_os("HALLEY_CHROMIUM").is_none() {
        return Ok(Some("no chromium".to_owned()));
    }
    if let Err(e) = tauri_driver_path() {
        if std::env::var_os("HALLEY_TEST_SESSION").is_some() {
            return Err(e);
        }
        return Ok(Some(format!("{e:#}")));
    }
    Ok(None)
}

/// The session's desktop, this test's turn on it; none (the reason
/// printed) when the test cannot run here.
pub fn desktop_or_skip() -> Result<Option<std::sync::MutexGuard<'static, ()>>> {
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(None);
    }
    super::desktop().map(Some)
}

/// The app with its own data dir, pointed at `model` (no key in the env),
/// its local API on a free port.
pub struct App {
    pub env: AppEnv,
    driver: TauriDriver,
    pub panel: Session,
    pub panel_handle: String,
    pub artifacts: PathBuf,
    pub api_port: u16,
}

impl App {
    pub fn start(model: &ModelServer, name: &str) -> Result<App> {
        App::start_with(model, name, &[])
    }

    /// [`App::start`] with `extra` variables, which win over its own
    /// (`HALLEY_HEADLESS=0`: a Chromium window on the display).
    pub fn start_with(model: &ModelServer, name: &str, extra: &[(&str, &str)]) -> Result<App> {
        super::wait_no_app()?;
        let artifacts = artifacts_dir(app_bin())?;
        let env = AppEnv::new()?;
        let mut vars = env.vars()?;
        vars.push(("OPENAI_BASE_URL".into(), PathBuf::from(model.base_url())));
        vars.push(("HALLEY_MODEL".into(), PathBuf::from(super::model_server::MODEL_ID)));
        vars.push(("OPENAI_API_KEY".into(), PathBuf::new()));
        let api_port = super::driver::free_port()?;
        vars.push(("HALLEY_API_PORT".into(), PathBuf::from(api_port.to_string())));
        // Last: they win over the above.
        vars.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), PathBuf::from(v))));
        let driver = TauriDriver::start(&vars, &artifacts.join(format!("e2e-{name}-driver.log")))?;
        let panel = driver.launch(app_bin(), &[]).context("launching the app through tauri-driver")?;
        panel.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)?;
        let panel_handle = panel.window_handle()?;
        Ok(App { env, driver, panel, panel_handle, artifacts, api_port })
    }

    /// Saves a PNG of the panel as the user sees it on screen as an
    /// artifact and checks it is not blank.
    pub fn screenshot(&self, name: &str) -> Result<PathBuf> {
        super::capture_panel(&self.panel, &self.artifacts, name)
    }

    /// Answers the confirmation dialog with `button` (`#approve`/`#deny`)
    /// and goes back to the panel.
    pub fn answer_dialog(&self, button: &str) -> Result<String> {
        self.panel.answer_dialog(&self.panel_handle, button, RUN_TIMEOUT)
    }

    /// The app's local API token, as `halley api token` prints it for the
    /// app's data dir (the same keyring entry the app serves with).
    pub fn api_token(&self) -> Result<String> {
        let cli = app_bin().with_file_name("halley");
        let out = Command::new(&cli).args(["api", "token"]).envs(self.env.vars()?).output()?;
        if !out.status.success() {
            bail!("halley api token: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8(out.stdout)?.trim().to_owned())
    }

    /// Wait until the app's local API listens; its base URL.
    pub fn wait_api(&self) -> Result<String> {
        let base = format!("http://127.0.0.1:{}", self.api_port);
        let deadline = std::time::Instant::now() + UI_TIMEOUT;
        while std::net::TcpStream::connect(("127.0.0.1", self.api_port)).is_err() {
            if std::time::Instant::now() > deadline {
                bail!("the app's local API never listened on {base}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(base)
    }

    pub fn stop(self) -> Result<()> {
        let _ = self.panel.delete();
        self.driver.stop()?;
        drop(self.env);
        super::wait_no_app()
    }
}

/// The model's script for "buy the laptop": look, click Buy, then say so.
pub fn buy_script(site: &FixtureServer) -> Vec<Turn> {
    vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", serde_json::json!({"url": site.url("shop-vn.html")}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_click",
            serde_json::json!({"selector": "#buy-now", "_reasoningForCall": "Người dùng muốn mua ngay"}),
        )]),
        Turn::text("Xong: tôi đã làm theo câu trả lời của bạn."),
    ]
}

/// The model's script for a CAPTCHA: open the fixture's page, which the
/// (simulated) user solves after `solve_after_ms`, hand it over for at most
/// `timeout_ms`, then say it is past.
pub fn captcha_script(site: &FixtureServer, solve_after_ms: u32, timeout_ms: u32) -> Vec<Turn> {
    vec![
        Turn::tool_calls(vec![ToolCall::new(
            "browser_navigate",
            serde_json::json!({"url": site.url(&format!("captcha.html?solve_after={solve_after_ms}"))}),
        )]),
        Turn::tool_calls(vec![ToolCall::new(
            "human_solve_challenge",
            serde_json::json!({"challenge_type": "captcha", "page_hint": "Xác minh bảo mật", "timeout_ms": timeout_ms}),
        )]),
        Turn::text("Đã qua bước xác minh."),
    ]
}
