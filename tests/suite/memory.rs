//! Agent memory end to end: the memory tools through `halley tools call`
//! (gated and audited), and `halley memory blocks|set|history|search|add`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;

/// `memory blocks --json` with each block's `updated_at` checked and blanked.
fn blocks(h: &Halley) -> Value {
    let run = h.run(&["memory", "blocks", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut v = run.json();
    for b in v.as_array_mut().expect("array") {
        assert!(b["updated_at"].as_str().is_some_and(|t| t.ends_with('Z')), "{b}");
        b["updated_at"] = Value::Null;
    }
    v
}

/// `memory history --json [LABEL]` with each change's time checked and blanked.
fn history(h: &Halley, label: Option<&str>) -> Value {
    let mut args = vec!["memory", "history", "--json"];
    args.extend(label);
    let run = h.run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut v = run.json();
    for c in v.as_array_mut().expect("array") {
        assert!(c["at"].as_str().is_some_and(|t| t.ends_with('Z')), "{c}");
        c["at"] = Value::Null;
    }
    v
}

fn persona() -> Value {
    let text = halley::builtin::memory::blocks::DEFAULT_PERSONA;
    json!({"label": "persona", "value": text, "chars": text.chars().count(), "char_limit": 2000, "updated_at": null})
}

#[test]
fn the_model_appends_to_a_block_through_the_gate() {
    let h = Halley::new();
    let call = h.call("core_memory_append", &json!({"label": "human", "content": "Tên: Nguyễn Văn An"}));
    assert_eq!(call.code, 0, "{}", call.stderr);
    assert_eq!(
        call.result(),
        json!({
            "status": "ok", "trace_id": null, "permission_scope": "WRITE_NON_DESTRUCTIVE", "risk_level": "medium",
            "current_url": null, "artifacts": [],
            "data": {"label": "human", "value": "Tên: Nguyễn Văn An", "chars": 18, "char_limit": 2000},
            "error": null
        })
    );
    let call = h.call("core_memory_append", &json!({"label": "human", "content": "Ăn chay"}));
    assert_eq!(call.code, 0, "{}", call.stderr);

    assert_eq!(
        blocks(&h),
        json!([
            {"label": "human", "value": "Tên: Nguyễn Văn An\nĂn chay", "chars": 26, "char_limit": 2000, "updated_at": null},
            persona(),
        ])
    );
    assert_eq!(
        history(&h, None),
        json!([
            {"label": "human", "actor": "agent", "at": null, "old_value": "Tên: Nguyễn Văn An", "new_value": "Tên: Nguyễn Văn An\nĂn chay"},
            {"label": "human", "actor": "agent", "at": null, "old_value": "", "new_value": "Tên: Nguyễn Văn An"},
            {"label": "human", "actor": "system", "at": null, "old_value": null, "new_value": ""},
            {"label": "persona", "actor": "system", "at": null, "old_value": null, "new_value": persona()["value"]},
        ])
    );

    // The call passed the gate, and the gate wrote it down.
    let audit = h.run(&["audit", "--json"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let decisions: Vec<Value> = audit
        .json()
        .as_array()
        .expect("array")
        .iter()
        .map(|e| json!([e["tool"], e["declared"], e["decision"]]))
        .collect();
    assert_eq!(
        decisions,
        vec![
            json!(["core_memory_append", "WRITE_NON_DESTRUCTIVE", "allow"]),
            json!(["core_memory_append", "WRITE_NON_DESTRUCTIVE", "allow"]),
        ]
    );
}

#[test]
fn replace_rewrites_once_and_the_user_sets_blocks() {
    let h = Halley::new();
    let set = h.run(&["memory", "set", "human", "Thích cà phê. Thích trà."]);
    assert_eq!((set.code, set.stdout.trim()), (0, "set block human: 24/2000 chars"), "{}", set.stderr);
    let own = h.run(&["memory", "set", "sở_thích", "Ghế cạnh cửa sổ", "--limit", "100"]);
    assert_eq!((own.code, own.stdout.trim()), (0, "created block sở_thích: 15/100 chars"), "{}", own.stderr);

    let twice =
        h.call("core_memory_replace", &json!({"label": "human", "old_content": "Thích", "new_content": "Ghét"}));
    assert_eq!(twice.code, 2, "{}", twice.stdout);
    assert_eq!(twice.result()["error"]["code"], "invalid_arguments");
    assert!(twice.stderr.contains("occurs 2 times in block `human`"), "{}", twice.stderr);

    let args = json!({"label": "human", "old_content": "Thích trà.", "new_content": "Uống trà sữa."});
    let once = h.call("core_memory_replace", &args);
    assert_eq!(once.code, 0, "{}", once.stderr);
    assert_eq!(
        once.result()["data"],
        json!({"label": "human", "value": "Thích cà phê. Uống trà sữa.", "chars": 27, "char_limit": 2000})
    );
    let args = json!({"label": "sở_thích", "old_content": " cạnh cửa sổ", "new_content": ""});
    assert_eq!(h.call("core_memory_replace", &args).code, 0);

    let got = blocks(&h);
    let values: Vec<(&str, &str)> =
        got.as_array().unwrap().iter().map(|b| (b["label"].as_str().unwrap(), b["value"].as_str().unwrap())).collect();
    assert_eq!(
        values,
        vec![
            ("human", "Thích cà phê. Uống trà sữa."),
            ("persona", persona()["value"].as_str().unwrap()),
            ("sở_thích", "Ghế")
        ]
    );
    assert_eq!(
        history(&h, Some("sở_thích")),
        json!([
            {"label": "sở_thích", "actor": "agent", "at": null, "old_value": "Ghế cạnh cửa sổ", "new_value": "Ghế"},
            {"label": "sở_thích", "actor": "user", "at": null, "old_value": null, "new_value": "Ghế cạnh cửa sổ"},
        ])
    );

    let table = h.run(&["memory", "blocks"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.starts_with("human  27/2000 chars\n  Thích cà phê. Uống trà sữa.\n\npersona  "),
        "{}",
        table.stdout
    );
    assert!(table.stdout.ends_with("sở_thích  3/100 chars\n  Ghế\n"), "{}", table.stdout);
}

#[test]
fn over_the_limit_fails_with_exit_2_and_changes_nothing() {
    let h = Halley::new();
    assert_eq!(h.run(&["memory", "set", "human", "0123456789", "--limit", "12"]).code, 0);
    let before = blocks(&h);

    let call = h.call("core_memory_append", &json!({"label": "human", "content": "abc"}));
    assert_eq!(call.code, 2, "{}", call.stdout);
    let r = call.result();
    assert_eq!((r["status"].as_str(), r["error"]["code"].as_str()), (Some("error"), Some("invalid_arguments")));
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("block `human` holds at most 12 characters; it has 10 and would have 14"), "{message}");

    let set = h.run(&["memory", "set", "human", "0123456789abc"]);
    assert_eq!(set.code, 2, "{}", set.stdout);
    assert!(set.stderr.contains("at most 12 characters, got 13"), "{}", set.stderr);

    assert_eq!(blocks(&h), before);
    let actors: Vec<Value> =
        history(&h, Some("human")).as_array().unwrap().iter().map(|c| c["actor"].clone()).collect();
    assert_eq!(actors, vec![json!("user"), json!("system")]);
}

#[test]
fn archival_search_ignores_vietnamese_diacritics() {
    let h = Halley::new();
    let insert = h.call(
        "archival_memory_insert",
        &json!({"content": "Khách sạn Mường Thanh ở Đà Nẵng, 1.200.000 ₫/đêm", "tags": ["Travel"]}),
    );
    assert_eq!(insert.code, 0, "{}", insert.stderr);
    let passage = insert.result()["data"].clone();
    assert!(passage["id"].as_str().is_some_and(|id| id.starts_with("passage-")), "{passage}");
    assert_eq!(passage["text"], "Khách sạn Mường Thanh ở Đà Nẵng, 1.200.000 ₫/đêm");
    assert_eq!(passage["tags"], json!(["travel"]));

    let add = h.run(&["memory", "add", "Mua laptop ASUS ở khach san? Không, ở cửa hàng", "--tag", "shopping"]);
    assert_eq!(add.code, 0, "{}", add.stderr);
    let other_id = add.stdout.trim().strip_prefix("added ").expect("added ID").to_owned();

    // Without an embedder, by words only (and said so); each passage with its score.
    let words_only = |mut data: Value| {
        assert_eq!(data["note"], "no embedder is set: searched by words only", "{data}");
        data.as_object_mut().unwrap().remove("note");
        for p in data["passages"].as_array_mut().unwrap() {
            assert!(p["score"].as_f64().is_some_and(|s| s > 0.0), "{p}");
            p.as_object_mut().unwrap().remove("score");
        }
        data
    };
    let found = h.call("archival_memory_search", &json!({"query": "khach san da nang"}));
    assert_eq!(found.code, 0, "{}", found.stderr);
    assert_eq!(words_only(found.result()["data"].clone()), json!({"passages": [passage.clone()]}));

    let found = h.call("archival_memory_search", &json!({"query": "KHÁCH SẠN", "tags": ["travel"]}));
    assert_eq!(words_only(found.result()["data"].clone()), json!({"passages": [passage.clone()]}));

    let cli = h.run(&["memory", "search", "KHÁCH SẠN", "--json"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let mut ids: Vec<String> =
        cli.json().as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_owned()).collect();
    ids.sort_unstable();
    let mut want = vec![passage["id"].as_str().unwrap().to_owned(), other_id];
    want.sort_unstable();
    assert_eq!(ids, want);

    let text = h.run(&["memory", "search", "da nang"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_eq!(
        text.stdout.lines().nth(1),
        Some("  Khách sạn Mường Thanh ở [Đà] [Nẵng], 1.200.000 ₫/đêm"),
        "{}",
        text.stdout
    );

    let punct = h.call("archival_memory_search", &json!({"query": "?!..."}));
    assert_eq!(punct.code, 2, "{}", punct.stdout);
    assert_eq!(punct.result()["error"]["code"], "invalid_arguments");
    let punct = h.run(&["memory", "search", "\"*"]);
    assert_eq!(punct.code, 2);
    assert!(punct.stderr.contains("nothing to search for"), "{}", punct.stderr);
}

#[test]
fn sensitive_profile_values_stay_out_of_memory() {
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": "B1234567"}}));
    assert_eq!(set.code, 0, "{}", set.stderr);

    let call = h.call("core_memory_append", &json!({"label": "human", "content": "Số hộ chiếu: B1234567"}));
    assert_eq!(call.code, 2, "{}", call.stdout);
    let message = call.result()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("Write the placeholder {{profile.travel.passport_no}} instead"), "{message}");
    assert!(!call.stdout.contains("B1234567") && !call.stderr.contains("B1234567"));

    let insert = h.call("archival_memory_insert", &json!({"content": "passport b1234567 expires 2030"}));
    assert_eq!(insert.code, 2, "{}", insert.stdout);

    let placeholder = h.call(
        "core_memory_append",
        &json!({"label": "human", "content": "Số hộ chiếu: {{profile.travel.passport_no}}"}),
    );
    assert_eq!(placeholder.code, 0, "{}", placeholder.stderr);
    let human = blocks(&h)[0].clone();
    assert_eq!(human["value"], "Số hộ chiếu: {{profile.travel.passport_no}}");
    let none = h.run(&["memory", "search", "passport", "--json"]);
    assert_eq!((none.code, none.json()), (0, json!([])));
}

#[test]
fn bad_memory_input_is_a_usage_error() {
    let h = Halley::new();
    let bad_label = h.run(&["memory", "set", "bad label", "x"]);
    assert_eq!(bad_label.code, 2);
    assert!(bad_label.stderr.contains("invalid block label \"bad label\""), "{}", bad_label.stderr);
    assert!(!h.data_dir().exists(), "bad input writes nothing");

    let zero = h.run(&["memory", "set", "human", "x", "--limit", "0"]);
    assert_eq!(zero.code, 2, "{}", zero.stderr);
    let empty = h.run(&["memory", "add", "  "]);
    assert_eq!(empty.code, 2, "{}", empty.stderr);
    assert!(!h.data_dir().exists(), "bad input writes nothing");

    let unknown = h.run(&["memory", "history", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("no memory block `nope`; the blocks are `human`, `persona`"), "{}", unknown.stderr);
    let call = h.call("core_memory_append", &json!({"label": "nope", "content": "x"}));
    assert_eq!(call.code, 2, "{}", call.stdout);
    assert_eq!(call.result()["error"]["message"], "no memory block `nope`; the blocks are `human`, `persona`");
}
