//! Capture tools: snapshot and find, screenshot, DOM, visible text,
//! extraction, tables and the page's state.

use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{BrowserTool, Call, output};
use crate::browser::extract::{self, PageFacts, fallback};
use crate::browser::page;
use crate::browser::runtime;
use crate::builtin::browser::act::{actionable, target_json};
use crate::builtin::files::{self, FilesStoreArgs};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::Action;
use crate::gate::fence::flag_instructions;
use crate::tools::catalogue::capture::{
    BrowserExtractArgs, BrowserExtractOutput, BrowserGetDomArgs, BrowserGetDomOutput, BrowserReadTextArgs,
    BrowserReadTextOutput, BrowserScreenshotArgs, BrowserScreenshotOutput, ExtractSourceType,
};
use crate::tools::catalogue::common::Target;
use crate::tools::catalogue::page_view::{
    BrowserFindArgs, BrowserFindOutput, BrowserSnapshotArgs, BrowserSnapshotOutput,
};
use crate::tools::catalogue::robustness::{
    BrowserDetectStateArgs, BrowserDetectStateOutput, BrowserExtractTableArgs, BrowserExtractTableOutput,
};
use crate::tools::{ArtifactType, ToolOutput};

fn parse<T: DeserializeOwned>(v: Value, what: &str) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::internal(format!("the page runtime returned a bad {what}: {e}")))
}

fn target_or_null(target: &Target) -> Value {
    if target.is_page() { Value::Null } else { target_json(target) }
}

pub(super) async fn snapshot(call: &mut Call<'_>, args: BrowserSnapshotArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::Snapshot, Action::default()).await?;
    let tab = call.tab(None).await?;
    let arg = json!({"max_chars": args.max_chars, "page": args.page, "mark_new": true});
    let (v, url, title) = runtime::call_at(&tab, "snapshot", &arg).await?;
    call.guard()?.note_url(&tab.id, &url, &title);
    let mut out: BrowserSnapshotOutput = parse(v, "snapshot")?;
    out.tab_id.clone_from(&tab.id);
    out.flagged = flag_instructions(&out.text);
    Ok(output(&out)?.at(url))
}

pub(super) async fn find(call: &mut Call<'_>, args: BrowserFindArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::Find, Action::default()).await?;
    let tab = call.tab(None).await?;
    let (v, url, _) =
        runtime::call_at(&tab, "find", &json!({"query": args.query, "max_results": args.max_results})).await?;
    let out: BrowserFindOutput = parse(v, "find result")?;
    Ok(output(&out)?.at(url))
}

pub(super) async fn read_text(call: &mut Call<'_>, args: BrowserReadTextArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::ReadText, Action::default()).await?;
    let tab = call.tab(None).await?;
    let arg = json!({"target": target_or_null(&args.target), "max_chars": args.max_chars});
    let (v, url, _) = runtime::call_at(&tab, "readText", &arg).await?;
    let mut out: BrowserReadTextOutput = parse(v, "text")?;
    out.flagged = flag_instructions(&out.text);
    Ok(output(&out)?.at(url))
}

pub(super) async fn get_dom(call: &mut Call<'_>, args: BrowserGetDomArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::GetDom, Action::default()).await?;
    let tab = call.tab(None).await?;
    let arg = json!({"target": target_or_null(&args.target), "max_chars": args.max_chars});
    let (v, url, _) = runtime::call_at(&tab, "dom", &arg).await?;
    let out: BrowserGetDomOutput = parse(v, "DOM")?;
    Ok(output(&out)?.at(url))
}

pub(super) async fn extract(call: &mut Call<'_>, args: BrowserExtractArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::Extract, Action::default()).await?;
    if args.source.kind == ExtractSourceType::Screenshot {
        return Err(Error::new(
            ErrorCode::NotAvailable,
            "extracting from a screenshot needs a model that reads images, which comes with the agent runtime; \
             use source type `dom` or `text` for now",
        ));
    }
    let tab = call.tab(None).await?;
    let arg = json!({"selector": args.source.selector, "stock_phrases": extract::STOCK_PHRASES.as_slice()});
    let (v, url, _) = runtime::call_at(&tab, "facts", &arg).await?;
    let facts: PageFacts = serde_json::from_value(v).unwrap_or_default();
    let mut out = extract::extract(&facts, &args.schema, args.source.kind);
    model_pass(call, &facts, &args, &mut out).await;
    Ok(output(&out)?.at(url))
}

/// The fields the rules missed, asked of the fallback the front end set (if
/// any) with the fenced page text. The model sees the user's sensitive
/// values only as placeholders, even where the page shows them; when they
/// cannot be read, the model is not asked.
async fn model_pass(call: &Call<'_>, facts: &PageFacts, args: &BrowserExtractArgs, out: &mut BrowserExtractOutput) {
    let max = fallback::MAX_PAGE_CHARS;
    let Some(mut request) = fallback::request(facts, &args.schema, out, args.instructions.as_deref(), max) else {
        return;
    };
    let chosen = call.cx.fallback.clone();
    if chosen.is_some() {
        match call.ctx.gate.secrets().await {
            Ok(secrets) => request.page = crate::gate::secrets::mask(&request.page, &secrets),
            Err(e) => {
                out.notes.push(format!(
                    "model-assisted extraction was skipped: the profile's sensitive values could not be read to \
                     hide them from the model ([{}] {})",
                    e.code(),
                    e.message()
                ));
                return;
            }
        }
    }
    fallback::ask(chosen.as_deref(), &request, out, &args.schema, facts).await;
}

