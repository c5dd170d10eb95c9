//! The catalogue against tools.md: names, order, scopes, risks,
//! confirmations, and every example argument object validated by a real
//! JSON Schema validator.

mod examples;

use std::collections::HashSet;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use examples::{designed_examples, malformed, spec_examples};

use super::capture::{BrowserExtractArgs, BrowserGetDomArgs, BrowserReadTextArgs, BrowserScreenshotArgs};
use super::catalogue;
use super::creator::{
    CreatorCollectResearchArgs, CreatorPlanCalendarArgs, CreatorSchedulePostArgs, CreatorTriageInboxArgs,
};
use super::data::{AuthOauthConnectArgs, NotifySendArgs, WatchCreateArgs, WatchPollArgs, WebSearchArgs};
use super::interaction::{
    BrowserCheckArgs, BrowserClickArgs, BrowserDownloadArgs, BrowserPressKeyArgs, BrowserScrollArgs,
    BrowserSelectOptionArgs, BrowserTypeArgs, BrowserUploadFileArgs,
};
use super::navigation::{
    BrowserCloseTabArgs, BrowserListTabsArgs, BrowserNavigateArgs, BrowserNewTabArgs, BrowserSwitchTabArgs,
    BrowserWaitArgs,
};
use super::robustness::{BrowserDetectStateArgs, BrowserExtractTableArgs, BrowserRetryArgs};
use super::safety::{ConfirmResultV1, HumanSolveChallengeArgs, RequestUserConfirmationArgs};
use super::shopping::{
    ShoppingCompareOptionsArgs, ShoppingExtractSpecsArgs, ShoppingPrepareCheckoutArgs, ShoppingTrackPriceArgs,
};
use super::travel::{TravelFillFormsArgs, TravelMonitorTripArgs, TravelPlanItineraryArgs, TravelSearchOptionsArgs};
use crate::builtin::memory::{
    ArchivalMemoryInsertArgs, ArchivalMemorySearchArgs, CoreMemoryAppendArgs, CoreMemoryReplaceArgs,
};
use crate::tools::spec::PermissionScope::{self, *};
use crate::tools::spec::RiskLevel::{self, *};
use crate::tools::spec::{Executor, ToolKind, ToolSpec, ToolStatus};

const PRIMITIVES: [&str; 32] = [
    "browser_navigate",
    "browser_new_tab",
    "browser_switch_tab",
    "browser_list_tabs",
    "browser_close_tab",
    "browser_wait",
    "browser_click",
    "browser_type",
    "browser_scroll",
    "browser_press_key",
    "browser_select_option",
    "browser_check",
    "browser_uncheck",
    "browser_upload_file",
    "browser_download",
    "browser_screenshot",
    "browser_get_dom",
    "browser_read_text",
    "browser_extract",
    "web_search",
    "normalize_compare",
    "user_profile_get",
    "user_profile_set",
    "files_store",
    "files_get",
    "files_tag",
    "auth_oauth_connect",
    "watch_create",
    "watch_poll",
    "notify_send",
    "request_user_confirmation",
    "human_solve_challenge",
];

const ROBUSTNESS: [&str; 3] = ["browser_retry", "browser_detect_state", "browser_extract_table"];

/// Not in tools.md's tables: the page as the model sees it (browser issue).
const PAGE_VIEW: [&str; 2] = ["browser_snapshot", "browser_find"];

/// Not in tools.md's tables: the agent's memory (issue #5), Letta's names.
const MEMORY: [&str; 4] =
    ["core_memory_append", "core_memory_replace", "archival_memory_insert", "archival_memory_search"];

/// Not in tools.md's tables: the watch tools users expect around
/// `watch_create`/`watch_poll` (issue #14).
const WATCHES: [&str; 6] =
    ["watch_list", "watch_pause", "watch_resume", "watch_update", "watch_delete", "watch_history"];

