use serde_json::json;

use super::*;
use crate::tools::ResultStatus;

fn registry() -> Registry {
    Registry::builtin().expect("the catalogue")
}

fn offered(offer: &Offer, registry: &Registry) -> Vec<String> {
    registry.list().filter(|t| offer.offers(t)).map(|t| t.name.clone()).collect()
}

#[test]
fn every_available_tool_is_in_the_core_or_a_group_and_every_named_tool_exists() {
    let registry = registry();
    for spec in registry.list().filter(|t| t.status == ToolStatus::Available) {
        let grouped = GROUPS.iter().any(|g| g.tools.contains(&spec.name.as_str()));
        assert!(CORE.contains(&spec.name.as_str()) || grouped, "`{}` can never be offered", spec.name);
    }
    for name in CORE.iter().chain(GROUPS.iter().flat_map(|g| g.tools.iter())) {
        assert!(registry.get(name).is_some(), "`{name}` is not a tool");
    }
}

#[test]
fn a_first_request_offers_the_core_only() {
    let registry = registry();
    let offer = Offer::new();
    let names = offered(&offer, &registry);
    assert_eq!(names.len(), CORE.len(), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("watch_")));
}

#[test]
fn the_users_words_call_for_groups_in_vietnamese_and_english() {
    let registry = registry();
    let cases = [
        ("Theo dõi giá iPhone 15 trên shop-vn giúp tôi", "watch_create"),
        ("theo doi gia laptop", "watch_create"),
        ("Track the price of this laptop", "watch_create"),
        ("So sánh hai laptop này", "normalize_compare"),
        ("Hãy nhớ rằng tôi thích ghế cạnh cửa sổ", "core_memory_append"),
        ("Dùng shopping_prepare_checkout cho giỏ này", "shopping_prepare_checkout"),
        ("Tìm vé máy bay Hà Nội đi Tokyo", "travel_search_options"),
    ];
    for (text, tool) in cases {
        let mut offer = Offer::new();
        assert!(offer.note_words(text, &registry), "{text}");
        assert!(offered(&offer, &registry).contains(&tool.to_owned()), "{text}: {:?}", offer.loaded);
    }
    // Ordinary words load nothing: "nhỏ" (small) is not "nhớ" (remember).
    let mut offer = Offer::new();
    assert!(!offer.note_words("Laptop nhỏ giá bao nhiêu trên trang này?", &registry));
    assert!(!offer.note_words("What does this laptop cost?", &registry));
}

#[test]
fn the_loader_loads_a_group_or_a_search_and_answers_junk_with_a_coded_error() {
    let registry = registry();
    let result = load(&registry, &json!({"group": "watch"}));
    assert_eq!(result.status, ResultStatus::Ok);
    let mut offer = Offer::new();
    assert!(offer.note_result(&result, &registry));
    assert!(offered(&offer, &registry).contains(&"watch_list".to_owned()));
    // The group's name however written.
    assert_eq!(load(&registry, &json!({"group": " Memory "})).status, ResultStatus::Ok);

    let found = load(&registry, &json!({"query": "close a browser tab"}));
    let loaded = found.data["loaded"].as_array().expect("loaded");
    assert!(loaded.contains(&json!("browser_close_tab")), "{found:?}");
    assert!(loaded.len() <= QUERY_LIMIT);

    let junk = [
        json!(null),
        json!("watch"),
        json!([1, 2]),
        json!({}),
        json!({"group": 7}),
        json!({"group": "nope"}),
        json!({"query": "zzqx"}),
        json!({"group": "", "query": ""}),
        json!({"group": "watch", "rm": "-rf"}),
        json!({"group": "a".repeat(10_000)}),
    ];
    for args in junk {
        let result = load(&registry, &args);
        let error = result.error.as_ref().unwrap_or_else(|| panic!("{args} was accepted"));
        assert!(matches!(error.code, ErrorCode::InvalidArguments | ErrorCode::NotFound), "{args}: {error:?}");
        assert!(error.message.contains("Groups: page"), "{}", error.message);
        assert!(error.message.len() < 600, "{}", error.message);
    }
}

#[test]
fn what_a_conversation_loaded_is_read_again_from_its_messages() {
    let registry = registry();
    let loaded = serde_json::to_string(&load(&registry, &json!({"group": "tabs"}))).expect("json");
    let history = [
        json!({"role": "system", "content": "rules"}),
        json!({"role": "user", "content": "nhớ giúp tôi"}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "tools_load", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "files_get", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": loaded}),
    ];
    let offer = Offer::from_history(&history, &registry);
    let names = offered(&offer, &registry);
    for tool in ["core_memory_append", "browser_new_tab", "files_get"] {
        assert!(names.contains(&tool.to_owned()), "{tool}: {names:?}");
    }
    assert!(!names.contains(&"watch_create".to_owned()));
}

#[test]
fn the_core_in_its_short_form_is_small() {
    let registry = registry();
    let offer = Offer::new();
    let mut tools: Vec<Value> = registry.list().filter(|t| offer.offers(t)).map(compact).collect();
    tools.push(loader_definition(&registry));
    let bytes = serde_json::to_string(&tools).expect("json").len();
    // About 4 bytes a token: well under the 4,000 tokens a first request may take.
    assert!(bytes < 10_000, "{bytes} bytes");
}
