//! `creator_schedule_post`: a post drafted in the platform's studio in the
//! managed browser, then published or scheduled after the user says so.
//!
//! The web UI way (`studio_url`): open the studio; a 2FA or CAPTCHA
//! prompt goes to the user (`human_solve_challenge`); the title and
//! description are typed, each media file attached (`browser_upload_file`,
//! asked by the gate before anything is sent) and the draft saved; its
//! link is read back. Anything but a private draft is a PUBLISH: a
//! `request_user_confirmation` step names the title, channel, visibility
//! and time, and only then is the publish form filled and sent (its click
//! asked by the gate again, from the page). A denied step stops there and
//! the result says what is left (`needs_confirmation`).
//!
//! The API way (no `studio_url`; an account connected with
//! `auth_oauth_connect`): YouTube's resumable upload (`POST
//! /upload/youtube/v3/videos?uploadType=resumable`, then `PUT` of the
//! bytes to the session's `Location`) with the account's bearer token, the
//! video `private`, or scheduled (`private` + `publishAt`), `unlisted` or
//! `public` as asked. Nothing is sent before a `request_user_confirmation`
//! step with the title, channel, visibility and time says yes. The API's
//! address is the profile key `creator.youtube_api_base`.

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::Skill;
use crate::error::{Error, ErrorCode, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::BrowserGetDomOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::creator::{CreatorSchedulePostArgs, CreatorSchedulePostOutput, Visibility};
use crate::tools::catalogue::robustness::BrowserDetectStateOutput;
use crate::tools::catalogue::safety::{ChallengeOutcome, ConfirmResultV1, HumanSolveChallengeOutput};

pub const NAME: &str = "creator_schedule_post";
/// How long the user has for a 2FA prompt.
const CHALLENGE_MS: u32 = 180_000;

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    super::typed(NAME, args, move |a: CreatorSchedulePostArgs| schedule(skill, a))
}

/// The studio's controls.
mod studio {
    pub const TITLE: &str = "[name=title]";
    pub const DESCRIPTION: &str = "[name=description]";
    pub const MEDIA: &str = "input[type=file]";
    pub const SAVE_DRAFT: &str = "[data-action=save-draft]";
    pub const DRAFT_LINK: &str = "#draft-link";
    pub const VISIBILITY: &str = "[name=visibility]";
    pub const PUBLISH_AT: &str = "[name=publish_at]";
    pub const PUBLISH: &str = "[data-action=publish]";
}

/// What the run got to.
struct Progress {
    visibility: Visibility,
    draft_links: Vec<String>,
    publish_ready: bool,
    published: bool,
}

impl Progress {
    fn end(self, skill: &Skill<'_>, status: SkillStatus) -> CreatorSchedulePostOutput {
        CreatorSchedulePostOutput {
            draft_links: self.draft_links,
            publish_ready: self.publish_ready,
            status,
            visibility: self.visibility,
            published: self.published,
            notes: skill.notes(),
        }
    }
}

/// A step's error as the status it leaves the post in: the user said no
/// (`needs_confirmation`) or something failed (`failed`); noted.
fn stopped(skill: &Skill<'_>, what: &str, code: ErrorCode, message: &str) -> SkillStatus {
    if code == ErrorCode::Denied {
        skill.note(format!("{what}: not done, the user said no"));
        SkillStatus::NeedsConfirmation
    } else {
        skill.note(format!("{what} failed: {message}"));
        SkillStatus::Failed
    }
}