const SKILLS: [&str; 12] = [
    "travel_plan_itinerary",
    "travel_search_options",
    "travel_fill_forms",
    "travel_monitor_trip",
    "shopping_extract_specs",
    "shopping_track_price",
    "shopping_compare_options",
    "shopping_prepare_checkout",
    "creator_collect_research",
    "creator_plan_calendar",
    "creator_schedule_post",
    "creator_triage_inbox",
];

/// The entries a later issue builds (the skills but the watch skills);
/// everything else runs now.
fn is_available(name: &str) -> bool {
    !SKILLS.contains(&name) || crate::host::handlers().is_ok_and(|h| h.has(name))
}

/// (name, scope, risk, requires_confirmation), from tools.md's tables; the
/// robustness tools and skills as derived in the brief.
const GATING: [(&str, PermissionScope, RiskLevel, bool); 59] = [
    ("browser_navigate", WriteNonDestructive, Low, false),
    ("browser_new_tab", WriteNonDestructive, Low, false),
    ("browser_switch_tab", WriteNonDestructive, Low, false),
    ("browser_list_tabs", ReadOnly, Low, false),
    ("browser_close_tab", Destructive, Medium, true),
    ("browser_wait", ReadOnly, Low, false),
    ("browser_click", WriteNonDestructive, Low, false),
    ("browser_type", WriteNonDestructive, Low, false),
    ("browser_scroll", WriteNonDestructive, Low, false),
    ("browser_press_key", WriteNonDestructive, Low, false),
    ("browser_select_option", WriteNonDestructive, Low, false),
    ("browser_check", WriteNonDestructive, Low, false),
    ("browser_uncheck", WriteNonDestructive, Low, false),
    ("browser_upload_file", Submit, High, true),
    ("browser_download", WriteNonDestructive, Low, false),
    ("browser_screenshot", ReadOnly, Low, false),
    ("browser_get_dom", ReadOnly, Low, false),
    ("browser_read_text", ReadOnly, Low, false),
    ("browser_extract", ReadOnly, Low, false),
    ("web_search", ReadOnly, Low, false),
    ("normalize_compare", ReadOnly, Low, false),
    ("user_profile_get", ReadOnly, Medium, false),
    ("user_profile_set", WriteNonDestructive, Medium, false),
    ("files_store", WriteNonDestructive, Medium, false),
    ("files_get", ReadOnly, Medium, false),
    ("files_tag", WriteNonDestructive, Medium, false),
    ("auth_oauth_connect", Submit, High, true),
    ("watch_create", ReadOnly, Low, false),
    ("watch_poll", ReadOnly, Low, false),
    ("notify_send", WriteNonDestructive, Low, false),
    ("request_user_confirmation", ReadOnly, Low, false),
    ("human_solve_challenge", ReadOnly, Low, false),
    ("browser_retry", WriteNonDestructive, Low, false),
    ("browser_detect_state", ReadOnly, Low, false),
    ("browser_extract_table", ReadOnly, Low, false),
    ("browser_snapshot", ReadOnly, Low, false),
    ("browser_find", ReadOnly, Low, false),
    ("core_memory_append", WriteNonDestructive, Medium, false),
    ("core_memory_replace", WriteNonDestructive, Medium, false),
    ("archival_memory_insert", WriteNonDestructive, Low, false),
    ("archival_memory_search", ReadOnly, Low, false),
    ("watch_list", ReadOnly, Low, false),
    ("watch_pause", WriteNonDestructive, Low, false),
    ("watch_resume", WriteNonDestructive, Low, false),
    ("watch_update", WriteNonDestructive, Low, false),
    ("watch_delete", Destructive, Medium, true),
    ("watch_history", ReadOnly, Low, false),
    ("travel_plan_itinerary", ReadOnly, Low, false),
    ("travel_search_options", ReadOnly, Low, false),
    ("travel_fill_forms", Submit, High, true),
    ("travel_monitor_trip", ReadOnly, Low, false),
    ("shopping_extract_specs", ReadOnly, Low, false),
    ("shopping_track_price", ReadOnly, Low, false),
    ("shopping_compare_options", ReadOnly, Low, false),
    ("shopping_prepare_checkout", Payment, High, true),
    ("creator_collect_research", ReadOnly, Low, false),
    ("creator_plan_calendar", ReadOnly, Low, false),
    ("creator_schedule_post", Publish, High, true),
    ("creator_triage_inbox", WriteNonDestructive, Medium, false),
];

