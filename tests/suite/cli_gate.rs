//! `halley rules list|add|remove` and `halley audit` over a real data dir.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use halley::gate::audit::{GateRecord, args_hash, record};
use halley::gate::policy::Decision;
use halley::store::Store;
use halley::tools::PermissionScope;

use crate::common::Halley;

/// A rule as `rules list --json` prints it, with its id and time blanked.
fn blank(mut rule: Value) -> Value {
    assert!(rule["id"].as_str().is_some_and(|id| id.starts_with("rule-")), "{rule}");
    assert!(rule["created_at"].as_str().is_some_and(|t| t.ends_with('Z')), "{rule}");
    rule["id"] = Value::Null;
    rule["created_at"] = Value::Null;
    rule
}

#[test]
fn add_list_and_remove_rules() {
    let h = Halley::new();
    let empty = h.run(&["rules", "list", "--json"]);
    assert_eq!((empty.code, empty.json()), (0, json!([])), "{}", empty.stderr);
    assert!(!h.data_dir().exists(), "listing creates nothing");

    let never = h.run(&["rules", "add", "--site", "https://evil.vn/login", "never", "--note", "phishing"]);
    assert_eq!(never.code, 0, "{}", never.stderr);
    assert!(never.stdout.starts_with("added rule rule-"), "{}", never.stdout);
    let allow =
        h.run(&["rules", "add", "--site", "*.Shop.vn", "--tool", "browser_click", "--min-scope", "payment", "allow"]);
    assert_eq!(allow.code, 0, "{}", allow.stderr);
    let ask = h.run(&["rules", "add", "--tool", "browser_close_tab", "ask"]);
    assert_eq!(ask.code, 0, "{}", ask.stderr);

    let listed = h.run(&["rules", "list", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let rules = listed.json().as_array().unwrap().clone();
    let first_id = rules[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        rules.into_iter().map(blank).collect::<Vec<_>>(),
        vec![
            json!({"id": null, "kind": "site", "site": "https://evil.vn", "tool": null, "min_scope": null,
                   "decision": "never", "note": "phishing", "created_at": null}),
            json!({"id": null, "kind": "site_tool", "site": "*.shop.vn", "tool": "browser_click", "min_scope": "PAYMENT",
                   "decision": "allow", "note": "", "created_at": null}),
            json!({"id": null, "kind": "tool", "site": null, "tool": "browser_close_tab", "min_scope": null,
                   "decision": "ask", "note": "", "created_at": null}),
        ]
    );
    let table = h.run(&["rules", "list"]);
    assert_eq!(table.code, 0);
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.contains("allow") && l.contains("browser_click on *.shop.vn (PAYMENT and above)")),
        "{}",
        table.stdout
    );

    let removed = h.run(&["rules", "remove", &first_id]);
    assert_eq!(
        (removed.code, removed.stdout.trim()),
        (0, format!("removed rule {first_id}").as_str()),
        "{}",
        removed.stderr
    );
    assert_eq!(h.run(&["rules", "list", "--json"]).json().as_array().unwrap().len(), 2);
    let again = h.run(&["rules", "remove", &first_id]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("not_found") && again.stderr.contains(&first_id), "{}", again.stderr);
}

