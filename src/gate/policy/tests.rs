//! The policy's decision matrix and answers (origins and site patterns: `vocab::origin`).

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::store::gate_rules::RuleKind;
use crate::tools::PermissionScope::*;

fn rule(site: Option<&str>, tool: Option<&str>, min: Option<PermissionScope>, decision: RuleDecision) -> GateRuleRow {
    GateRuleRow {
        id: "rule-test".into(),
        kind: match (site, tool) {
            (Some(_), Some(_)) => RuleKind::SiteTool,
            (Some(_), None) => RuleKind::Site,
            _ => RuleKind::Tool,
        },
        site: site.map(|s| SitePattern::parse(s).unwrap().to_string()),
        tool: tool.map(str::to_owned),
        min_scope: min,
        decision,
        note: String::new(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
    }
}

fn ask(reason: &str) -> Decision {
    Decision::Ask(reason.into())
}

fn deny(reason: &str) -> Decision {
    Decision::Deny(reason.into())
}

#[test]
fn merge_deny_beats_ask_beats_allow() {
    let (allow, a1, a2, d1, d2) = (Decision::Allow, ask("a1"), ask("a2"), deny("d1"), deny("d2"));
    let table = [
        (allow.clone(), allow.clone(), allow.clone()),
        (allow.clone(), a1.clone(), a1.clone()),
        (a1.clone(), allow.clone(), a1.clone()),
        (a1.clone(), a2.clone(), a1.clone()),
        (a2.clone(), d1.clone(), d1.clone()),
        (d1.clone(), a2.clone(), d1.clone()),
        (d1.clone(), d2.clone(), d1.clone()),
        (allow.clone(), d2.clone(), d2.clone()),
        (d2.clone(), allow, d2),
    ];
    for (a, b, want) in table {
        assert_eq!(a.clone().merge(b.clone()), want, "{a:?} merge {b:?}");
    }
    assert_eq!([Decision::Allow.as_str(), a1.as_str(), d1.as_str()], ["allow", "ask", "deny"]);
    assert_eq!(serde_json::to_value(&a1).unwrap(), json!({"decision": "ask", "reason": "a1"}));
    assert_eq!(serde_json::to_value(Decision::Allow).unwrap(), json!({"decision": "allow"}));
}

#[test]
fn decision_matrix() {
    use RuleDecision::{Allow as RAllow, Ask as RAsk, Never};
    let policy = Policy::new(vec![
        rule(Some("https://evil.vn"), None, None, Never),
        rule(Some("https://bank.vn"), Some("browser_type"), None, RAsk),
        rule(Some("*.shop.vn"), None, None, RAllow),
        rule(Some("https://pay.vn"), Some("browser_click"), Some(Payment), RAllow),
        rule(None, Some("social_post"), None, Never),
        rule(Some("https://mixed.vn"), None, Some(Submit), RAsk),
        rule(Some("https://mixed.vn"), None, None, RAllow),
    ]);
    policy.allow_for_session("browser_click", Submit, Some("https://a.com/cart"));

    let submit = "SUBMIT: needs your confirmation because it submits a form or sends data off this computer";
    let payment = "PAYMENT: needs your confirmation because it costs money";
    let destructive =
        "DESTRUCTIVE: needs your confirmation because it deletes, cancels or changes something hard to undo";
    let publish = "PUBLISH: needs your confirmation because it posts or does something public";
    #[rustfmt::skip]
    // (tool, declared, effective, origin, classifier deny, expected)
    type Case<'a> = (&'a str, PermissionScope, PermissionScope, Option<&'a str>, Option<&'a str>, Decision);
    let table: Vec<Case> = vec![
        // Defaults: READ_ONLY and WRITE_NON_DESTRUCTIVE pass, SUBMIT and above ask.
        ("browser_snapshot", ReadOnly, ReadOnly, Some("https://b.com/x"), None, Decision::Allow),
        ("browser_type", WriteNonDestructive, WriteNonDestructive, Some("https://b.com"), None, Decision::Allow),
        ("files_store", WriteNonDestructive, WriteNonDestructive, None, None, Decision::Allow),
        ("browser_click", WriteNonDestructive, Submit, Some("https://b.com"), None, ask(submit)),
        ("social_draft", Publish, Publish, Some("https://b.com"), None, ask(publish)),
        ("browser_click", WriteNonDestructive, Payment, None, None, ask(payment)),
        ("browser_close_tab", Destructive, Destructive, Some("https://b.com"), None, ask(destructive)),
        ("browser_click", Submit, Submit, Some("about:blank"), None, ask(submit)),
        // The declared scope is the floor of the effective one.
        ("browser_click", Payment, ReadOnly, Some("https://b.com"), None, ask(payment)),
        // The session approval covers exactly (tool, effective scope, origin).
        ("browser_click", WriteNonDestructive, Submit, Some("https://a.com"), None, Decision::Allow),
        ("browser_click", WriteNonDestructive, Submit, Some("https://A.com:443/other"), None, Decision::Allow),
        ("browser_press_key", WriteNonDestructive, Submit, Some("https://a.com"), None, ask(submit)),
        ("browser_click", WriteNonDestructive, Payment, Some("https://a.com"), None, ask(payment)),
        ("browser_click", WriteNonDestructive, Submit, Some("https://b.com"), None, ask(submit)),
        ("browser_click", WriteNonDestructive, Submit, Some("http://a.com"), None, ask(submit)),
        ("browser_click", WriteNonDestructive, Submit, Some("https://a.com:8443"), None, ask(submit)),
        ("browser_click", WriteNonDestructive, Submit, None, None, ask(submit)),
        // The classifier's deny beats everything, and its reason is kept.
        (
            "browser_type",
            WriteNonDestructive,
            WriteNonDestructive,
            Some("https://b.com"),
            Some("a CAPTCHA"),
            deny("a CAPTCHA"),
        ),
        ("browser_click", WriteNonDestructive, Submit, Some("https://a.com"), Some("a CAPTCHA"), deny("a CAPTCHA")),
        ("browser_click", WriteNonDestructive, Submit, Some("https://shop.vn"), Some("a CAPTCHA"), deny("a CAPTCHA")),
        ("browser_snapshot", ReadOnly, ReadOnly, Some("https://evil.vn"), Some("a CAPTCHA"), deny("a CAPTCHA")),
        // never → Deny, at any scope; ask → Ask even where the default allows.
        (
            "browser_snapshot",
            ReadOnly,
            ReadOnly,
            Some("https://evil.vn/page"),
            None,
            deny("you set never for https://evil.vn"),
        ),
        ("social_post", Publish, Publish, None, None, deny("you set never for social_post")),
        ("social_post", Publish, Publish, Some("https://shop.vn"), None, deny("you set never for social_post")),
        (
            "browser_type",
            WriteNonDestructive,
            WriteNonDestructive,
            Some("https://bank.vn"),
            None,
            ask("you set ask for browser_type on https://bank.vn"),
        ),
        ("browser_click", WriteNonDestructive, WriteNonDestructive, Some("https://bank.vn"), None, Decision::Allow),
        // Ask beats Allow between rules; an ask rule's min_scope bounds it.
        (
            "browser_click",
            WriteNonDestructive,
            Submit,
            Some("https://mixed.vn"),
            None,
            ask("you set ask for https://mixed.vn (SUBMIT and above)"),
        ),
        ("browser_click", WriteNonDestructive, WriteNonDestructive, Some("https://mixed.vn"), None, Decision::Allow),
        // An allow rule without min_scope lifts SUBMIT and PUBLISH only.
        ("browser_click", WriteNonDestructive, Submit, Some("https://shop.vn/cart"), None, Decision::Allow),
        ("social_draft", Publish, Publish, Some("https://m.shop.vn"), None, Decision::Allow),
        ("browser_click", WriteNonDestructive, Payment, Some("https://shop.vn"), None, ask(payment)),
        ("browser_close_tab", Destructive, Destructive, Some("https://shop.vn"), None, ask(destructive)),
        ("browser_click", WriteNonDestructive, Submit, Some("https://notshop.vn"), None, ask(submit)),
        // An allow rule whose min_scope is PAYMENT lifts PAYMENT and DESTRUCTIVE, not below it.
        ("browser_click", WriteNonDestructive, Payment, Some("https://pay.vn"), None, Decision::Allow),
        ("browser_click", WriteNonDestructive, Destructive, Some("https://pay.vn"), None, Decision::Allow),
        ("browser_click", WriteNonDestructive, Submit, Some("https://pay.vn"), None, ask(submit)),
        ("browser_type", WriteNonDestructive, Payment, Some("https://pay.vn"), None, ask(payment)),
    ];
    for (tool, declared, effective, origin, deny, want) in table {
        let got = policy.decide(tool, declared, effective, origin, deny);
        assert_eq!(got, want, "{tool} {declared} -> {effective} on {origin:?}, deny {deny:?}");
    }
}