fn spec(name: &str) -> ToolSpec {
    let found = catalogue().into_iter().find(|t| t.name == name);
    match found {
        Some(t) => t,
        None => panic!("no catalogue entry {name}"),
    }
}

/// Validators as strict as any caller could be: formats checked too.
fn errors_of(name: &str, args: &Value) -> Vec<String> {
    let schema = spec(name).parameters;
    let strict = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{name}: invalid schema: {e}"));
    let plain = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: invalid schema: {e}"));
    let mut errors: Vec<String> = strict.iter_errors(args).map(|e| e.to_string()).collect();
    if !plain.is_valid(args) {
        errors.push("rejected by the default validator".to_owned());
    }
    errors
}

#[test]
fn has_the_47_tools_md_entries_in_order_plus_the_page_view_and_memory() {
    let names: Vec<String> = catalogue().into_iter().map(|t| t.name).collect();
    let expected: Vec<&str> = PRIMITIVES
        .iter()
        .chain(&ROBUSTNESS)
        .chain(&PAGE_VIEW)
        .chain(&MEMORY)
        .chain(&WATCHES)
        .chain(&SKILLS)
        .copied()
        .collect();
    assert_eq!(names, expected);
    let unique: HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), 59);
}

#[test]
fn kinds_split_47_primitives_and_12_skills() {
    let tools = catalogue();
    let primitives: Vec<&str> =
        tools.iter().filter(|t| t.kind == ToolKind::Primitive).map(|t| t.name.as_str()).collect();
    let skills: Vec<&str> = tools.iter().filter(|t| t.kind == ToolKind::Skill).map(|t| t.name.as_str()).collect();
    let expected: Vec<&str> =
        PRIMITIVES.iter().chain(&ROBUSTNESS).chain(&PAGE_VIEW).chain(&MEMORY).chain(&WATCHES).copied().collect();
    assert_eq!(primitives, expected);
    assert_eq!(skills, SKILLS.to_vec());
    assert!(tools.iter().all(|t| t.executor == Executor::Builtin));
}

#[test]
fn scope_risk_and_confirmation_match_tools_md() {
    let actual: Vec<(String, PermissionScope, RiskLevel, bool)> =
        catalogue().into_iter().map(|t| (t.name, t.permission_scope, t.risk_level, t.requires_confirmation)).collect();
    let expected: Vec<(String, PermissionScope, RiskLevel, bool)> =
        GATING.iter().map(|&(n, s, r, c)| (n.to_owned(), s, r, c)).collect();
    assert_eq!(actual, expected);
}

#[test]
fn scopes_from_submit_upward_require_confirmation() {
    for t in catalogue() {
        if t.permission_scope.needs_confirmation() {
            assert!(t.requires_confirmation, "{} is {} without confirmation", t.name, t.permission_scope);
        }
    }
}

#[test]
fn the_builtin_and_browser_tools_are_available_and_planned_ones_say_what_they_need() {
    for t in catalogue() {
        if is_available(&t.name) {
            assert_eq!(t.status, ToolStatus::Available, "{}", t.name);
            assert_eq!(t.needs, None, "{}", t.name);
        } else {
            assert_eq!(t.status, ToolStatus::Planned, "{}", t.name);
            let needs = t.needs.unwrap_or_default();
            assert!(!needs.trim().is_empty(), "{} has no `needs`", t.name);
        }
        assert!(t.description.len() > 40, "{}: description too short", t.name);
    }
}

