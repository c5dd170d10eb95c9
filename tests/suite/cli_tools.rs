//! `halley tools list|show|call` over the whole catalogue, and
//! normalize_compare end to end.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;

#[test]
fn list_json_has_all_59_tools_with_their_contract_fields() {
    let h = Halley::new();
    let run = h.run(&["tools", "list", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools = run.json();
    let tools = tools.as_array().expect("array");
    // tools.md's 47, plus browser_snapshot, browser_find and the 4 memory tools.
    assert_eq!(tools.len(), 59);
    for t in tools {
        for key in [
            "name",
            "description",
            "kind",
            "status",
            "permission_scope",
            "risk_level",
            "requires_confirmation",
            "parameters",
        ] {
            assert!(t.get(key).is_some(), "{} lacks {key}", t["name"]);
        }
        assert_eq!(t["parameters"]["type"], "object", "{}", t["name"]);
    }
    let pick = |name: &str| -> Value {
        let t = tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} missing"));
        json!([t["kind"], t["status"], t["permission_scope"], t["risk_level"], t["requires_confirmation"]])
    };
    assert_eq!(pick("browser_upload_file"), json!(["primitive", "available", "SUBMIT", "high", true]));
    assert_eq!(pick("auth_oauth_connect"), json!(["primitive", "available", "SUBMIT", "high", true]));
    assert_eq!(pick("web_search"), json!(["primitive", "available", "READ_ONLY", "low", false]));
    assert_eq!(pick("browser_close_tab"), json!(["primitive", "available", "DESTRUCTIVE", "medium", true]));
    assert_eq!(pick("browser_snapshot"), json!(["primitive", "available", "READ_ONLY", "low", false]));
    assert_eq!(pick("normalize_compare"), json!(["primitive", "available", "READ_ONLY", "low", false]));
    assert_eq!(pick("user_profile_get"), json!(["primitive", "available", "READ_ONLY", "medium", false]));
    assert_eq!(pick("files_store"), json!(["primitive", "available", "WRITE_NON_DESTRUCTIVE", "medium", false]));
    assert_eq!(pick("core_memory_append"), json!(["primitive", "available", "WRITE_NON_DESTRUCTIVE", "medium", false]));
    assert_eq!(pick("archival_memory_search"), json!(["primitive", "available", "READ_ONLY", "low", false]));
    assert_eq!(pick("travel_fill_forms")[0], "skill");
    let kinds: Vec<&str> = tools.iter().filter_map(|t| t["kind"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "skill").count(), 12);
    // Listing never creates the data directory.
    assert!(!h.data_dir().exists());
}

#[test]
fn list_as_a_table_and_show_one_tool() {
    let h = Halley::new();
    let run = h.run(&["tools", "list"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.lines().any(|l| l.starts_with("browser_navigate") && l.contains("WRITE_NON_DESTRUCTIVE")));
    assert!(run.stdout.contains("59 tools, 59 available now"), "{}", run.stdout);

    let show = h.run(&["tools", "show", "creator_plan_calendar"]);
    assert_eq!(show.code, 0);
    let spec = show.json();
    assert_eq!(spec["name"], "creator_plan_calendar");
    assert_eq!(spec["status"], "available");

    let missing = h.run(&["tools", "show", "browser_clik"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("did you mean `browser_click`"), "{}", missing.stderr);
}

#[test]
fn normalize_compare_spec_example() {
    let h = Halley::new();
    let args = json!({
        "schema": {"total_cost": "number", "warranty_months": "number", "return_days": "number"},
        "items": [
            {"source": "storeA", "raw": {"price": 100, "ship": 5, "warranty": "12m"}},
            {"source": "storeB", "raw": {"price": 98, "delivery": 12, "warranty_months": 24}}
        ]
    });
    let run = h.call("normalize_compare", &args);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let r = run.result();
    assert_eq!(r["status"], "ok");
    assert_eq!(r["permission_scope"], "READ_ONLY");
    assert_eq!(r["error"], Value::Null);
    let items = r["data"]["items"].as_array().expect("items");
    let by_source = |s: &str| items.iter().find(|i| i["source"] == s).cloned().expect("item");
    let a = by_source("storeA");
    let b = by_source("storeB");
    assert_eq!(a["normalized"], json!({"total_cost": 105, "warranty_months": 12, "return_days": null}));
    assert_eq!(b["normalized"], json!({"total_cost": 110, "warranty_months": 24, "return_days": null}));
    assert_eq!(a["missing_fields"], json!(["return_days"]));
    assert_eq!(b["missing_fields"], json!(["return_days"]));
}

#[test]
fn normalize_compare_vnd_in_vietnamese() {
    let h = Halley::new();
    let args = json!({
        "schema": {"total_cost": "number", "warranty_months": "number"},
        "items": [
            {"source": "Cửa hàng A", "raw": {"Giá": "21.490.000 ₫", "Phí vận chuyển": "Miễn phí", "Bảo hành": "24 tháng"}},
            {"source": "Cửa hàng B", "raw": {"giá": "20.990.000đ", "phí ship": "30.000đ", "bảo hành": "1 năm"}}
        ]
    });
    let run = h.call("normalize_compare", &args);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let r = run.result();
    let items = r["data"]["items"].as_array().expect("items");
    let a = items.iter().find(|i| i["source"] == "Cửa hàng A").expect("A");
    let b = items.iter().find(|i| i["source"] == "Cửa hàng B").expect("B");
    assert_eq!(a["normalized"]["total_cost"], json!(21490000));
    assert_eq!(a["normalized"]["warranty_months"], json!(24));
    assert_eq!(b["normalized"]["total_cost"], json!(21020000));
    assert_eq!(b["normalized"]["warranty_months"], json!(12));
    assert_eq!(a["currency"], "VND");
}

#[test]
fn normalize_compare_ranks_by_the_schema() {
    let h = Halley::new();
    let args = json!({
        "schema": {"total_cost": "number", "warranty_months": "number", "return_days": "number"},
        "items": [
            {"source": "storeA", "raw": {"price": 100, "ship": 5, "warranty": "12m"}},
            {"source": "storeB", "raw": {"price": 98, "delivery": 12, "warranty_months": 24}}
        ]
    });
    let data = h.call("normalize_compare", &args).result()["data"].clone();
    assert_eq!(data["best"], "storeA");
    let order: Vec<&str> = data["ranking"].as_array().unwrap().iter().filter_map(|r| r["source"].as_str()).collect();
    assert_eq!(order, vec!["storeA", "storeB"]);
    // Ranking by warranty first flips it.
    let mut args = args;
    args["rank_by"] = json!([{"field": "warranty_months", "order": "desc"}]);
    let data = h.call("normalize_compare", &args).result()["data"].clone();
    assert_eq!(data["best"], "storeB");
}
