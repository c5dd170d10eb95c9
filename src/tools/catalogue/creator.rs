//! The creator skills: research with citations, plan a content calendar,
//! schedule a post, triage an inbox.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::SkillStatus;
use super::{Decl, declare, needs};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// Arguments of `creator_collect_research`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatorCollectResearchArgs {
    /// The subject, e.g. "AI browser trends 2025".
    #[schemars(length(min = 1, max = 500))]
    pub topic: String,
    /// How many sources to read at most.
    #[serde(default = "default_sources")]
    #[schemars(range(min = 1, max = 50))]
    pub max_sources: u32,
    /// The note template, e.g. `creator_notes_v1` (key points, quotes, open questions).
    #[serde(default = "default_note_schema")]
    pub note_schema: String,
    /// Language of the notes, e.g. `vi` or `en`; defaults to the topic's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Pages to read (URLs), before any found by web search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

fn default_sources() -> u32 {
    8
}

fn default_note_schema() -> String {
    "creator_notes_v1".to_owned()
}

/// `data` of `creator_collect_research`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CreatorCollectResearchOutput {
    /// The stored notes (a files_store id).
    pub notes_ref: String,
    /// Key point → the source URLs that support it.
    pub citations_map: BTreeMap<String, Vec<String>>,
    pub status: SkillStatus,
    /// Each claim kept, with its source and the passage quoted from it
    /// (found on that page's text by Halley, not only by the model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<Citation>,
    /// The pages read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One claim of the research notes and where it comes from.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Citation {
    pub claim: String,
    pub url: String,
    /// The passage of the page that supports it, as written there.
    pub quote: String,
}

/// Arguments of `creator_plan_calendar`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatorPlanCalendarArgs {
    /// Where the content goes, e.g. `["youtube", "tiktok"]`.
    #[schemars(length(min = 1), inner(length(min = 1)))]
    pub channels: Vec<String>,
    /// How often to post: `daily`, `weekly`, or `<n>_per_day|week|month`
    /// (e.g. `3_per_week`).
    #[schemars(regex(pattern = r"^(daily|weekly|monthly|[1-9][0-9]*_per_(day|week|month))$"))]
    pub cadence: String,
    /// Content pillars to rotate through, e.g. `["tech", "build-in-public"]`.
    #[serde(default)]
    pub pillars: Vec<String>,
    /// First day of the calendar (`YYYY-MM-DD`); defaults to next Monday.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub start_date: Option<String>,
    /// How many weeks to plan.
    #[serde(default = "default_weeks")]
    #[schemars(range(min = 1, max = 26))]
    pub weeks: u32,
    /// Local time of a post when there is one a day or fewer (`HH:MM`, in
    /// the user's time zone: profile key `time_zone`, else Asia/Ho_Chi_Minh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    pub time_of_day: Option<String>,
}

fn default_weeks() -> u32 {
    4
}

/// One planned post.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CalendarSlot {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub channel: String,
    pub pillar: Option<String>,
    /// Working title of the post.
    pub title: String,
    /// When, in the user's time zone (`2026-12-01T19:00:00+07:00`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
}

/// `data` of `creator_plan_calendar`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CreatorPlanCalendarOutput {
    pub calendar: Vec<CalendarSlot>,
    /// Further ideas not yet scheduled.
    pub backlog: Vec<String>,
    pub status: SkillStatus,
    /// The calendar as an iCalendar file (RFC 5545) in the files store (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar_ref: Option<String>,
    /// The IANA time zone the slots are in.
    #[serde(default)]
    pub time_zone: String,
    /// What was left out, guessed or failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Arguments of `creator_schedule_post`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatorSchedulePostArgs {
    /// Where to post, e.g. `youtube`, `tiktok`, `facebook`.
    #[schemars(length(min = 1))]
    pub channel: String,
    /// The post's title.
    #[schemars(length(min = 1))]
    pub title: String,
    /// The post's description or body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Media to attach: files_store ids or `file://` refs (e.g. `file://video.mp4`).
    #[serde(default)]
    pub media_refs: Vec<String>,
    /// When to publish, ISO 8601 with offset (`2025-12-15T19:00:00+07:00`);
    /// omit to leave it as a draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub schedule_time: Option<String>,
    /// Who sees the post: `private` (a draft only you see), `unlisted` or
    /// `public`. Default: `public` with a `schedule_time`, else `private`.
    /// Anything but `private` is published (or scheduled): always confirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
    /// The platform's upload page in the managed browser (its studio): the
    /// web UI way. It has a form with `title`, `description`, a file input
    /// and a "save draft" control, then a publish form (`visibility`,
    /// `publish_at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub studio_url: Option<String>,
    /// The API way (no `studio_url`): the account connected with
    /// `auth_oauth_connect` to upload with; default the first connected one.
    /// The API's address is the profile key `creator.youtube_api_base`
    /// (default `https://www.googleapis.com`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

/// Who sees a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    Private,
    Unlisted,
    Public,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Private => "private",
            Visibility::Unlisted => "unlisted",
            Visibility::Public => "public",
        }
    }
}

/// `data` of `creator_schedule_post`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CreatorSchedulePostOutput {
    /// Links to the drafts created in the channel's web UI.
    pub draft_links: Vec<String>,
    /// True when everything is in place and only the user's go-ahead to
    /// publish (or schedule) remains.
    pub publish_ready: bool,
    pub status: SkillStatus,
    /// The visibility asked for.
    #[serde(default = "private")]
    pub visibility: Visibility,
    /// True once the post is published or scheduled (after the user's go-ahead).
    #[serde(default)]
    pub published: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