#[test]
fn every_tools_md_example_validates() {
    let mut failures = Vec::new();
    for (name, args) in spec_examples().into_iter().chain(designed_examples()) {
        let errors = errors_of(name, &args);
        if !errors.is_empty() {
            failures.push(format!("{name} {args}: {errors:?}"));
        }
    }
    assert!(failures.is_empty(), "examples rejected:\n{}", failures.join("\n"));
}

#[test]
fn every_entry_has_a_tools_md_or_designed_example() {
    let covered: HashSet<&str> = spec_examples().iter().chain(&designed_examples()).map(|(n, _)| *n).collect();
    for t in catalogue() {
        assert!(covered.contains(t.name.as_str()), "{} has no example", t.name);
    }
}

#[test]
fn malformed_arguments_are_rejected() {
    let mut accepted = Vec::new();
    for (name, args) in malformed() {
        let schema = spec(name).parameters;
        let strict = jsonschema::options().should_validate_formats(true).build(&schema);
        let Ok(strict) = strict else { panic!("{name}: invalid schema") };
        if strict.is_valid(&args) {
            accepted.push(format!("{name} {args}"));
        }
    }
    assert!(accepted.is_empty(), "malformed arguments accepted:\n{}", accepted.join("\n"));
}

#[test]
fn the_plain_validator_rejects_the_briefs_malformed_cases() {
    let cases = [
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url":"x","wait_until":"soon"})),
        ("browser_press_key", json!({"keys":"ENTER"})),
        ("watch_create", json!({"trigger_rules":[{"op":"<=","value":1}],"frequency":"6h"})),
    ];
    for (name, args) in cases {
        let schema = spec(name).parameters;
        let Ok(validator) = jsonschema::draft202012::new(&schema) else { panic!("{name}: invalid schema") };
        assert!(!validator.is_valid(&args), "{name} accepted {args}");
    }
}

fn walk(schema: &Value, visit: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    match schema {
        Value::Object(map) => {
            visit(map);
            map.values().for_each(|v| walk(v, visit));
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, visit)),
        _ => {}
    }
}

#[test]
fn schemas_are_inlined_objects_fit_for_function_calling() {
    for t in catalogue() {
        for (which, schema) in [("parameters", &t.parameters), ("output_schema", &t.output_schema)] {
            let Some(root) = schema.as_object() else { panic!("{} {which} is not an object", t.name) };
            assert_eq!(root.get("type"), Some(&json!("object")), "{} {which}", t.name);
            for key in ["$schema", "title", "$defs", "anyOf", "oneOf", "allOf", "not", "enum"] {
                assert!(!root.contains_key(key), "{} {which} has top-level {key}", t.name);
            }
            let text = schema.to_string();
            assert!(!text.contains("\"$ref\""), "{} {which} has a $ref", t.name);
            assert!(
                jsonschema::draft202012::meta::validate(schema).is_ok(),
                "{} {which} is not a valid schema",
                t.name
            );
        }
        let root = t.parameters.as_object().cloned().unwrap_or_default();
        assert_eq!(root.get("additionalProperties"), Some(&json!(false)), "{}", t.name);
        assert!(root.get("properties").is_some_and(Value::is_object), "{} has no properties", t.name);
    }
}

#[test]
fn every_argument_the_model_sees_is_described() {
    // The other available tools' types are owned by tools::builtin.
    let described = |name: &str| !is_available(name) || MEMORY.contains(&name) || name.starts_with("watch_");
    for t in catalogue().into_iter().filter(|t| described(&t.name) || t.name == "notify_send") {
        let mut undocumented = Vec::new();
        walk(&t.parameters, &mut |map| {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, prop) in props {
                    let described = prop.get("description").and_then(Value::as_str).is_some_and(|d| !d.is_empty());
                    if !described {
                        undocumented.push(name.clone());
                    }
                }
            }
        });
        assert!(undocumented.is_empty(), "{}: undocumented {undocumented:?}", t.name);
    }
}