#[test]
fn allow_rules_need_an_explicit_high_min_scope_for_payment_and_destructive() {
    use RuleDecision::Allow as RAllow;
    for (min, payment_allowed) in [
        (None, false),
        (Some(ReadOnly), false),
        (Some(Submit), false),
        (Some(Payment), true),
        (Some(Destructive), false),
    ] {
        let policy = Policy::new(vec![rule(Some("https://shop.vn"), None, min, RAllow)]);
        let got = policy.decide("browser_click", Submit, Payment, Some("https://shop.vn"), None);
        assert_eq!(got == Decision::Allow, payment_allowed, "min_scope {min:?}: {got:?}");
        let got = policy.decide("browser_close_tab", Destructive, Destructive, Some("https://shop.vn"), None);
        assert_eq!(got == Decision::Allow, min >= Some(Payment), "min_scope {min:?}: {got:?}");
    }
}

#[test]
fn leaving_the_task_origins_asks() {
    let outside =
        |o: &str| ask(&format!("{o} is outside this task's allowed origins (https://shop.vn, *.vietjetair.com)"));
    let policy = Policy::new(vec![rule(Some("https://other.vn"), None, None, RuleDecision::Allow)]);
    let allowed: Vec<String> = vec!["https://shop.vn/".into(), "*.VietjetAir.com".into(), "not a site".into()];
    let within = |p: &Policy, allowed: &[String], tool: &str, scope, origin: Option<&str>| {
        p.evaluate(tool, scope, scope, origin, None, Some(allowed)).decision
    };
    policy.allow_for_session("browser_snapshot", ReadOnly, Some("https://approved.vn"));
    #[rustfmt::skip]
    let table: Vec<(&str, PermissionScope, Option<&str>, Decision)> = vec![
        ("browser_snapshot", ReadOnly, Some("https://shop.vn/p/1"), Decision::Allow),
        ("browser_snapshot", ReadOnly, Some("https://book.vietjetair.com"), Decision::Allow),
        ("browser_snapshot", ReadOnly, Some("https://vietjetair.com"), Decision::Allow),
        ("files_store", WriteNonDestructive, None, Decision::Allow),
        ("browser_snapshot", ReadOnly, Some("https://b.com/x"), outside("https://b.com")),
        ("browser_snapshot", ReadOnly, Some("http://shop.vn"), outside("http://shop.vn")),
        // A standing allow rule does not widen the task's origins...
        ("browser_snapshot", ReadOnly, Some("https://other.vn"), outside("https://other.vn")),
        // ...an approval for this session of exactly that call does.
        ("browser_snapshot", ReadOnly, Some("https://approved.vn"), Decision::Allow),
        ("browser_type", WriteNonDestructive, Some("https://approved.vn"), outside("https://approved.vn")),
        // Both asks: the scope's reason comes first.
        ("browser_click", Submit, Some("https://b.com"), ask("SUBMIT: needs your confirmation because it submits a form or sends data off this computer")),
    ];
    for (tool, scope, origin, want) in table {
        assert_eq!(within(&policy, &allowed, tool, scope, origin), want, "{tool} {scope} on {origin:?}");
    }
    let nowhere = Policy::default();
    assert_eq!(
        within(&nowhere, &["nonsense".to_owned()], "browser_snapshot", ReadOnly, Some("https://shop.vn")),
        ask("https://shop.vn is outside this task's allowed origins ()")
    );
}

