//! Files in the browser: upload into a file input, download into the
//! files store.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::browser::{
    DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
};
use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::MouseButton;
use futures::StreamExt;
use serde_json::{Value, json};

use super::{BrowserTool, Call, output};
use crate::browser::page;
use crate::browser::runtime;
use crate::builtin::browser::act::{actionable, describe, target_json};
use crate::builtin::browser::nav::check_url;
use crate::builtin::files::{self, FilesStoreArgs, resolve_file_ref};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::Action;
use crate::tools::ArtifactType;
use crate::tools::ToolOutput;
use crate::tools::catalogue::interaction::{
    BrowserDownloadArgs, BrowserDownloadOutput, BrowserUploadFileArgs, BrowserUploadFileOutput,
};

/// A download must start this soon after the click or link.
const DOWNLOAD_START_WITHIN: Duration = Duration::from_secs(10);

pub(super) async fn upload(call: &mut Call<'_>, args: BrowserUploadFileArgs) -> Result<ToolOutput> {
    args.target.require("browser_upload_file")?;
    let (path, name) = local_file(call, &args.file_ref).await?;
    let meta = std::fs::metadata(&path).map_err(|e| {
        Error::new(ErrorCode::FileNotFound, format!("cannot read {} (from {})", path.display(), args.file_ref))
            .with_source(e)
    })?;
    if !meta.is_file() {
        return Err(Error::new(ErrorCode::FileNotFound, format!("not a regular file: {}", path.display())));
    }
    let tab = call.tab(None).await?;
    let target = target_json(&args.target);
    // File inputs are often hidden behind a styled button: found is enough.
    let found = runtime::call(&tab, "locate", &json!({"target": target, "scroll": true})).await?;
    let desc = &found["element"];
    if desc.get("tag").and_then(Value::as_str) != Some("input")
        || desc.get("type").and_then(Value::as_str) != Some("file")
    {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("{} is not a file input (<input type=file>); target the input itself", describe(desc)),
        ));
    }
    let file_name = name.clone();
    // A stored file was taken already; a path is checked for where it lies.
    let private = if path.starts_with(call.ctx.data_dir.root().join("files")) {
        None
    } else {
        files::private_place(&path.display().to_string(), call.ctx.data_dir.root())
    };
    call.gate_page(BrowserTool::UploadFile, &tab, Some(&args.target), |a| {
        a.upload = Some(file_name.clone());
        a.private_file.clone_from(&private);
    })
    .await?;
    let object = runtime::element_object(&tab, &target).await?;
    let mut params = SetFileInputFilesParams::new(vec![path.display().to_string()]);
    params.object_id = Some(object);
    tab.page
        .execute(params)
        .await
        .map_err(|e| Error::new(ErrorCode::NotInteractable, "the page did not accept the file").with_source(e))?;
    let (url, title) = page::url_and_title(&tab).await;
    call.guard()?.note_url(&tab.id, &url, &title);
    let out = BrowserUploadFileOutput { file_name: name, size: meta.len(), mime: mime_of(&path) };
    Ok(output(&out)?.at(url))
}

/// A `file://` path, a plain path, or the id of a stored file.
async fn local_file(call: &Call<'_>, reference: &str) -> Result<(PathBuf, String)> {
    if reference.starts_with("file-") && !reference.contains('/') {
        let row = call.ctx.store.files().get(reference).await?.ok_or_else(|| {
            Error::new(ErrorCode::FileNotFound, format!("no stored file with id `{reference}` (see files_get)"))
        })?;
        return Ok((PathBuf::from(row.stored_path), row.name));
    }
    let path = resolve_file_ref(reference)?;
    if !path.exists() {
        return Err(Error::new(
            ErrorCode::FileNotFound,
            format!("file not found: {} (from {reference})", path.display()),
        ));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok((path, name))
}

fn mime_of(path: &std::path::Path) -> String {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "csv" => "text/csv",
        "json" => "application/json",
        "zip" => "application/zip",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        _ => "application/octet-stream",
    }
    .to_owned()
}