#[test]
fn bad_rules_are_usage_errors_that_write_nothing() {
    let h = Halley::new();
    let cases: [(&[&str], &str); 6] = [
        (&["rules", "add", "allow"], "--site ORIGIN, --tool NAME or both"),
        (&["rules", "add", "--tool", "browser_click", "--min-scope", "EXPENSIVE", "ask"], "unknown scope `EXPENSIVE`"),
        (&["rules", "add", "--site", "shop.vn", "never"], "is not a site"),
        (&["rules", "add", "--site", "ftp://shop.vn", "never"], "is not a site"),
        (&["rules", "add", "--tool", "browser_click", "sometimes"], "sometimes"),
        (&["rules", "add", "--tool", "browser_click"], "DECISION"),
    ];
    for (args, message) in cases {
        let run = h.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    let missing = h.run(&["rules", "remove", "rule-nope"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(!h.data_dir().exists());
}

#[test]
fn audit_on_an_empty_data_dir_is_an_empty_list() {
    let h = Halley::new();
    let run = h.run(&["audit", "--json"]);
    assert_eq!((run.code, run.json()), (0, json!([])), "{}", run.stderr);
    let table = h.run(&["audit"]);
    assert_eq!((table.code, table.stdout.trim()), (0, "no audit entries yet"));
    assert!(!h.data_dir().exists());
}

#[tokio::test]
async fn audit_lists_recorded_decisions_newest_first() {
    let h = Halley::new();
    std::fs::create_dir_all(h.data_dir()).unwrap();
    let store = Store::open(&h.data_dir().join("halley.db")).await.unwrap();
    let args = json!({"ref": "e7", "text": "secret card number 4111"});
    let ask = Decision::Ask("PAYMENT: needs your confirmation because it costs money".into());
    record(
        &store,
        GateRecord {
            tool: "browser_click".into(),
            args_hash: args_hash(&args),
            declared: PermissionScope::WriteNonDestructive,
            effective: PermissionScope::Payment,
            decision: &ask,
            answered_by: "policy",
            origin: Some("https://shop.vn".into()),
            run_id: Some("run-1".into()),
            reasons: vec![ask.reason().unwrap().to_owned()],
        },
    )
    .await
    .unwrap();
    record(
        &store,
        GateRecord {
            tool: "browser_click".into(),
            args_hash: args_hash(&args),
            declared: PermissionScope::WriteNonDestructive,
            effective: PermissionScope::Payment,
            decision: &Decision::Deny("the user said no: too expensive".into()),
            answered_by: "user",
            origin: Some("https://shop.vn".into()),
            run_id: Some("run-1".into()),
            reasons: vec![],
        },
    )
    .await
    .unwrap();
    store.close().await;

    let run = h.run(&["audit", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut entries = run.json().as_array().unwrap().clone();
    for e in &mut entries {
        assert!(e["at"].as_str().is_some_and(|t| t.ends_with('Z')), "{e}");
        e["at"] = Value::Null;
    }
    let hash = args_hash(&args);
    assert_eq!(
        entries,
        vec![
            json!({"id": 2, "at": null, "event": "gate_decision", "tool": "browser_click",
                   "declared": "WRITE_NON_DESTRUCTIVE", "effective": "PAYMENT", "decision": "deny",
                   "answered_by": "user", "origin": "https://shop.vn", "run_id": "run-1", "args_hash": hash,
                   "reason": "the user said no: too expensive", "reasons": []}),
            json!({"id": 1, "at": null, "event": "gate_decision", "tool": "browser_click",
                   "declared": "WRITE_NON_DESTRUCTIVE", "effective": "PAYMENT", "decision": "ask",
                   "answered_by": "policy", "origin": "https://shop.vn", "run_id": "run-1", "args_hash": hash,
                   "reason": "PAYMENT: needs your confirmation because it costs money",
                   "reasons": ["PAYMENT: needs your confirmation because it costs money"]}),
        ]
    );
    assert!(!run.stdout.contains("4111"), "argument values never reach the audit log");

    let limited = h.run(&["audit", "--json", "--limit", "1"]);
    assert_eq!(limited.json().as_array().unwrap().len(), 1);
    let table = h.run(&["audit"]);
    assert_eq!(table.code, 0);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", table.stdout);
    assert!(lines[0].starts_with("TIME") && lines[0].contains("DECISION"), "{}", lines[0]);
    for (line, (decision, by)) in lines[1..].iter().zip([("deny", "user"), ("ask", "policy")]) {
        assert!(line.contains("browser_click") && line.contains("WRITE_NON_DESTRUCTIVE → PAYMENT"), "{line}");
        assert!(line.contains(decision) && line.contains(by) && line.ends_with("https://shop.vn"), "{line}");
    }
    let bad_limit = h.run(&["audit", "--limit", "many"]);
    assert_eq!(bad_limit.code, 2);
}