fn private() -> Visibility {
    Visibility::Private
}

/// Arguments of `creator_triage_inbox`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatorTriageInboxArgs {
    /// Pages of comments or messages to triage (video comments, inbox threads).
    #[schemars(length(min = 1), inner(length(min = 1)))]
    pub thread_urls: Vec<String>,
    /// The reply guideline: a files_store id or `file://` ref (e.g. `file://reply_policy.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_ref: Option<String>,
    /// Stop after this many items.
    #[serde(default = "default_items")]
    #[schemars(range(min = 1, max = 500))]
    pub max_items: u32,
    /// Carry out a batch the user approved (edited from `suggested_replies`):
    /// each action is confirmed on its own before it is done (a reply is a
    /// PUBLISH, hide/delete/block are DESTRUCTIVE). Omit to only triage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apply: Vec<TriageAction>,
}

/// What can be done to a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentAction {
    Reply,
    Hide,
    Delete,
    Block,
}

impl CommentAction {
    pub fn as_str(self) -> &'static str {
        match self {
            CommentAction::Reply => "reply",
            CommentAction::Hide => "hide",
            CommentAction::Delete => "delete",
            CommentAction::Block => "block",
        }
    }
}

/// One action of an approved batch.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriageAction {
    /// The comment's id, as in the triage (`comment_id`).
    #[schemars(length(min = 1))]
    pub comment_id: String,
    pub action: CommentAction,
    /// The reply's text (`reply` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What became of one action of the batch.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct AppliedAction {
    pub comment_id: String,
    pub action: CommentAction,
    /// True when it was done.
    pub done: bool,
    /// Why not (`denied`: the user said no).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn default_items() -> u32 {
    100
}

/// One triaged comment or message.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TriageItem {
    /// Link to the comment or message.
    pub url: String,
    pub author: Option<String>,
    /// e.g. `question`, `praise`, `complaint`, `spam`, `business`.
    pub category: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
    pub summary: String,
    /// The comment's id on its page (for `apply`).
    #[serde(default)]
    pub comment_id: String,
    /// The comment as written.
    #[serde(default)]
    pub text: String,
    /// The comment's language (`vi`, `en`...), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// What the policy suggests besides a reply: `hide`, `delete`, `block`
    /// (never done without the user's approval through `apply`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_action: Option<CommentAction>,
}

/// A reply proposed for one item (never sent without the user).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct SuggestedReply {
    /// The item it answers.
    pub url: String,
    pub reply: String,
    /// The comment's id (for `apply`).
    #[serde(default)]
    pub comment_id: String,
}

/// `data` of `creator_triage_inbox`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CreatorTriageInboxOutput {
    pub triage: Vec<TriageItem>,
    pub suggested_replies: Vec<SuggestedReply>,
    pub status: SkillStatus,
    /// The actions of `apply`, each done or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<AppliedAction>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

// Scopes of the creator skills, derived defensively from what they do:
// - collect_research, plan_calendar: read the web; notes stay in Halley's own
//   store → READ_ONLY low.
// - schedule_post: ends in publishing (or scheduling a publish) → PUBLISH high, confirm.
// - triage_inbox: labels and drafts replies in the channel's UI; never
//   deletes or blocks without confirmation → WRITE_NON_DESTRUCTIVE medium
//   (any delete/block/send it proposes is gated as its own action).
pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let skill = |name, scope, risk, confirm, needs, description| Decl {
        name,
        kind: ToolKind::Skill,
        scope,
        risk,
        confirm,
        needs: Some(needs).filter(|n: &&str| !n.is_empty()),
        description,
    };
    vec![
        declare::<CreatorCollectResearchArgs, CreatorCollectResearchOutput>(skill(
            "creator_collect_research",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Research a topic: gather up to `max_sources` sources, extract the key points and store notes with citations. Returns a ref to the notes and which sources back each point.",
        )),
        declare::<CreatorPlanCalendarArgs, CreatorPlanCalendarOutput>(skill(
            "creator_plan_calendar",
            ReadOnly,
            Low,
            false,
            needs::RUNS_NOW,
            "Plan a content calendar over channels at a cadence (e.g. `3_per_week`), rotating content pillars. Returns dated slots and a backlog of ideas.",
        )),
        declare::<CreatorSchedulePostArgs, CreatorSchedulePostOutput>(skill(
            "creator_schedule_post",
            Publish,
            High,
            true,
            needs::RUNS_NOW,
            "Create a draft post (title, description, media) in the channel's web UI (`studio_url`), or upload it through the platform's API with an account connected by auth_oauth_connect, and, after the user confirms, publish or schedule it. 2FA prompts go to the user. Returns draft links and whether it is ready to publish.",
        )),
        declare::<CreatorTriageInboxArgs, CreatorTriageInboxOutput>(skill(
            "creator_triage_inbox",
            WriteNonDestructive,
            Medium,
            false,
            needs::RUNS_NOW,
            "Sort comments and messages by category and priority and draft replies following the user's reply guideline. Never sends, deletes or blocks without confirmation. Returns the triage and suggested replies.",
        )),
    ]
}