pub(super) async fn download(call: &mut Call<'_>, args: BrowserDownloadArgs) -> Result<ToolOutput> {
    if args.url.is_none() && args.target.is_page() {
        return Err(Error::invalid_arguments(
            "browser_download: give `url`, or `selector`/`ref` of the link or button that starts the download",
        ));
    }
    if let Some(url) = &args.url {
        check_url(url)?;
    }
    let timeout = Duration::from_millis(args.timeout_ms.into());
    let tab = call.tab(None).await?;
    let browser = call.guard()?.browser()?;
    let err = |e| Error::new(ErrorCode::BrowserUnavailable, "cannot watch downloads").with_source(e);
    let mut begins = browser.event_listener::<EventDownloadWillBegin>().await.map_err(err)?;
    let mut progress = browser.event_listener::<EventDownloadProgress>().await.map_err(err)?;

    match &args.url {
        Some(url) => {
            let action = Action {
                destination: Some(url.clone()),
                origin: crate::vocab::origin::origin_of(url),
                ..Action::default()
            };
            call.gate_plain(BrowserTool::Download, action).await?;
        }
        None => {
            call.gate_page(BrowserTool::Download, &tab, Some(&args.target), |_| {}).await?;
        }
    }
    if let Some(url) = &args.url {
        // A link with `download` saves same-origin files whatever their
        // type; other origins open in a new tab, which downloads or shows.
        let link = serde_json::to_string(url).unwrap_or_default();
        let expr = format!(
            "(() => {{ const a = document.createElement('a'); a.href = {link}; a.download = ''; \
             if (a.origin !== location.origin) a.target = '_blank'; a.rel = 'noopener'; \
             (document.body || document.documentElement).appendChild(a); a.click(); a.remove(); return true; }})()"
        );
        runtime::eval(&tab, &expr, true).await?;
    } else {
        let el = actionable(&tab, &args.target, true).await?;
        let what = el.describe();
        super::press::press(&tab, &el.press(&what)?, MouseButton::Left, 1).await?;
    }

    let begin = tokio::time::timeout(DOWNLOAD_START_WITHIN.min(timeout), begins.next())
        .await
        .ok()
        .flatten()
        .ok_or_else(|| {
            Error::new(
                ErrorCode::Timeout,
                "no download started: the link may open a page instead (use browser_navigate and browser_read_text), \
                 or need another click",
            )
        })?;
    let guid = begin.guid.clone();
    let deadline = Instant::now() + timeout;
    let done = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = tokio::time::timeout(left, progress.next()).await.ok().flatten().ok_or_else(|| {
            Error::new(
                ErrorCode::Timeout,
                format!("the download of {} did not finish in time", begin.suggested_filename),
            )
        })?;
        if ev.guid != guid {
            continue;
        }
        match ev.state {
            DownloadProgressState::Completed => break ev,
            DownloadProgressState::Canceled => {
                return Err(Error::new(
                    ErrorCode::NavigationFailed,
                    format!("the download of {} was cancelled", begin.suggested_filename),
                ));
            }
            DownloadProgressState::InProgress => {}
        }
    };
    let saved = done.file_path.clone().map(PathBuf::from).unwrap_or_else(|| call.guard_options_downloads().join(&guid));
    let name = args.save_as.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| {
        if begin.suggested_filename.is_empty() { "download".into() } else { begin.suggested_filename.clone() }
    });
    // Keep the name's extension on the temporary file so the store can tell
    // its type.
    let named = saved.with_file_name(format!("{guid}-{}", sanitize(&name)));
    let source = match std::fs::rename(&saved, &named) {
        Ok(()) => named,
        Err(_) => saved,
    };
    let stored = files::store(
        call.ctx,
        FilesStoreArgs {
            file_path: source.display().to_string(),
            tags: vec!["download".into()],
            note: Some(format!("downloaded from {}", begin.url)),
            name: Some(name.clone()),
            // Read into memory in the background (a PDF's text, a page's).
            source: Some(crate::builtin::memory::sources::DOWNLOADS_SOURCE.to_owned()),
        },
    )
    .await;
    let _ = std::fs::remove_file(&source);
    let stored = stored?.file;
    let (url, _) = page::url_and_title(&tab).await;
    let out = BrowserDownloadOutput {
        reference: stored.reference.clone(),
        id: stored.id.clone(),
        file_name: name,
        size: stored.size,
        mime: stored.mime.clone(),
        sha256: stored.sha256.clone(),
    };
    Ok(output(&out)?.at(url).with_artifact(ArtifactType::Download, stored.reference))
}

/// A file name safe on every OS.
fn sanitize(name: &str) -> String {
    let cleaned: String =
        name.chars().map(|c| if c.is_control() || "/\\:*?\"<>|".contains(c) { '_' } else { c }).collect();
    let trimmed = cleaned.trim().trim_matches('.');
    if trimmed.is_empty() { "download".into() } else { trimmed.chars().take(120).collect() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_names_are_sanitized() {
        assert_eq!(super::sanitize("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(super::sanitize("vé máy bay.pdf"), "vé máy bay.pdf");
        assert_eq!(super::sanitize(" .. "), "download");
    }
}