#[test]
fn enums_are_plain_string_lists() {
    let schema = spec("browser_navigate").parameters;
    assert_eq!(schema["properties"]["wait_until"]["enum"], json!(["domcontentloaded", "load", "networkidle"]));
    assert_eq!(schema["properties"]["wait_until"]["default"], json!("load"));
    assert_eq!(schema["properties"]["url"]["format"], json!("uri"));
    assert_eq!(schema["required"], json!(["url"]));
    let notify = spec("notify_send").parameters;
    assert_eq!(notify["properties"]["channel"]["enum"], json!(["push", "in-app", "email"]));
    let challenge = spec("human_solve_challenge").parameters;
    assert_eq!(challenge["properties"]["challenge_type"]["enum"], json!(["captcha", "otp", "2fa", "login"]));
}

#[test]
fn element_tools_flatten_the_target() {
    let click = spec("browser_click").parameters;
    let props = click["properties"].as_object().cloned().unwrap_or_default();
    for key in ["selector", "ref", "frame"] {
        assert!(props.contains_key(key), "browser_click lacks {key}");
    }
    assert_eq!(click.get("required"), None, "selector/ref are checked at execution");
}

#[test]
fn serde_agrees_with_the_schemas_on_flattened_targets() {
    let ok: BrowserClickArgs = match serde_json::from_value(json!({"ref":"e3","frame":"iframe#pay"})) {
        Ok(args) => args,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(ok.target.element_ref.as_deref(), Some("e3"));
    assert!(ok.target.require("browser_click").is_ok());
    let unknown = serde_json::from_value::<BrowserClickArgs>(json!({"selector":"a","extra":true}));
    assert!(unknown.is_err(), "unknown fields must be refused next to a flattened target");
    let page = serde_json::from_value::<BrowserReadTextArgs>(json!({}));
    assert!(page.is_ok_and(|a| a.target.is_page() && a.max_chars == 50_000));
}

#[test]
fn serde_accepts_every_example_it_owns() {
    fn parse<T: serde::de::DeserializeOwned>(name: &str, args: &Value) -> Result<(), String> {
        serde_json::from_value::<T>(args.clone()).map(drop).map_err(|e| format!("{name}: {e}"))
    }
    let mut failures = Vec::new();
    for (name, args) in spec_examples().into_iter().chain(designed_examples()) {
        let result = match name {
            "browser_navigate" => parse::<BrowserNavigateArgs>(name, &args),
            "browser_new_tab" => parse::<BrowserNewTabArgs>(name, &args),
            "browser_switch_tab" => parse::<BrowserSwitchTabArgs>(name, &args),
            "browser_list_tabs" => parse::<BrowserListTabsArgs>(name, &args),
            "browser_close_tab" => parse::<BrowserCloseTabArgs>(name, &args),
            "browser_wait" => parse::<BrowserWaitArgs>(name, &args),
            "browser_click" => parse::<BrowserClickArgs>(name, &args),
            "browser_type" => parse::<BrowserTypeArgs>(name, &args),
            "browser_scroll" => parse::<BrowserScrollArgs>(name, &args),
            "browser_press_key" => parse::<BrowserPressKeyArgs>(name, &args),
            "browser_select_option" => parse::<BrowserSelectOptionArgs>(name, &args),
            "browser_check" | "browser_uncheck" => parse::<BrowserCheckArgs>(name, &args),
            "browser_upload_file" => parse::<BrowserUploadFileArgs>(name, &args),
            "browser_download" => parse::<BrowserDownloadArgs>(name, &args),
            "browser_screenshot" => parse::<BrowserScreenshotArgs>(name, &args),
            "browser_get_dom" => parse::<BrowserGetDomArgs>(name, &args),
            "browser_read_text" => parse::<BrowserReadTextArgs>(name, &args),
            "browser_extract" => parse::<BrowserExtractArgs>(name, &args),
            "web_search" => parse::<WebSearchArgs>(name, &args),
            "auth_oauth_connect" => parse::<AuthOauthConnectArgs>(name, &args),
            "watch_create" => parse::<WatchCreateArgs>(name, &args),
            "watch_poll" => parse::<WatchPollArgs>(name, &args),
            "notify_send" => parse::<NotifySendArgs>(name, &args),
            "request_user_confirmation" => parse::<RequestUserConfirmationArgs>(name, &args),
            "human_solve_challenge" => parse::<HumanSolveChallengeArgs>(name, &args),
            "browser_retry" => parse::<BrowserRetryArgs>(name, &args),
            "browser_detect_state" => parse::<BrowserDetectStateArgs>(name, &args),
            "browser_extract_table" => parse::<BrowserExtractTableArgs>(name, &args),
            "travel_plan_itinerary" => parse::<TravelPlanItineraryArgs>(name, &args),
            "travel_search_options" => parse::<TravelSearchOptionsArgs>(name, &args),
            "travel_fill_forms" => parse::<TravelFillFormsArgs>(name, &args),
            "travel_monitor_trip" => parse::<TravelMonitorTripArgs>(name, &args),
            "shopping_extract_specs" => parse::<ShoppingExtractSpecsArgs>(name, &args),
            "shopping_track_price" => parse::<ShoppingTrackPriceArgs>(name, &args),
            "shopping_compare_options" => parse::<ShoppingCompareOptionsArgs>(name, &args),
            "shopping_prepare_checkout" => parse::<ShoppingPrepareCheckoutArgs>(name, &args),
            "creator_collect_research" => parse::<CreatorCollectResearchArgs>(name, &args),
            "creator_plan_calendar" => parse::<CreatorPlanCalendarArgs>(name, &args),
            "creator_schedule_post" => parse::<CreatorSchedulePostArgs>(name, &args),
            "creator_triage_inbox" => parse::<CreatorTriageInboxArgs>(name, &args),
            "core_memory_append" => parse::<CoreMemoryAppendArgs>(name, &args),
            "core_memory_replace" => parse::<CoreMemoryReplaceArgs>(name, &args),
            "archival_memory_insert" => parse::<ArchivalMemoryInsertArgs>(name, &args),
            "archival_memory_search" => parse::<ArchivalMemorySearchArgs>(name, &args),
            // The other available tools: their types are tested by tools::builtin.
            _ => Ok(()),
        };
        if let Err(e) = result {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "serde refused:\n{}", failures.join("\n"));
}

#[test]
fn confirm_result_matches_the_spec_shape() {
    let example = json!({"approved": true, "user_edits": {}, "reason": ""});
    let parsed: Result<ConfirmResultV1, _> = serde_json::from_value(example.clone());
    let Ok(parsed) = parsed else { panic!("ConfirmResultV1 refused the spec example") };
    assert_eq!(serde_json::to_value(parsed).ok(), Some(example.clone()));
    let validator = jsonschema::validator_for(&spec("request_user_confirmation").output_schema);
    let Ok(validator) = validator else { panic!("invalid output schema") };
    assert!(validator.is_valid(&example));
}

#[test]
fn memory_search_limits_and_defaults() {
    let search = spec("archival_memory_search").parameters;
    assert_eq!(
        search["properties"]["limit"],
        json!({"description": "How many passages at most.", "type": "integer", "minimum": 1, "maximum": 50, "default": 5})
    );
    assert_eq!(search["required"], json!(["query"]));
    let replace = spec("core_memory_replace").parameters;
    assert_eq!(replace["required"], json!(["label", "old_content", "new_content"]));
    let parsed: Result<ArchivalMemorySearchArgs, _> = serde_json::from_value(json!({"query": "khách sạn"}));
    assert!(parsed.is_ok_and(|a| a.limit == 5 && a.tags.is_empty()));
}