pub(super) async fn extract_table(call: &mut Call<'_>, args: BrowserExtractTableArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::ExtractTable, Action::default()).await?;
    let tab = call.tab(None).await?;
    let arg = json!({"target": target_or_null(&args.target), "max_rows": args.max_rows});
    let (v, url, _) = runtime::call_at(&tab, "table", &arg).await?;
    let out: BrowserExtractTableOutput = parse(v, "table")?;
    Ok(output(&out)?.at(url))
}

pub(super) async fn detect_state(call: &mut Call<'_>, args: BrowserDetectStateArgs) -> Result<ToolOutput> {
    if let Some(id) = &args.tab_id
        && !call.guard()?.tabs().iter().any(|t| &t.id == id)
    {
        return Err(call.guard()?.tab_not_found(id));
    }
    call.gate_plain(BrowserTool::DetectState, Action::default()).await?;
    let tab = call.tab(args.tab_id.as_deref()).await?;
    let (mut v, url, title) = runtime::call_at(&tab, "state", &json!({})).await?;
    if let Value::Object(map) = &mut v {
        map.insert("url".into(), Value::String(url.clone()));
        map.insert("title".into(), Value::String(title));
    }
    let out: BrowserDetectStateOutput = parse(v, "page state")?;
    Ok(output(&out)?.at(url))
}

pub(super) async fn screenshot(call: &mut Call<'_>, args: BrowserScreenshotArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::Screenshot, Action::default()).await?;
    let tab = call.tab(None).await?;
    let mut params = CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Png).build();
    if !args.target.is_page() {
        let el = actionable(&tab, &args.target, false).await?;
        let scroll =
            runtime::eval(&tab, "({x: window.scrollX, y: window.scrollY})", true).await?.unwrap_or(Value::Null);
        let rect = &el.raw["rect"];
        let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let (w, h) = (num(rect, "width"), num(rect, "height"));
        if w < 1.0 || h < 1.0 {
            return Err(Error::new(ErrorCode::NotInteractable, format!("{} has no visible area", el.describe())));
        }
        params.clip = Some(Viewport {
            x: num(rect, "x") + num(&scroll, "x"),
            y: num(rect, "y") + num(&scroll, "y"),
            width: w,
            height: h,
            scale: 1.0,
        });
        params.capture_beyond_viewport = Some(true);
    } else if args.full_page {
        let size = runtime::eval(
            &tab,
            "({w: Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0), \
               h: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)})",
            true,
        )
        .await?
        .unwrap_or(Value::Null);
        let num = |k: &str| size.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        // Chromium cannot paint textures beyond 16384 px.
        params.clip = Some(Viewport {
            x: 0.0,
            y: 0.0,
            width: num("w").clamp(1.0, 16_384.0),
            height: num("h").clamp(1.0, 16_384.0),
            scale: 1.0,
        });
        params.capture_beyond_viewport = Some(true);
    }
    let shot = tab
        .page
        .execute(params)
        .await
        .map_err(|e| Error::new(ErrorCode::BrowserUnavailable, "cannot take the screenshot").with_source(e))?;
    let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, shot.result.data.as_ref() as &str)
        .map_err(|e| Error::internal("the screenshot is not base64").with_source(e))?;
    let (width, height) = png_size(&bytes).ok_or_else(|| Error::internal("the screenshot is not a PNG"))?;
    let name = format!("screenshot-{}-{}.png", tab.id, chrono::Utc::now().format("%Y%m%d-%H%M%S%.3f"));
    let stored = keep_file(call, &bytes, &name, "screenshot").await?;
    let (url, _) = page::url_and_title(&tab).await;
    let out = BrowserScreenshotOutput { reference: stored.clone(), width, height };
    Ok(output(&out)?.at(url).with_artifact(ArtifactType::Screenshot, stored))
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}

/// Put bytes into the files store (content-addressed, tagged) and return
/// their `file://` ref.
pub(super) async fn keep_file(call: &Call<'_>, bytes: &[u8], name: &str, tag: &str) -> Result<String> {
    let dir = call.ctx.data_dir.root().join("tmp");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::new(ErrorCode::DataDir, format!("cannot create {}", dir.display())).with_source(e))?;
    let tmp = tempfile::Builder::new()
        .suffix(&format!("-{name}"))
        .tempfile_in(&dir)
        .map_err(|e| Error::new(ErrorCode::DataDir, "cannot write a temporary file").with_source(e))?;
    std::fs::write(tmp.path(), bytes)
        .map_err(|e| Error::new(ErrorCode::DataDir, "cannot write a temporary file").with_source(e))?;
    let stored = files::store(
        call.ctx,
        FilesStoreArgs {
            file_path: tmp.path().display().to_string(),
            tags: vec![tag.to_owned()],
            note: None,
            name: Some(name.to_owned()),
            source: None,
        },
    )
    .await?;
    Ok(stored.file.reference)
}

#[cfg(test)]
mod tests {
    #[test]
    fn png_size_reads_ihdr() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&1280u32.to_be_bytes());
        png.extend_from_slice(&900u32.to_be_bytes());
        assert_eq!(super::png_size(&png), Some((1280, 900)));
        assert_eq!(super::png_size(b"GIF89a"), None);
    }
}