async fn schedule(skill: &Skill<'_>, args: CreatorSchedulePostArgs) -> Result<CreatorSchedulePostOutput> {
    if let Some(t) = args.schedule_time.as_deref() {
        chrono::DateTime::parse_from_rfc3339(t).map_err(|e| {
            Error::invalid_arguments(format!(
                "schedule_time {t:?} is not an ISO 8601 time with an offset (2025-12-15T19:00:00+07:00): {e}"
            ))
        })?;
    }
    let visibility =
        args.visibility.unwrap_or(if args.schedule_time.is_some() { Visibility::Public } else { Visibility::Private });
    let mut at = Progress { visibility, draft_links: Vec::new(), publish_ready: false, published: false };
    if visibility == Visibility::Private && args.schedule_time.is_some() {
        skill.note("a private post is not published at a time: it is kept as a private draft");
    }
    let Some(studio_url) = args.studio_url.clone() else {
        return api::upload(skill, &args, at).await;
    };

    // The studio, and its 2FA prompt handed to the user.
    let nav = skill.call("browser_navigate", json!({"url": studio_url})).await;
    if let Some(e) = nav.error {
        return Ok(at.end(skill, stopped(skill, "opening the studio", e.code, &e.message)));
    }
    let state: BrowserDetectStateOutput = skill.data("browser_detect_state", json!({})).await?;
    if let Some(challenge) = state.challenge {
        let hint = format!("{} asks for a {challenge} check before the upload", args.channel);
        let solved: HumanSolveChallengeOutput = skill
            .data(
                "human_solve_challenge",
                json!({"challenge_type": challenge, "page_hint": hint, "timeout_ms": CHALLENGE_MS}),
            )
            .await?;
        if solved.outcome != ChallengeOutcome::Resolved {
            skill.note(format!("the {challenge} check was not passed ({:?}): nothing was uploaded", solved.outcome));
            return Ok(at.end(skill, SkillStatus::NeedsUser));
        }
    }

    // The draft: fields, media (each upload asked first), saved.
    let mut fields = vec![(studio::TITLE, args.title.clone())];
    if let Some(d) = args.description.as_ref().filter(|d| !d.trim().is_empty()) {
        fields.push((studio::DESCRIPTION, d.clone()));
    }
    for (selector, text) in fields {
        let typed = skill.call("browser_type", json!({"selector": selector, "text": text, "clear_first": true})).await;
        if let Some(e) = typed.error {
            return Ok(at.end(skill, stopped(skill, &format!("filling {selector}"), e.code, &e.message)));
        }
    }
    for media in &args.media_refs {
        let up = skill.call("browser_upload_file", json!({"selector": studio::MEDIA, "file_ref": media})).await;
        if let Some(e) = up.error {
            return Ok(at.end(skill, stopped(skill, &format!("uploading {media}"), e.code, &e.message)));
        }
    }
    let saved = skill.call("browser_click", json!({"selector": studio::SAVE_DRAFT})).await;
    if let Some(e) = saved.error {
        return Ok(at.end(skill, stopped(skill, "saving the draft", e.code, &e.message)));
    }
    match draft_link(skill, &studio_url).await {
        Some(link) => at.draft_links.push(link),
        None => skill.note("the studio showed no link to the draft"),
    }
    at.publish_ready = true;
    if visibility == Visibility::Private {
        return Ok(at.end(skill, SkillStatus::Ok));
    }

    // Publishing: the user's go-ahead with what, where, who sees it, when.
    if let Err(status) = go_ahead(skill, &args, visibility, "the draft is kept").await {
        return Ok(at.end(skill, status));
    }
    let pick = skill
        .call("browser_select_option", json!({"selector": studio::VISIBILITY, "value": visibility.as_str()}))
        .await;
    if let Some(e) = pick.error {
        return Ok(at.end(skill, stopped(skill, "setting the visibility", e.code, &e.message)));
    }
    if let Some(t) = &args.schedule_time {
        let typed =
            skill.call("browser_type", json!({"selector": studio::PUBLISH_AT, "text": t, "clear_first": true})).await;
        if let Some(e) = typed.error {
            return Ok(at.end(skill, stopped(skill, "setting the time", e.code, &e.message)));
        }
    }
    let published = skill.call("browser_click", json!({"selector": studio::PUBLISH})).await;
    if let Some(e) = published.error {
        return Ok(at.end(skill, stopped(skill, "publishing", e.code, &e.message)));
    }
    at.published = true;
    Ok(at.end(skill, SkillStatus::Ok))
}