#[test]
fn evaluate_says_who_decided_and_why() {
    let policy = Policy::new(vec![
        rule(Some("https://shop.vn"), None, None, RuleDecision::Allow),
        rule(Some("https://evil.vn"), None, None, RuleDecision::Never),
    ]);
    policy.allow_for_session("browser_click", Submit, Some("https://a.com"));
    let by = |origin: &str, scope: PermissionScope| {
        let v = policy.evaluate("browser_click", scope, scope, Some(origin), None, None);
        (v.decision.as_str(), v.answered_by, v.reasons)
    };
    assert_eq!(by("https://b.com", ReadOnly), ("allow", "policy", vec![]));
    assert_eq!(
        by("https://shop.vn", Submit),
        ("allow", "rule", vec!["SUBMIT allowed by your rule for https://shop.vn".to_owned()])
    );
    assert_eq!(by("https://a.com", Submit), ("allow", "session", vec!["SUBMIT allowed for this session".to_owned()]));
    assert_eq!(by("https://evil.vn", ReadOnly), ("deny", "rule", vec!["you set never for https://evil.vn".to_owned()]));
    let v = policy.evaluate("browser_click", Payment, Payment, Some("https://evil.vn"), Some("a CAPTCHA"), None);
    assert_eq!(
        (v.decision, v.answered_by, v.reasons),
        (
            deny("a CAPTCHA"),
            "policy",
            vec![
                "a CAPTCHA".to_owned(),
                "you set never for https://evil.vn".to_owned(),
                "PAYMENT: needs your confirmation because it costs money".to_owned()
            ]
        )
    );
}

