//! The plan's pure parts: items read from snapshot lines, parameters
//! resolved, the answer's template built and filled.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::answer::{self, NumberStyle, ReadValue};
use super::save::{parse_item, parse_report};
use super::*;

#[test]
fn items_are_read_from_snapshot_lines_and_reports() {
    assert_eq!(
        parse_item(r#"[e12] button "Thêm vào giỏ""#, None),
        Some(("e12".into(), "button".into(), Some("Thêm vào giỏ".into())))
    );
    let line = r#"[e3] link "Trang chủ" → /  [e4] link "Giỏ hàng" → /cart"#;
    assert_eq!(parse_item(line, Some("e4")), Some(("e4".into(), "link".into(), Some("Giỏ hàng".into()))));
    assert_eq!(parse_item(r#"[e7] textbox placeholder="Tìm""#, None), Some(("e7".into(), "textbox".into(), None)));
    assert_eq!(parse_item("no item here [x1] nope", None), None);
    assert_eq!(
        parse_report(r#"textbox "Số lượng" [e1]"#),
        Some(("e1".into(), "textbox".into(), Some("Số lượng".into())))
    );
    assert_eq!(parse_report("button [e9]"), Some(("e9".into(), "button".into(), None)));
    assert_eq!(parse_report("button \"x\""), None);
}

#[test]
fn the_answer_becomes_a_template_filled_with_the_new_values() {
    let values = vec![
        ReadValue { step: 1, pointer: "/data/price".into(), value: json!(21_490_000) },
        ReadValue { step: 1, pointer: "/data/name".into(), value: json!("Laptop ASUS Vivobook 15") },
        ReadValue { step: 1, pointer: "/data/currency".into(), value: json!("VND") },
    ];
    let t = answer::build("Laptop ASUS Vivobook 15 giá 21.490.000 ₫ (VND), còn 2 chiếc.", &values);
    assert_eq!(t.text, "{{slot.0}} giá {{slot.2}} ₫ ({{slot.1}}), còn 2 chiếc.");
    assert_eq!(t.slots[2].number, Some(NumberStyle { group: Some('.'), decimal: ',', decimals: 0 }));
    let results =
        vec![None, Some(json!({"data": {"price": 19_990_000, "name": "Laptop ASUS Vivobook 15", "currency": "VND"}}))];
    let (text, notes) = answer::render(&t, &results);
    assert_eq!(text, "Laptop ASUS Vivobook 15 giá 19.990.000 ₫ (VND), còn 2 chiếc.");
    assert!(notes.is_empty());
    // A value gone is written `?` and named.
    let (text, notes) = answer::render(&t, &[None, Some(json!({"data": {}}))]);
    assert!(text.contains("giá ? ₫"), "{text}");
    assert_eq!(notes.len(), 3);
}

#[test]
fn numbers_keep_their_style() {
    let style = |g, d, n| NumberStyle { group: g, decimal: d, decimals: n };
    assert_eq!(answer::render_number(1_299.5, style(Some(','), '.', 2)), "1,299.50");
    assert_eq!(answer::render_number(21_490_000.0, style(Some(' '), ',', 0)), "21 490 000");
    assert_eq!(answer::render_number(4.8, style(None, ',', 1)), "4,8");
    let values = vec![ReadValue { step: 0, pointer: "/rating".into(), value: json!(4.8) }];
    let t = answer::build("Đánh giá 4,8/5 sao", &values);
    assert_eq!(t.text, "Đánh giá {{slot.0}}/5 sao");
}

fn plan_with(params: Vec<Param>) -> Plan {
    Plan {
        version: PLAN_VERSION,
        task: String::new(),
        steps: vec![],
        params,
        answer: None,
        left_out: vec![],
        standing: vec![],
        repair: false,
        revision: 1,
    }
}

#[test]
fn parameters_are_checked() {
    let url = Param {
        name: "url".into(),
        kind: ParamKind::Url,
        default: Some("https://shop.vn/a".into()),
        used_in: "step 1 browser_navigate url".into(),
    };
    let qty = Param { name: "so_luong".into(), kind: ParamKind::Number, default: None, used_in: "step 3".into() };
    let plan = plan_with(vec![url, qty]);
    let pairs = |p: &[&str]| parse_pairs(&p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), "--param");
    let ok = replay::resolve_params(&plan, &pairs(&["so_luong=2"]).unwrap()).unwrap();
    assert_eq!((ok["url"].as_str(), ok["so_luong"].as_str()), ("https://shop.vn/a", "2"));
    let missing = replay::resolve_params(&plan, &[]).unwrap_err();
    assert!(missing.to_string().contains("missing parameter `so_luong`"), "{missing}");
    let unknown = replay::resolve_params(&plan, &pairs(&["colour=red"]).unwrap()).unwrap_err();
    assert!(unknown.to_string().contains("no parameter `colour`; it takes: url, so_luong"), "{unknown}");
    let bad_url = replay::resolve_params(&plan, &pairs(&["url=javascript:alert(1)", "so_luong=1"]).unwrap());
    assert!(bad_url.unwrap_err().to_string().contains("not an http(s) address"));
    assert!(pairs(&["novalue"]).unwrap_err().to_string().contains("is not NAME=VALUE"));
    assert!(pairs(&["=x"]).is_err());
}

#[test]
fn parameters_are_renamed_everywhere() {
    let mut plan = plan_with(vec![Param {
        name: "url".into(),
        kind: ParamKind::Url,
        default: Some("https://shop.vn/a".into()),
        used_in: "step 1".into(),
    }]);
    plan.steps.push(Step {
        tool: "browser_navigate".into(),
        args: json!({"url": "{{param.url}}"}),
        target: None,
        recorded_scope: PermissionScope::WriteNonDestructive,
        url: None,
    });
    let edits = ParamEdits {
        rename: vec![("url".into(), "product".into())],
        set: vec![("product".into(), "https://shop.vn/b".into())],
        require: vec![],
    };
    edit_params(&mut plan, &edits).unwrap();
    assert_eq!(plan.steps[0].args, json!({"url": "{{param.product}}"}));
    assert_eq!(plan.params[0].default.as_deref(), Some("https://shop.vn/b"));
    let bad = ParamEdits { rename: vec![("product".into(), "a b".into())], ..ParamEdits::default() };
    assert!(edit_params(&mut plan, &bad).is_err());
}

#[test]
fn tools_that_cannot_be_replayed_say_why() {
    assert_eq!(not_replayable("browser_click"), None);
    assert_eq!(not_replayable("browser_snapshot"), None);
    assert!(not_replayable("browser_switch_tab").unwrap().contains("tab"));
    assert!(not_replayable("core_memory_append").unwrap().contains("memory"));
    assert!(not_replayable("shop__order").unwrap().contains("MCP"));
}

fn order_request(qty: &str, destination: &str, amount: Option<f64>) -> crate::protocol::ConfirmationRequest {
    use crate::protocol::{AmountSource, ConfirmAmount, ConfirmField, ConfirmKind};
    crate::protocol::ConfirmationRequest {
        id: "c-1".into(),
        tool: "browser_click".into(),
        action_summary: "Đặt hàng".into(),
        fields: vec![
            ConfirmField { name: "qty".into(), label: "Số lượng".into(), value: qty.into(), masked: false },
            ConfirmField { name: "phone".into(), label: "SĐT".into(), value: "••••4567".into(), masked: true },
        ],
        destination: Some(destination.into()),
        url: Some("https://shop.vn/cart".into()),
        origin: Some("https://shop.vn".into()),
        page_total: None,
        risks: vec![],
        grading: vec![],
        method: None,
        scope: PermissionScope::Payment,
        risk_level: crate::tools::RiskLevel::High,
        expires_at: String::new(),
        run_id: None,
        kind: ConfirmKind::Pay,
        amount: amount.map(|value| {
            Box::new(ConfirmAmount { value, currency: Some("VND".into()), source: AmountSource::Request, parts: None })
        }),
        site: Some("shop.vn".into()),
        target: Some("Đặt hàng".into()),
        plain: vec![],
    }
}

#[test]
fn a_standing_approval_covers_its_exact_shape_and_lower_amounts() {
    let approved = StandingApproval::of(&order_request("2", "https://shop.vn/checkout", Some(21_490_000.0)));
    assert!(approved.covers(&order_request("2", "https://shop.vn/checkout", Some(21_490_000.0))));
    assert!(approved.covers(&order_request("2", "https://shop.vn/checkout", Some(19_990_000.0))), "cheaper");
    assert!(!approved.covers(&order_request("2", "https://shop.vn/checkout", Some(21_490_001.0))), "dearer");
    assert!(!approved.covers(&order_request("2", "https://shop.vn/checkout", None)), "no amount to check");
    assert!(!approved.covers(&order_request("3", "https://shop.vn/checkout", Some(1.0))), "another quantity");
    assert!(!approved.covers(&order_request("2", "https://evil.vn/checkout", Some(1.0))), "elsewhere");
    let mut publish = order_request("2", "https://shop.vn/checkout", Some(1.0));
    publish.scope = PermissionScope::Destructive;
    assert!(!approved.covers(&publish), "a higher scope");
    let mut extra = order_request("2", "https://shop.vn/checkout", Some(1.0));
    extra.fields.push(crate::protocol::ConfirmField {
        name: "note".into(),
        label: "Ghi chú".into(),
        value: "x".into(),
        masked: false,
    });
    assert!(!approved.covers(&extra), "another field");
}

/// #43 item 3: an answer that quoted no value still carries what the
/// replay read, written the way its language writes numbers.
#[test]
fn an_answer_that_quoted_nothing_carries_what_was_read() {
    let results = vec![
        None,
        Some(json!({"data": {"name": "Laptop ASUS Vivobook 15", "price": 19_990_000, "rating": 4.8},
                    "confidence": 0.9, "sources": {"price": "json-ld"}})),
    ];
    let read = answer::read_fields(&results);
    let fields: Vec<(usize, &str)> = read.iter().map(|f| (f.step, f.field.as_str())).collect();
    assert_eq!(fields, [(2, "name"), (2, "price"), (2, "rating")]);
    let vi = answer::with_read(Some("Giá hiện tại đã được đọc."), &read).unwrap();
    assert_eq!(vi, "Giá hiện tại đã được đọc.\n\n- name: Laptop ASUS Vivobook 15\n- price: 19.990.000\n- rating: 4,8");
    let en = answer::with_read(Some("The price was read."), &read).unwrap();
    assert!(en.ends_with("- price: 19,990,000\n- rating: 4.8"), "{en}");
    // A run with no answer of its own: the list alone; nothing read, the
    // answer as it was.
    assert!(answer::with_read(None, &read).unwrap().starts_with("- name: "));
    assert_eq!(answer::with_read(Some("Xong."), &[]).as_deref(), Some("Xong."));
    assert_eq!(answer::with_read(None, &[]), None);
    // A year is no amount: not grouped.
    let year = answer::read_fields(&[Some(json!({"data": {"year": 2026}}))]);
    assert!(answer::with_read(Some("Năm"), &year).unwrap().ends_with("- year: 2026"));
}

/// #43 item 3: a schedule at a time of day, as a person writes it, falls
/// on that time of the computer's clock and does not drift.
#[test]
fn a_schedule_at_a_time_of_day_keeps_it() {
    use super::schedule::{first_at, next_after, parse_at};
    for (typed, at) in [
        ("08:00", "08:00"),
        ("8:30", "08:30"),
        ("8h30", "08:30"),
        ("20h", "20:00"),
        ("8 giờ 30", "08:30"),
        (" 7 giờ ", "07:00"),
    ] {
        assert_eq!(parse_at(typed).unwrap(), at, "{typed}");
    }
    for bad in ["", "25:00", "8:60", "tám giờ", "8:5:1", "-1:00", "800"] {
        let e = parse_at(bad).unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::InvalidArguments, "{bad}");
        assert!(e.message().contains("24-hour"), "{bad}: {}", e.message());
    }
    // Vietnam is UTC+7: 08:00 there is 01:00 UTC.
    let vn = chrono::FixedOffset::east_opt(7 * 3600).unwrap();
    let now = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().to_utc();
    assert_eq!(first_at(&vn, "08:00", now("2026-12-04T00:30:00Z")), "2026-12-04T01:00:00.000Z");
    assert_eq!(first_at(&vn, "08:00", now("2026-12-04T01:00:00Z")), "2026-12-04T01:00:00.000Z");
    assert_eq!(first_at(&vn, "08:00", now("2026-12-04T02:00:00Z")), "2026-12-05T01:00:00.000Z");
    // Claimed late (the app was closed for two days): the next is still
    // at 08:00, the missed ones skipped.
    let day = 86_400;
    assert_eq!(
        next_after(Some("08:00"), day, "2026-12-04T01:00:00.000Z", "2026-12-06T03:12:45.000Z"),
        "2026-12-07T01:00:00.000Z"
    );
    assert_eq!(
        next_after(Some("08:00"), day, "2026-12-04T01:00:00.000Z", "2026-12-04T01:00:02.500Z"),
        "2026-12-05T01:00:00.000Z"
    );
    // Without a time, a period after the claim.
    assert_eq!(
        next_after(None, 3600, "2026-12-04T01:00:00.000Z", "2026-12-04T01:00:02.500Z"),
        "2026-12-04T02:00:02.500Z"
    );
}
