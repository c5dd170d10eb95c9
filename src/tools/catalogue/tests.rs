//! The catalogue against tools.md: names, order, scopes, risks,
//! confirmations, and every example argument object validated by a real
//! JSON Schema validator.

use std::collections::HashSet;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::capture::{
    BrowserExtractArgs, BrowserGetDomArgs, BrowserReadTextArgs, BrowserScreenshotArgs,
};
use super::catalogue;
use super::creator::{
    CreatorCollectResearchArgs, CreatorPlanCalendarArgs, CreatorSchedulePostArgs,
    CreatorTriageInboxArgs,
};
use super::data::{
    AuthOauthConnectArgs, NotifySendArgs, WatchCreateArgs, WatchPollArgs, WebSearchArgs,
};
use super::interaction::{
    BrowserCheckArgs, BrowserClickArgs, BrowserDownloadArgs, BrowserPressKeyArgs,
    BrowserScrollArgs, BrowserSelectOptionArgs, BrowserTypeArgs, BrowserUploadFileArgs,
};
use super::navigation::{
    BrowserCloseTabArgs, BrowserListTabsArgs, BrowserNavigateArgs, BrowserNewTabArgs,
    BrowserSwitchTabArgs, BrowserWaitArgs,
};
use super::robustness::{BrowserDetectStateArgs, BrowserExtractTableArgs, BrowserRetryArgs};
use super::safety::{ConfirmResultV1, HumanSolveChallengeArgs, RequestUserConfirmationArgs};
use super::shopping::{
    ShoppingCompareOptionsArgs, ShoppingExtractSpecsArgs, ShoppingPrepareCheckoutArgs,
    ShoppingTrackPriceArgs,
};
use super::travel::{
    TravelFillFormsArgs, TravelMonitorTripArgs, TravelPlanItineraryArgs, TravelSearchOptionsArgs,
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

const ROBUSTNESS: [&str; 3] = [
    "browser_retry",
    "browser_detect_state",
    "browser_extract_table",
];

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

const AVAILABLE: [&str; 6] = [
    "normalize_compare",
    "user_profile_get",
    "user_profile_set",
    "files_store",
    "files_get",
    "files_tag",
];

/// (name, scope, risk, requires_confirmation), from tools.md's tables; the
/// robustness tools and skills as derived in the brief.
const GATING: [(&str, PermissionScope, RiskLevel, bool); 47] = [
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

/// Every example argument object of tools.md, verbatim (English rendering),
/// plus the Vietnamese originals where they differ.
fn spec_examples() -> Vec<(&'static str, Value)> {
    let files_store =
        json!({"file_path":"file://passport.png","tags":["travel","passport"],"note":"scan 2025"});
    let check = json!({"selector":"input#agree_terms"});
    vec![
        (
            "browser_navigate",
            json!({"url":"https://example.com/flights","wait_until":"networkidle"}),
        ),
        (
            "browser_new_tab",
            json!({"url":"https://example.com/hotels"}),
        ),
        ("browser_switch_tab", json!({"tab_id":"tab-3"})),
        ("browser_list_tabs", json!({"include_favicons":false})),
        ("browser_close_tab", json!({"tab_id":"tab-3"})),
        (
            "browser_wait",
            json!({"until":"selector","selector":".results","timeout_ms":15000}),
        ),
        ("browser_click", json!({"selector":"button#search"})),
        (
            "browser_type",
            json!({"selector":"input[name='destination']","text":"Tokyo","clear_first":true}),
        ),
        ("browser_scroll", json!({"amount_px":1200})),
        ("browser_press_key", json!({"keys":["TAB","TAB","ENTER"]})),
        (
            "browser_select_option",
            json!({"selector":"select#cabin","value":"economy"}),
        ),
        ("browser_check", check.clone()),
        ("browser_uncheck", check),
        (
            "browser_upload_file",
            json!({"selector":"input[type='file']#passport","file_ref":"file://passport.png"}),
        ),
        (
            "browser_download",
            json!({"url":"https://example.com/booking.pdf"}),
        ),
        ("browser_screenshot", json!({"full_page":true})),
        ("browser_get_dom", json!({"selector":"#product-details"})),
        (
            "browser_read_text",
            json!({"selector":".cancellation-policy"}),
        ),
        (
            "browser_extract",
            json!({"schema":{"price_total":"number","currency":"string","cancellation_policy":"string"},"source":{"type":"dom","selector":"#checkout-summary"}}),
        ),
        (
            "web_search",
            json!({"query":"carry-on size ANA 2025","locale":"vi-VN","max_results":5}),
        ),
        (
            "normalize_compare",
            json!({"schema":{"total_cost":"number","warranty_months":"number","return_days":"number"},"items":[{"source":"storeA","raw":{"price":100,"ship":5,"warranty":"12m"}},{"source":"storeB","raw":{"price":98,"delivery":12,"warranty_months":24}}]}),
        ),
        (
            "user_profile_set",
            json!({"set":{"travel.preferred_airlines":["VN","NH"],"shopping.budget_vnd":25000000}}),
        ),
        ("files_store", files_store.clone()),
        ("files_tag", files_store),
        (
            "auth_oauth_connect",
            json!({"provider":"google","scopes":["youtube.upload","openid","email"]}),
        ),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/123","selector":"#price"},"trigger_rules":[{"op":"<=","value":19990000}],"frequency":"6h"}),
        ),
        (
            "notify_send",
            json!({"channel":"push","title":"Price dropped","message":"Product X down to 19.99M"}),
        ),
        (
            "notify_send",
            json!({ "channel":"push", "title":"Giá đã giảm", "message":"Sản phẩm X xuống 19.99M" }),
        ),
        (
            "request_user_confirmation",
            json!({"action_summary":"Book HAN→NRT on 2026-02-10","cost_estimate":{"amount":12500000,"currency":"VND"},"fields_to_submit":{"name":"...","passport_no":"..."},"risks":["Non-refundable","7kg baggage"]}),
        ),
        (
            "request_user_confirmation",
            json!({"action_summary":"Đặt vé HAN→NRT ngày 2026-02-10","cost_estimate": { "amount": 12500000, "currency":"VND" },"fields_to_submit": { "name":"...", "passport_no":"..." },"risks":["Không hoàn/đổi vé", "Hành lý 7kg"]}),
        ),
        (
            "human_solve_challenge",
            json!({"challenge_type":"captcha","page_hint":"Login checkout","timeout_ms":120000}),
        ),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":30000000}),
        ),
        (
            "travel_search_options",
            json!({"type":"flight","route":"HAN-NRT","date":"2026-02-10","pax":1}),
        ),
        (
            "travel_fill_forms",
            json!({"form_url":"https://visa.gov/apply","docs":["passport_ref"],"profile_keys":["name","dob"]}),
        ),
        (
            "travel_monitor_trip",
            json!({"booking_refs":["file://booking.pdf"],"frequency":"1h"}),
        ),
        (
            "shopping_extract_specs",
            json!({"product_url":"https://store.com/laptop/abc","category":"laptop_gaming_v1"}),
        ),
        (
            "shopping_track_price",
            json!({"url":"https://store.com/p/123","target_price_vnd":19990000,"frequency":"6h"}),
        ),
        (
            "shopping_compare_options",
            json!({"items":[{"url":"..."},{"url":"..."}],"schema":"shopping_compare_v1"}),
        ),
        (
            "shopping_prepare_checkout",
            json!({"selected_option":{"url":"...","variant":"16GB/1TB"},"address_ref":"file://addr.json"}),
        ),
        (
            "creator_collect_research",
            json!({"topic":"AI browser trends 2025","max_sources":8,"note_schema":"creator_notes_v1"}),
        ),
        (
            "creator_plan_calendar",
            json!({"channels":["youtube","tiktok"],"cadence":"3_per_week","pillars":["tech","build-in-public"]}),
        ),
        (
            "creator_schedule_post",
            json!({"channel":"youtube","title":"...","description":"...","media_refs":["file://video.mp4"],"schedule_time":"2025-12-15T19:00:00+07:00"}),
        ),
        (
            "creator_triage_inbox",
            json!({"thread_urls":["...","..."],"policy_ref":"file://reply_policy.md"}),
        ),
    ]
}

