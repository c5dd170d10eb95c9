//! user_profile_set / user_profile_get through the CLI, persisted across
//! processes.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::Halley;

#[test]
fn profile_survives_a_new_process() {
    let h = Halley::new();
    let set = h.call(
        "user_profile_set",
        &json!({"set": {"travel.preferred_airlines": ["VN", "NH"], "shopping.budget_vnd": 25000000, "tên": "Nguyễn Văn A"}}),
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert_eq!(
        set.result(),
        json!({
            "status": "ok", "trace_id": null, "permission_scope": "WRITE_NON_DESTRUCTIVE", "risk_level": "medium",
            "current_url": null, "artifacts": [],
            "data": {"updated": ["shopping.budget_vnd", "travel.preferred_airlines", "tên"], "removed": []},
            "error": null
        })
    );
    assert!(h.data_dir().join("halley.db").is_file());

    let get = h.call("user_profile_get", &json!({"keys": ["travel", "tên", "hotel.stars"]}));
    assert_eq!(get.code, 0, "{}", get.stderr);
    assert_eq!(
        get.result()["data"],
        json!({
            "values": {"travel.preferred_airlines": ["VN", "NH"], "tên": "Nguyễn Văn A"},
            "missing": ["hotel.stars"]
        })
    );

    let all = h.call("user_profile_get", &json!({}));
    assert_eq!(all.result()["data"]["values"]["shopping.budget_vnd"], json!(25000000));

    let unset = h.call("user_profile_set", &json!({"set": {}, "unset": ["tên"]}));
    assert_eq!(unset.result()["data"], json!({"updated": [], "removed": ["tên"]}));
    let again = h.call("user_profile_get", &json!({"keys": ["tên"]}));
    assert_eq!(again.result()["data"], json!({"values": {}, "missing": ["tên"]}));
}

#[test]
fn bad_profile_keys_are_usage_errors() {
    let h = Halley::new();
    let run = h.call("user_profile_set", &json!({"set": {"bad key": 1}}));
    assert_eq!(run.code, 2, "{}", run.stdout);
    let r = run.result();
    assert_eq!(r["error"]["code"], "invalid_arguments");
    assert!(r["error"]["message"].as_str().unwrap().contains("bad key"));
}