/// The user's go-ahead to publish (or upload), asked with the title,
/// channel, visibility and time; `Err` is the status to end with.
async fn go_ahead(
    skill: &Skill<'_>,
    args: &CreatorSchedulePostArgs,
    visibility: Visibility,
    kept: &str,
) -> std::result::Result<(), SkillStatus> {
    let when = args.schedule_time.clone().unwrap_or_else(|| "now".to_owned());
    let verb = if visibility == Visibility::Private { "Upload" } else { "Publish" };
    let summary = match &args.schedule_time {
        Some(t) if visibility != Visibility::Private => {
            format!("Schedule \"{}\" on {} ({}) for {t}", args.title, args.channel, visibility.as_str())
        }
        _ => format!("{verb} \"{}\" on {} ({})", args.title, args.channel, visibility.as_str()),
    };
    let ask = json!({
        "action_summary": summary,
        "fields_to_submit": {"title": args.title, "channel": args.channel, "visibility": visibility.as_str(),
                             "time": when, "media": args.media_refs},
        "risks": [if visibility == Visibility::Private { "The video is sent to the platform (kept private)" }
                  else { "Everyone who can see the channel will see the post" }],
    });
    let answer = skill.call("request_user_confirmation", ask).await;
    match (&answer.error, serde_json::from_value::<ConfirmResultV1>(answer.data.clone())) {
        (None, Ok(a)) if a.approved => Ok(()),
        (Some(e), _) => Err(stopped(skill, &verb.to_lowercase(), e.code, &e.message)),
        _ => {
            skill.note(format!("{}: not done, the user said no; {kept}", verb.to_lowercase()));
            Err(SkillStatus::NeedsConfirmation)
        }
    }
}

/// The saved draft's link (`#draft-link`), absolute.
async fn draft_link(skill: &Skill<'_>, studio_url: &str) -> Option<String> {
    let dom: BrowserGetDomOutput =
        skill.data("browser_get_dom", json!({"selector": studio::DRAFT_LINK, "max_chars": 2000})).await.ok()?;
    let doc = dom_query::Document::from(dom.html.as_str());
    let href = doc.select("a").attr("href")?.to_string();
    url::Url::parse(studio_url).ok()?.join(&href).ok().map(String::from)
}

/// The API way: YouTube's resumable upload.
mod api {
    use serde_json::{Value, json};

    use super::{Progress, Skill, go_ahead};
    use crate::builtin::files::{FileOutput, FilesGetOutput, resolve_file_ref};
    use crate::builtin::profile::UserProfileGetOutput;
    use crate::error::{Error, ErrorCode, Result};
    use crate::tools::catalogue::common::SkillStatus;
    use crate::tools::catalogue::creator::{CreatorSchedulePostArgs, CreatorSchedulePostOutput, Visibility};

    /// The real API; the profile key `creator.youtube_api_base` overrides it.
    pub const DEFAULT_BASE: &str = "https://www.googleapis.com";
    pub const BASE_KEY: &str = "creator.youtube_api_base";

    /// The one video's bytes: a stored file's id, or a `file://` path
    /// taken into the files store first (a `files_store` step, so the gate
    /// sees which file leaves the machine).
    async fn media(skill: &Skill<'_>, refs: &[String]) -> Result<(String, Vec<u8>)> {
        let [one] = refs else {
            return Err(Error::invalid_arguments(format!(
                "an upload through the API takes exactly one video in `media_refs` ({} given)",
                refs.len()
            )));
        };
        let file = if one.starts_with("file_") || one.starts_with("file-") {
            let found: FilesGetOutput = skill.data("files_get", json!({"id": one})).await?;
            found.files.into_iter().next().ok_or_else(|| Error::not_found(format!("no stored file {one}")))?
        } else {
            let kept: FileOutput =
                skill.data("files_store", json!({"file_path": one, "tags": ["creator-media"]})).await?;
            kept.file
        };
        let bytes = std::fs::read(resolve_file_ref(&file.reference)?)
            .map_err(|e| Error::new(ErrorCode::FileNotFound, format!("{one} cannot be read")).with_source(e))?;
        Ok((file.name, bytes))
    }