/// Argument objects for the entries tools.md gives no example for.
fn designed_examples() -> Vec<(&'static str, Value)> {
    vec![
        (
            "user_profile_get",
            json!({"keys":["travel.preferred_airlines"]}),
        ),
        ("files_get", json!({"tags":["travel","passport"]})),
        ("files_get", json!({"id":"file_123"})),
        ("watch_poll", json!({})),
        ("watch_poll", json!({"watch_id":"w_1"})),
        ("browser_list_tabs", json!({})),
        ("browser_new_tab", json!({})),
        ("browser_click", json!({"ref":"e12"})),
        (
            "browser_click",
            json!({"selector":"role=button[name=\"Thêm vào giỏ\"]","frame":"iframe#shop"}),
        ),
        ("browser_click", json!({"selector":"text=Submit"})),
        (
            "browser_press_key",
            json!({"keys":["Ctrl+A","Backspace"],"selector":"input#q"}),
        ),
        ("browser_scroll", json!({"selector":"#reviews"})),
        (
            "browser_select_option",
            json!({"selector":"select#cabin","label":"Phổ thông"}),
        ),
        (
            "browser_download",
            json!({"selector":"a.download-ticket","save_as":"ticket.pdf"}),
        ),
        ("browser_wait", json!({"until":"timeout","timeout_ms":2000})),
        (
            "browser_wait",
            json!({"until":"text","text":"Thanh toán thành công"}),
        ),
        ("browser_extract", json!({"schema":{"price":"number"}})),
        (
            "browser_retry",
            json!({"action":{"tool":"browser_click","arguments":{"selector":"button#search"}},"policy":{"max_attempts":3,"backoff_ms":500}}),
        ),
        (
            "browser_retry",
            json!({"action":{"tool":"browser_navigate","arguments":{"url":"https://example.com"}}}),
        ),
        ("browser_detect_state", json!({})),
        ("browser_detect_state", json!({"tab_id":"tab-3"})),
        (
            "browser_extract_table",
            json!({"selector":"table.fares","max_rows":50}),
        ),
        ("browser_extract_table", json!({})),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/123"},"trigger_rules":[{"op":"changed"},{"op":"contains","value":"Còn hàng"}],"frequency":"30m"}),
        ),
        ("human_solve_challenge", json!({"challenge_type":"2fa"})),
        (
            "notify_send",
            json!({"channel":"in-app","title":"t","message":"m","url":"https://store.com/p/123"}),
        ),
        (
            "travel_search_options",
            json!({"type":"hotel","location":"Shinjuku, Tokyo","date":"2026-02-10","return_date":"2026-02-14","pax":2}),
        ),
        (
            "creator_schedule_post",
            json!({"channel":"tiktok","title":"Build in public #1"}),
        ),
    ]
}