#[test]
fn answers_become_decisions() {
    let table = [
        (Some(json!({"approved": true, "user_edits": {}, "reason": ""})), Decision::Allow),
        (Some(json!({"approved": true})), Decision::Allow),
        (Some(json!({"approved": false, "reason": "too expensive"})), deny("the user said no: too expensive")),
        (Some(json!({"approved": false, "reason": "  "})), deny("the user said no")),
        (Some(json!({"approved": false})), deny("the user said no")),
        (None, deny("no answer came (timed out, or nobody could be asked)")),
        (Some(json!("yes")), deny("the answer was malformed (not a JSON object)")),
        (Some(json!(null)), deny("the answer was malformed (not a JSON object)")),
        (Some(json!({"approved": "true"})), deny("the answer was malformed (`approved` is missing or not true/false)")),
        (Some(json!({"approved": 1})), deny("the answer was malformed (`approved` is missing or not true/false)")),
        (Some(json!({})), deny("the answer was malformed (`approved` is missing or not true/false)")),
    ];
    for (answer, want) in table {
        assert_eq!(answer_to_decision(answer.as_ref()), want, "{answer:?}");
    }
}

#[tokio::test]
async fn load_reads_the_stored_rules() {
    let (_dir, store) = crate::store::test_support::open_temp().await;
    store
        .gate_rules()
        .add(&crate::store::gate_rules::NewGateRule {
            site: Some("https://evil.vn".into()),
            tool: None,
            min_scope: None,
            decision: RuleDecision::Never,
            note: String::new(),
        })
        .await
        .unwrap();
    let policy = Policy::load(&store).await.unwrap();
    assert_eq!(policy.rules().len(), 1);
    assert_eq!(
        policy.decide("browser_snapshot", ReadOnly, ReadOnly, Some("https://evil.vn"), None),
        deny("you set never for https://evil.vn")
    );
}

#[test]
fn only_an_allow_rule_or_the_session_lifts_an_untrusted_tools_ask() {
    let tool = "fs__read_text_file";
    let none = Policy::new(vec![]);
    assert_eq!(none.standing_allow(tool, WriteNonDestructive, None), None);
    // Rules about other tools, asks and nevers, and site rules (no page) lift nothing.
    let others = Policy::new(vec![
        rule(None, Some("fs__write_file"), None, RuleDecision::Allow),
        rule(None, Some(tool), None, RuleDecision::Ask),
        rule(Some("https://shop.vn"), None, None, RuleDecision::Allow),
    ]);
    assert_eq!(others.standing_allow(tool, WriteNonDestructive, None), None);
    let allowed = Policy::new(vec![rule(None, Some(tool), None, RuleDecision::Allow)]);
    assert_eq!(
        allowed.standing_allow(tool, WriteNonDestructive, None).as_deref(),
        Some("allowed by your rule for fs__read_text_file")
    );
    // A plain allow never reaches DESTRUCTIVE (a server that says it destroys).
    assert_eq!(allowed.standing_allow(tool, Destructive, None), None);
    none.allow_for_session(tool, WriteNonDestructive, None);
    assert_eq!(none.standing_allow(tool, WriteNonDestructive, None).as_deref(), Some("allowed for this session"));
}

/// "Always, for this session" on a page's POST to a site lifts nothing for
/// another method there, nor for the same method on another site (issue
/// 42, item 4).
#[test]
fn a_session_approval_is_keyed_by_the_requests_method_and_site() {
    let policy = Policy::new(Vec::new());
    policy.allow_for_session("browser_click POST", Payment, Some("https://shop.vn"));
    let decide = |session_tool: &str, origin: &str| {
        policy
            .evaluate_as("browser_click", session_tool, WriteNonDestructive, Payment, Some(origin), None, None)
            .decision
    };
    assert_eq!(decide("browser_click POST", "https://shop.vn/api/pay"), Decision::Allow);
    assert!(matches!(decide("browser_click GET", "https://shop.vn/order?qty=50"), Decision::Ask(_)));
    assert!(matches!(decide("browser_click POST", "https://pay.other.vn/charge"), Decision::Ask(_)));
    assert!(matches!(decide("browser_click", "https://shop.vn/"), Decision::Ask(_)));
}
