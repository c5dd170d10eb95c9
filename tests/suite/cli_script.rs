//! `halley tools script`: a JSONL macro run in one session.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

#[test]
fn a_script_runs_every_line_and_prints_one_result_each() {
    let h = Halley::new();
    h.write_file("visa.pdf", b"%PDF-1.4 visa");
    let script = h.write_file(
        "macro.jsonl",
        concat!(
            "# remember preferences, keep a document, read them back\n",
            r#"{"tool": "user_profile_set", "args": {"set": {"travel.seat": "cửa sổ"}}}"#,
            "\n",
            "\n",
            r#"{"tool": "files_store", "args": {"file_path": "file://visa.pdf", "tags": ["visa"]}}"#,
            "\n",
            r#"{"tool": "user_profile_get", "args": {"keys": ["travel.seat"]}}"#,
            "\n",
            r#"{"tool": "files_get", "args": {"tags": ["visa"]}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let run = h.run(&["tools", "script", script.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = lines(&run.stdout);
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r["status"] == "ok"));
    assert_eq!(results[2]["data"]["values"], json!({"travel.seat": "cửa sổ"}));
    assert_eq!(results[3]["data"]["files"][0]["name"], "visa.pdf");
}

#[test]
fn a_bad_line_runs_nothing() {
    let h = Halley::new();
    let script = h.write_file(
        "bad.jsonl",
        concat!(
            r#"{"tool": "user_profile_set", "args": {"set": {"a": 1}}}"#,
            "\n",
            r#"{"tool": "browser_navigate", "args": {"url": 5}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let run = h.run(&["tools", "script", script.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("line 2:") && run.stderr.contains("field `url`"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(!h.data_dir().exists());

    let not_json = h.write_file("nj.jsonl", b"{\"tool\": \"files_get\"\nnope\n");
    let run = h.run(&["tools", "script", not_json.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("line 1:"), "{}", run.stderr);

    let missing = h.run(&["tools", "script", "/nonexistent/macro.jsonl"]);
    assert_eq!(missing.code, 2);
}

#[test]
fn a_failed_call_stops_the_script_unless_keep_going() {
    let h = Halley::new();
    let script = h.write_file(
        "stop.jsonl",
        concat!(
            r#"{"tool": "files_get", "args": {"id": "file-missing"}}"#,
            "\n",
            r#"{"tool": "user_profile_set", "args": {"set": {"after": true}}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let run = h.run(&["tools", "script", script.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert_eq!(lines(&run.stdout).len(), 1);
    assert!(run.stderr.contains("line 1 (files_get) failed [not_found]"), "{}", run.stderr);

    let run = h.run(&["tools", "script", "--keep-going", script.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let results = lines(&run.stdout);
    assert_eq!(results.len(), 2);
    assert_eq!(results[1]["status"], "ok");
}