/// Argument objects each schema must reject.
fn malformed() -> Vec<(&'static str, Value)> {
    vec![
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url":"x","wait_until":"soon"})),
        ("browser_navigate", json!({})),
        (
            "browser_navigate",
            json!({"url":"https://example.com","new_tab":true}),
        ),
        (
            "browser_navigate",
            json!({"url":"https://example.com","timeout_ms":0}),
        ),
        ("browser_navigate", json!({"url":"not a url"})),
        ("browser_press_key", json!({"keys":"ENTER"})),
        ("browser_press_key", json!({"keys":[]})),
        ("browser_press_key", json!({"keys":[""]})),
        ("browser_click", json!({"selector":"a","extra":true})),
        ("browser_click", json!({"selector":5})),
        ("browser_type", json!({"selector":"input"})),
        ("browser_switch_tab", json!({})),
        ("browser_close_tab", json!({})),
        ("browser_wait", json!({"until":"forever"})),
        (
            "browser_upload_file",
            json!({"selector":"input[type=file]"}),
        ),
        ("browser_extract", json!({"schema":{"price":"float"}})),
        ("browser_extract", json!({"schema":{}})),
        (
            "browser_extract",
            json!({"schema":{"price":"number"},"source":{"type":"pdf"}}),
        ),
        ("web_search", json!({"query":"x","max_results":0})),
        ("web_search", json!({"query":"x","max_results":21})),
        ("web_search", json!({"max_results":5})),
        ("auth_oauth_connect", json!({"provider":"google"})),
        (
            "auth_oauth_connect",
            json!({"provider":"google","scopes":"email"}),
        ),
        (
            "watch_create",
            json!({"trigger_rules":[{"op":"<=","value":1}],"frequency":"6h"}),
        ),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[{"op":"<=","value":1}],"frequency":"6 hours"}),
        ),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[{"op":"=~","value":1}],"frequency":"6h"}),
        ),
        (
            "watch_create",
            json!({"target":{"url":"https://store.com/p/1"},"trigger_rules":[],"frequency":"6h"}),
        ),
        ("watch_poll", json!({"watch_id":7})),
        (
            "notify_send",
            json!({"channel":"sms","title":"t","message":"m"}),
        ),
        ("notify_send", json!({"channel":"push","title":"t"})),
        (
            "request_user_confirmation",
            json!({"action_summary":"x","cost_estimate":{"amount":1,"currency":"vnd"}}),
        ),
        (
            "request_user_confirmation",
            json!({"cost_estimate":{"amount":1,"currency":"VND"}}),
        ),
        ("human_solve_challenge", json!({"challenge_type":"robot"})),
        (
            "browser_retry",
            json!({"action":{"tool":"browser_upload_file","arguments":{}}}),
        ),
        (
            "browser_retry",
            json!({"action":{"tool":"browser_click"},"policy":{"max_attempts":0}}),
        ),
        ("browser_extract_table", json!({"max_rows":0})),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"10/02/2026","to":"2026-02-14"}}),
        ),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":-1}),
        ),
        (
            "travel_plan_itinerary",
            json!({"origin":"HAN","destination":"NRT","dates":{"from":"2026-02-10","to":"2026-02-14"},"budget_vnd":"30tr"}),
        ),
        (
            "travel_search_options",
            json!({"type":"train","date":"2026-02-10"}),
        ),
        (
            "travel_monitor_trip",
            json!({"booking_refs":[],"frequency":"1h"}),
        ),
        (
            "shopping_track_price",
            json!({"url":"https://store.com/p/123","frequency":"often"}),
        ),
        (
            "shopping_compare_options",
            json!({"items":[{"url":"https://a.vn/1"}]}),
        ),
        (
            "shopping_prepare_checkout",
            json!({"selected_option":{"variant":"16GB"},"address_ref":"file://addr.json"}),
        ),
        (
            "creator_plan_calendar",
            json!({"channels":["youtube"],"cadence":"sometimes"}),
        ),
        (
            "creator_schedule_post",
            json!({"channel":"youtube","title":"x","schedule_time":"tomorrow 7pm"}),
        ),
        ("creator_triage_inbox", json!({"thread_urls":[]})),
        ("files_store", json!({"tags":["travel"]})),
        ("user_profile_set", json!({"set":{},"oops":1})),
    ]
}

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
    let plain = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{name}: invalid schema: {e}"));
    let mut errors: Vec<String> = strict.iter_errors(args).map(|e| e.to_string()).collect();
    if !plain.is_valid(args) {
        errors.push("rejected by the default validator".to_owned());
    }
    errors
}

