//! Bad input gives a clear error, a non-zero exit, and writes nothing.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::Halley;

#[test]
fn invalid_json_is_a_usage_error_that_writes_nothing() {
    let h = Halley::new();
    let run = h.run(&["tools", "call", "normalize_compare", "--args", "{not json"]);
    assert_eq!(run.code, 2);
    let r = run.result();
    assert_eq!(r["error"]["code"], "invalid_arguments");
    assert!(r["error"]["message"].as_str().unwrap().starts_with("--args is not valid JSON"));
    assert!(run.stderr.contains("invalid_arguments"));
    assert!(!h.data_dir().exists());

    let arr = h.run(&["tools", "call", "normalize_compare", "--args", "[1,2]"]);
    assert_eq!(arr.code, 2);
    assert!(!h.data_dir().exists());
}

#[test]
fn unknown_tool_is_a_usage_error_that_writes_nothing() {
    let h = Halley::new();
    let run = h.run(&["tools", "call", "browser_fly", "--args", "{}"]);
    assert_eq!(run.code, 2);
    let r = run.result();
    assert_eq!(r["error"]["code"], "unknown_tool");
    assert!(!h.data_dir().exists());
}

#[test]
fn schema_violations_name_the_field_and_write_nothing() {
    let h = Halley::new();
    let run = h.call("browser_navigate", &json!({"url": 5}));
    assert_eq!(run.code, 2);
    let r = run.result();
    assert_eq!(r["error"]["code"], "invalid_arguments");
    assert_eq!(r["permission_scope"], "WRITE_NON_DESTRUCTIVE");
    assert!(r["error"]["message"].as_str().unwrap().contains("field `url`"), "{}", r["error"]["message"]);

    let run = h.call("user_profile_set", &json!({"sett": {}}));
    assert_eq!(run.code, 2);
    assert!(run.result()["error"]["message"].as_str().unwrap().contains("sett"));

    let run = h.call("files_store", &json!({"file_path": "file://x.png", "tags": "travel"}));
    assert_eq!(run.code, 2);
    assert!(run.result()["error"]["message"].as_str().unwrap().contains("field `tags`"));
    assert!(!h.data_dir().exists());
}

#[test]
fn an_unwritable_data_dir_is_a_clear_error() {
    let h = Halley::new();
    let blocker = h.write_file("blocker", b"a file where a directory should be");
    let run = h.run_with_data_dir(
        &blocker.join("data"),
        &["tools", "call", "user_profile_set", "--args", r#"{"set":{"a":1}}"#],
    );
    assert_eq!(run.code, 1);
    let r = run.result();
    assert_eq!(r["error"]["code"], "data_dir");
    assert!(r["error"]["message"].as_str().unwrap().contains("cannot create data directory"));
}

#[test]
fn clap_usage_errors_exit_2() {
    let h = Halley::new();
    assert_eq!(h.run(&["tools", "frobnicate"]).code, 2);
    assert_eq!(h.run(&["tools", "call"]).code, 2);
    let v = h.run(&["--version"]);
    assert_eq!(v.code, 0);
    assert!(v.stdout.starts_with("halley "));
}

#[test]
fn paths_reports_the_data_dir() {
    let h = Halley::new();
    let run = h.run(&["paths", "--json"]);
    assert_eq!(run.code, 0);
    let v = run.json();
    assert_eq!(v["data_dir"], json!(h.data_dir()));
    assert_eq!(v["database"], json!(h.data_dir().join("halley.db")));
    assert!(!h.data_dir().exists());
}