    pub(super) async fn upload(
        skill: &Skill<'_>,
        args: &CreatorSchedulePostArgs,
        mut at: Progress,
    ) -> Result<CreatorSchedulePostOutput> {
        let oauth = &skill.services().oauth;
        let account = match &args.account {
            Some(a) => a.clone(),
            None => oauth.list().await?.into_iter().next().map(|a| a.name).ok_or_else(|| {
                Error::new(
                    ErrorCode::NotAvailable,
                    format!(
                        "no account to post to {} with: connect one (auth_oauth_connect, e.g. provider google with \
                         the YouTube upload scope), or give `studio_url`, the channel's upload page, to post in the \
                         browser",
                        args.channel
                    ),
                )
            })?,
        };
        let (name, bytes) = media(skill, &args.media_refs).await?;
        let profile: UserProfileGetOutput = skill.data("user_profile_get", json!({"keys": [BASE_KEY]})).await?;
        let base = profile
            .values
            .get(BASE_KEY)
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_BASE)
            .trim_end_matches('/')
            .to_owned();
        // Nothing leaves before the user says yes.
        if let Err(status) = go_ahead(skill, args, at.visibility, "nothing was uploaded").await {
            return Ok(at.end(skill, status));
        }
        let token = oauth.access_token(&account).await?;
        let mut status = json!({"privacyStatus": at.visibility.as_str(), "selfDeclaredMadeForKids": false});
        if let Some(t) = args.schedule_time.as_ref().filter(|_| at.visibility == Visibility::Public) {
            // A scheduled video is private until YouTube publishes it at `publishAt`.
            status["privacyStatus"] = json!("private");
            status["publishAt"] = json!(t);
        }
        let metadata = json!({
            "snippet": {"title": args.title, "description": args.description.clone().unwrap_or_default()},
            "status": status,
        });
        let http = reqwest::Client::new();
        let start = http
            .post(format!("{base}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status"))
            .bearer_auth(token.expose())
            .header("X-Upload-Content-Type", "video/*")
            .header("X-Upload-Content-Length", bytes.len().to_string())
            .header("Content-Type", "application/json; charset=UTF-8")
            .body(metadata.to_string())
            .send()
            .await
            .map_err(|e| Error::new(ErrorCode::NotAvailable, format!("{base} did not answer")).with_source(e))?;
        let code = start.status();
        let Some(session) = start.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned) else {
            let body = start.text().await.unwrap_or_default();
            skill.note(format!("the upload was refused (HTTP {code}): {}", body.chars().take(300).collect::<String>()));
            return Ok(at.end(skill, SkillStatus::Failed));
        };
        let sent = http
            .put(&session)
            .bearer_auth(token.expose())
            .header("Content-Type", "application/octet-stream")
            .body(bytes)
            .send()
            .await
            .map_err(|e| Error::new(ErrorCode::NotAvailable, "the upload session did not answer").with_source(e))?;
        let code = sent.status();
        let video: Value = serde_json::from_str(&sent.text().await.unwrap_or_default()).unwrap_or(Value::Null);
        let Some(id) = video.get("id").and_then(Value::as_str).filter(|_| code.is_success()) else {
            skill.note(format!("the upload of {name} failed (HTTP {code})"));
            return Ok(at.end(skill, SkillStatus::Failed));
        };
        at.draft_links.push(format!("https://studio.youtube.com/video/{id}/edit"));
        at.publish_ready = true;
        at.published = at.visibility != Visibility::Private;
        Ok(at.end(skill, SkillStatus::Ok))
    }
}