#[test]
fn has_47_unique_entries_in_tools_md_order() {
    let names: Vec<String> = catalogue().into_iter().map(|t| t.name).collect();
    let expected: Vec<&str> = PRIMITIVES
        .iter()
        .chain(&ROBUSTNESS)
        .chain(&SKILLS)
        .copied()
        .collect();
    assert_eq!(names, expected);
    let unique: HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), 47);
}

#[test]
fn kinds_split_35_primitives_and_12_skills() {
    let tools = catalogue();
    let primitives: Vec<&str> = tools
        .iter()
        .filter(|t| t.kind == ToolKind::Primitive)
        .map(|t| t.name.as_str())
        .collect();
    let skills: Vec<&str> = tools
        .iter()
        .filter(|t| t.kind == ToolKind::Skill)
        .map(|t| t.name.as_str())
        .collect();
    let expected: Vec<&str> = PRIMITIVES.iter().chain(&ROBUSTNESS).copied().collect();
    assert_eq!(primitives, expected);
    assert_eq!(skills, SKILLS.to_vec());
    assert!(tools.iter().all(|t| t.executor == Executor::Builtin));
}

#[test]
fn scope_risk_and_confirmation_match_tools_md() {
    let actual: Vec<(String, PermissionScope, RiskLevel, bool)> = catalogue()
        .into_iter()
        .map(|t| {
            (
                t.name,
                t.permission_scope,
                t.risk_level,
                t.requires_confirmation,
            )
        })
        .collect();
    let expected: Vec<(String, PermissionScope, RiskLevel, bool)> = GATING
        .iter()
        .map(|&(n, s, r, c)| (n.to_owned(), s, r, c))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn scopes_from_submit_upward_require_confirmation() {
    for t in catalogue() {
        if t.permission_scope.needs_confirmation() {
            assert!(
                t.requires_confirmation,
                "{} is {} without confirmation",
                t.name, t.permission_scope
            );
        }
    }
}

#[test]
fn only_the_six_builtins_are_available_and_planned_ones_say_what_they_need() {
    for t in catalogue() {
        if AVAILABLE.contains(&t.name.as_str()) {
            assert_eq!(t.status, ToolStatus::Available, "{}", t.name);
            assert_eq!(t.needs, None, "{}", t.name);
        } else {
            assert_eq!(t.status, ToolStatus::Planned, "{}", t.name);
            let needs = t.needs.unwrap_or_default();
            assert!(!needs.trim().is_empty(), "{} has no `needs`", t.name);
        }
        assert!(
            t.description.len() > 40,
            "{}: description too short",
            t.name
        );
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
    assert!(
        failures.is_empty(),
        "examples rejected:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_entry_has_a_tools_md_or_designed_example() {
    let covered: HashSet<&str> = spec_examples()
        .iter()
        .chain(&designed_examples())
        .map(|(n, _)| *n)
        .collect();
    for t in catalogue() {
        assert!(
            covered.contains(t.name.as_str()),
            "{} has no example",
            t.name
        );
    }
}

#[test]
fn malformed_arguments_are_rejected() {
    let mut accepted = Vec::new();
    for (name, args) in malformed() {
        let schema = spec(name).parameters;
        let strict = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema);
        let Ok(strict) = strict else {
            panic!("{name}: invalid schema")
        };
        if strict.is_valid(&args) {
            accepted.push(format!("{name} {args}"));
        }
    }
    assert!(
        accepted.is_empty(),
        "malformed arguments accepted:\n{}",
        accepted.join("\n")
    );
}

#[test]
fn the_plain_validator_rejects_the_briefs_malformed_cases() {
    let cases = [
        ("browser_navigate", json!({"url": 5})),
        ("browser_navigate", json!({"url":"x","wait_until":"soon"})),
        ("browser_press_key", json!({"keys":"ENTER"})),
        (
            "watch_create",
            json!({"trigger_rules":[{"op":"<=","value":1}],"frequency":"6h"}),
        ),
    ];
    for (name, args) in cases {
        let schema = spec(name).parameters;
        let Ok(validator) = jsonschema::draft202012::new(&schema) else {
            panic!("{name}: invalid schema")
        };
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
        for (which, schema) in [
            ("parameters", &t.parameters),
            ("output_schema", &t.output_schema),
        ] {
            let Some(root) = schema.as_object() else {
                panic!("{} {which} is not an object", t.name)
            };
            assert_eq!(
                root.get("type"),
                Some(&json!("object")),
                "{} {which}",
                t.name
            );
            for key in [
                "$schema", "title", "$defs", "anyOf", "oneOf", "allOf", "not", "enum",
            ] {
                assert!(
                    !root.contains_key(key),
                    "{} {which} has top-level {key}",
                    t.name
                );
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
        assert_eq!(
            root.get("additionalProperties"),
            Some(&json!(false)),
            "{}",
            t.name
        );
        assert!(
            root.get("properties").is_some_and(Value::is_object),
            "{} has no properties",
            t.name
        );
    }
}

#[test]
fn every_argument_the_model_sees_is_described() {
    // The six available tools' types are owned by tools::builtin.
    for t in catalogue()
        .into_iter()
        .filter(|t| !AVAILABLE.contains(&t.name.as_str()))
    {
        let mut undocumented = Vec::new();
        walk(&t.parameters, &mut |map| {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, prop) in props {
                    let described = prop
                        .get("description")
                        .and_then(Value::as_str)
                        .is_some_and(|d| !d.is_empty());
                    if !described {
                        undocumented.push(name.clone());
                    }
                }
            }
        });
        assert!(
            undocumented.is_empty(),
            "{}: undocumented {undocumented:?}",
            t.name
        );
    }
}

#[test]
fn enums_are_plain_string_lists() {
    let schema = spec("browser_navigate").parameters;
    assert_eq!(
        schema["properties"]["wait_until"]["enum"],
        json!(["domcontentloaded", "load", "networkidle"])
    );
    assert_eq!(schema["properties"]["wait_until"]["default"], json!("load"));
    assert_eq!(schema["properties"]["url"]["format"], json!("uri"));
    assert_eq!(schema["required"], json!(["url"]));
    let notify = spec("notify_send").parameters;
    assert_eq!(
        notify["properties"]["channel"]["enum"],
        json!(["push", "in-app", "email"])
    );
    let challenge = spec("human_solve_challenge").parameters;
    assert_eq!(
        challenge["properties"]["challenge_type"]["enum"],
        json!(["captcha", "otp", "2fa", "login"])
    );
}

#[test]
fn element_tools_flatten_the_target() {
    let click = spec("browser_click").parameters;
    let props = click["properties"].as_object().cloned().unwrap_or_default();
    for key in ["selector", "ref", "frame"] {
        assert!(props.contains_key(key), "browser_click lacks {key}");
    }
    assert_eq!(
        click.get("required"),
        None,
        "selector/ref are checked at execution"
    );
}

#[test]
fn serde_agrees_with_the_schemas_on_flattened_targets() {
    let ok: BrowserClickArgs =
        match serde_json::from_value(json!({"ref":"e3","frame":"iframe#pay"})) {
            Ok(args) => args,
            Err(e) => panic!("{e}"),
        };
    assert_eq!(ok.target.element_ref.as_deref(), Some("e3"));
    assert!(ok.target.require("browser_click").is_ok());
    let unknown = serde_json::from_value::<BrowserClickArgs>(json!({"selector":"a","extra":true}));
    assert!(
        unknown.is_err(),
        "unknown fields must be refused next to a flattened target"
    );
    let page = serde_json::from_value::<BrowserReadTextArgs>(json!({}));
    assert!(page.is_ok_and(|a| a.target.is_page() && a.max_chars == 50_000));
}

#[test]
fn serde_accepts_every_example_it_owns() {
    fn parse<T: serde::de::DeserializeOwned>(name: &str, args: &Value) -> Result<(), String> {
        serde_json::from_value::<T>(args.clone())
            .map(drop)
            .map_err(|e| format!("{name}: {e}"))
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
            // The six available tools: their types are tested by tools::builtin.
            _ => Ok(()),
        };
        if let Err(e) = result {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "serde refused:\n{}",
        failures.join("\n")
    );
}

#[test]
fn confirm_result_matches_the_spec_shape() {
    let example = json!({"approved": true, "user_edits": {}, "reason": ""});
    let parsed: Result<ConfirmResultV1, _> = serde_json::from_value(example.clone());
    let Ok(parsed) = parsed else {
        panic!("ConfirmResultV1 refused the spec example")
    };
    assert_eq!(serde_json::to_value(parsed).ok(), Some(example.clone()));
    let validator = jsonschema::validator_for(&spec("request_user_confirmation").output_schema);
    let Ok(validator) = validator else {
        panic!("invalid output schema")
    };
    assert!(validator.is_valid(&example));
}
