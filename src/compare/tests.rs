use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn run(args: Value) -> NormalizeCompareOutput {
    let args: NormalizeCompareArgs = serde_json::from_value(args).unwrap();
    normalize_compare(&args).unwrap()
}

fn run_err(args: Value) -> String {
    let args: NormalizeCompareArgs = serde_json::from_value(args).unwrap();
    let err = normalize_compare(&args).unwrap_err();
    assert_eq!(err.code(), crate::error::ErrorCode::InvalidArguments);
    err.message().to_string()
}

/// `normalized` of every item, as one JSON array.
fn values(out: &NormalizeCompareOutput) -> Value {
    Value::Array(out.items.iter().map(|i| json!(i.normalized)).collect())
}

fn order(out: &NormalizeCompareOutput) -> Vec<&str> {
    out.ranking.iter().map(|r| r.source.as_str()).collect()
}

#[test]
fn spec_example() {
    let out = run(json!({
        "schema": {"total_cost": "number", "warranty_months": "number", "return_days": "number"},
        "items": [
            {"source": "storeA", "raw": {"price": 100, "ship": 5, "warranty": "12m"}},
            {"source": "storeB", "raw": {"price": 98, "delivery": 12, "warranty_months": 24}}
        ]
    }));
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!({
            "items": [
                {
                    "source": "storeA",
                    "normalized": {"return_days": null, "total_cost": 105, "warranty_months": 12},
                    "missing_fields": ["return_days"],
                    "mapped_from": {"total_cost": "price + ship", "warranty_months": "warranty"},
                    "currency": null,
                    "warnings": []
                },
                {
                    "source": "storeB",
                    "normalized": {"return_days": null, "total_cost": 110, "warranty_months": 24},
                    "missing_fields": ["return_days"],
                    "mapped_from": {"total_cost": "price + delivery", "warranty_months": "warranty_months"},
                    "currency": null,
                    "warnings": []
                }
            ],
            "ranking": [
                {"rank": 1, "source": "storeA", "item": 0, "reason": "total_cost 105 (lower than storeB's 110)"},
                {"rank": 2, "source": "storeB", "item": 1, "reason": "total_cost 110, warranty_months 24, no return_days"}
            ],
            "unranked": [],
            "best": "storeA",
            "rank_by": [
                {"field": "total_cost", "order": "asc"},
                {"field": "warranty_months", "order": "desc"},
                {"field": "return_days", "order": "desc"}
            ],
            "currency": null,
            "warnings": []
        })
    );
}

#[test]
fn vietnamese_fields_and_vnd() {
    let out = run(json!({
        "schema": {"total_cost": "number", "warranty_months": "integer", "shipping_fee": "number", "return_days": "number"},
        "items": [
            {"source": "thegioididong", "raw": {"Giá": "21.490.000 ₫", "Phí vận chuyển": "Miễn phí", "Bảo hành": "24 tháng", "Đổi trả": "1 đổi 1 trong 30 ngày"}},
            {"source": "cellphones", "raw": {"Giá bán": "21,49 triệu", "Phí giao hàng": "30.000đ", "Thời gian bảo hành": "1 năm"}},
            {"source": "fptshop", "raw": {"Tổng tiền": "21tr290", "Bảo hành": "Không bảo hành"}}
        ]
    }));
    assert_eq!(
        values(&out),
        json!([
            {"return_days": 30, "shipping_fee": 0, "total_cost": 21_490_000, "warranty_months": 24},
            {"return_days": null, "shipping_fee": 30_000, "total_cost": 21_520_000, "warranty_months": 12},
            {"return_days": null, "shipping_fee": null, "total_cost": 21_290_000, "warranty_months": 0}
        ])
    );
    assert_eq!(out.items[0].currency.as_deref(), Some("VND"));
    assert_eq!(out.items[0].mapped_from["total_cost"], "Giá + Phí vận chuyển");
    assert_eq!(out.items[0].mapped_from["warranty_months"], "Bảo hành");
    assert_eq!(out.items[1].mapped_from["total_cost"], "Giá bán + Phí giao hàng");
    assert_eq!(out.items[2].mapped_from["total_cost"], "Tổng tiền");
    // fptshop states no currency: assumed to be the comparison currency.
    assert_eq!(out.items[2].currency.as_deref(), Some("VND"));
    assert_eq!(out.items[2].warnings, vec!["no currency stated; assumed VND".to_string()]);
    assert_eq!(out.currency.as_deref(), Some("VND"));
    assert_eq!(order(&out), vec!["fptshop", "thegioididong", "cellphones"]);
    assert_eq!(out.best.as_deref(), Some("fptshop"));
}

#[test]
fn number_formats() {
    let cases: &[(&str, f64)] = &[
        ("100", 100.0),
        ("21.490.000 ₫", 21_490_000.0),
        ("21.490.000đ", 21_490_000.0),
        ("21,490,000 VND", 21_490_000.0),
        ("21tr490", 21_490_000.0),
        ("21,49 triệu", 21_490_000.0),
        ("1.299,99 €", 1299.99),
        ("€89,90", 89.9),
        ("$1,299.99", 1299.99),
        ("1 299,99 zł", 1299.99),
        ("19.99M", 19_990_000.0),
        ("19,99tr", 19_990_000.0),
        ("1.2k", 1200.0),
        ("Miễn phí", 0.0),
        ("free", 0.0),
        ("0đ", 0.0),
    ];
    for (text, want) in cases {
        let out = run(json!({
            "schema": {"price": "number"},
            "items": [{"source": "s", "raw": {"price": text}}]
        }));
        assert_eq!(out.items[0].normalized["price"].as_f64(), Some(*want), "{text}");
        assert_eq!(out.items[0].warnings, Vec::<String>::new(), "{text}");
    }
    let out = run(json!({
        "schema": {"price": "number"},
        "items": [{"source": "s", "raw": {"price": 100}}, {"source": "t", "raw": {"price": "100.5"}}]
    }));
    assert_eq!(values(&out), json!([{"price": 100}, {"price": 100.5}]));
}

#[test]
fn currencies_detected_per_item() {
    let out = run(json!({
        "schema": {"price": "number"},
        "currency": "EUR",
        "items": [
            {"source": "a", "raw": {"price": "1.299,99 €"}},
            {"source": "b", "raw": {"price": 10, "currency": "eur"}},
            {"source": "c", "raw": {"price_eur": 12}},
            {"source": "d", "raw": {"price": {"amount": 15, "currency": "EUR"}}}
        ]
    }));
    let cur: Vec<Option<&str>> = out.items.iter().map(|i| i.currency.as_deref()).collect();
    assert_eq!(cur, vec![Some("EUR"); 4]);
    assert_eq!(values(&out), json!([{"price": 1299.99}, {"price": 10}, {"price": 12}, {"price": 15}]));
    assert_eq!(order(&out), vec!["b", "c", "d", "a"]);
    assert_eq!(out.warnings, Vec::<String>::new());
}

#[test]
fn durations_convert_to_the_field_unit() {
    let out = run(json!({
        "schema": {"warranty_months": "number", "return_days": "number", "delivery_days": "number", "warranty_days": "integer"},
        "items": [
            {"source": "a", "raw": {"warranty": "2 years", "returns": "2 weeks", "delivery_time": "2-3 ngày"}},
            {"source": "b", "raw": {"bảo hành": "1 năm", "đổi trả": "2 tuần", "giao hàng": "24h"}},
            {"source": "c", "raw": {"warranty_years": 3, "return_policy": "30 days free return", "eta": 5}},
            {"source": "d", "raw": {"guarantee": "6 tháng", "return": 7, "delivery": "1 week", "ship": 15000}},
            {"source": "e", "raw": {"warranty": 12, "return_days": "Không", "delivery": 3}}
        ]
    }));
    assert_eq!(
        values(&out),
        json!([
            {"delivery_days": 3, "return_days": 14, "warranty_days": 730, "warranty_months": 24},
            {"delivery_days": 1, "return_days": 14, "warranty_days": 365, "warranty_months": 12},
            {"delivery_days": 5, "return_days": 30, "warranty_days": 1095, "warranty_months": 36},
            {"delivery_days": 7, "return_days": 7, "warranty_days": 180, "warranty_months": 6},
            {"delivery_days": null, "return_days": 0, "warranty_days": 360, "warranty_months": 12}
        ])
    );
    // A range keeps the conservative end, and says so.
    assert_eq!(
        out.items[0].warnings,
        vec!["delivery_days: \"2-3 ngày\" is a range; used the upper end (raw field \"delivery_time\")".to_string()]
    );
    // `"delivery": 3` is an amount (a shipping fee), not a delivery time.
    assert_eq!(out.items[4].missing_fields, vec!["delivery_days".to_string()]);
    // Default ranking: delivery (asc) then warranty_days, warranty_months, return_days (desc).
    assert_eq!(
        out.rank_by.iter().map(|k| k.field.as_str()).collect::<Vec<_>>(),
        vec!["delivery_days", "warranty_days", "warranty_months", "return_days"]
    );
    assert_eq!(order(&out), vec!["b", "a", "c", "d", "e"]);
}

#[test]
fn delivery_is_fee_or_time_by_value() {
    let out = run(json!({
        "schema": {"total_cost": "number", "delivery_days": "number"},
        "items": [
            {"source": "a", "raw": {"price": 100, "delivery": "2 days", "shipping_fee": 7}},
            {"source": "b", "raw": {"price": 100, "delivery": 9}}
        ]
    }));
    assert_eq!(
        values(&out),
        json!([{"delivery_days": 2, "total_cost": 107}, {"delivery_days": null, "total_cost": 109}])
    );
    assert_eq!(out.items[0].mapped_from["total_cost"], "price + shipping_fee");
    assert_eq!(out.items[0].warnings, Vec::<String>::new());
}

#[test]
fn total_with_fees_and_discounts() {
    let out = run(json!({
        "schema": {"total_cost": "number", "discount": "number"},
        "items": [
            {"source": "a", "raw": {"giá": "1.000.000đ", "phí ship": "30k", "giảm giá": "-100.000đ"}},
            {"source": "b", "raw": {"price": "1.000.000đ", "coupon": "10%", "service_fee": "5.000đ"}},
            {"source": "c", "raw": {"total": "950.000đ", "price": "1.000.000đ"}}
        ]
    }));
    assert_eq!(
        values(&out),
        json!([
            {"discount": 100_000, "total_cost": 930_000},
            {"discount": 100_000, "total_cost": 905_000},
            {"discount": null, "total_cost": 950_000}
        ])
    );
    assert_eq!(out.items[0].mapped_from["total_cost"], "giá + phí ship - giảm giá");
    assert_eq!(out.items[1].mapped_from["total_cost"], "price + service_fee - coupon (10% of price)");
    assert_eq!(out.items[2].mapped_from["total_cost"], "total");
    assert_eq!(order(&out), vec!["b", "a", "c"]);
}

#[test]
fn mixed_currencies_are_not_converted_without_rates() {
    let args = json!({
        "schema": {"total_cost": "number", "warranty_months": "number"},
        "items": [
            {"source": "vn1", "raw": {"price": "21.490.000 ₫", "warranty": "24 tháng"}},
            {"source": "us", "raw": {"price": "$899", "warranty": "12 months"}},
            {"source": "vn2", "raw": {"price": "22.000.000đ", "warranty": "12 tháng"}}
        ]
    });
    let out = run(args.clone());
    assert_eq!(out.currency.as_deref(), Some("VND"));
    assert_eq!(out.items[1].currency.as_deref(), Some("USD"));
    assert_eq!(out.items[1].normalized["total_cost"], json!(899));
    assert_eq!(out.items[1].warnings, vec!["priced in USD, not VND; not converted (no fx rate given)".to_string()]);
    assert_eq!(order(&out), vec!["vn1", "vn2"]);
    assert_eq!(
        out.unranked,
        vec![UnrankedItem {
            source: "us".into(),
            item: 1,
            reason: "priced in USD, not VND; give currency and fx rates to compare".into()
        }]
    );
    assert_eq!(
        out.warnings,
        vec![
            "items are priced in several currencies (VND: 2, USD: 1); money is compared in VND".to_string(),
            "1 item(s) priced in another currency were left out of the ranking (see unranked)".to_string()
        ]
    );

    // Ranking only on non-money fields compares every item.
    let mut by_warranty = args.clone();
    by_warranty["rank_by"] = json!([{"field": "warranty_months"}]);
    let out = run(by_warranty);
    assert_eq!(order(&out), vec!["vn1", "us", "vn2"]);
    assert!(out.unranked.is_empty());

    // With rates, everything is converted into the target currency.
    let mut with_fx = args;
    with_fx["currency"] = json!("VND");
    with_fx["fx"] = json!({"USD": 25_400});
    let out = run(with_fx);
    assert_eq!(out.items[1].currency.as_deref(), Some("VND"));
    assert_eq!(out.items[1].normalized["total_cost"], json!(22_834_600));
    assert_eq!(out.items[1].warnings, vec!["converted from USD to VND at 1 USD = 25400 VND".to_string()]);
    assert_eq!(order(&out), vec!["vn1", "vn2", "us"]);
}

#[test]
fn mixed_currency_inside_one_item() {
    let out = run(json!({
        "schema": {"total_cost": "number"},
        "items": [{"source": "a", "raw": {"price": "$100", "shipping": "50.000đ"}}]
    }));
    assert_eq!(out.items[0].normalized["total_cost"], Value::Null);
    assert_eq!(
        out.items[0].warnings,
        vec!["total_cost: an amount in VND cannot be combined with USD without an fx rate".to_string()]
    );
    let out = run(json!({
        "schema": {"total_cost": "number"},
        "currency": "VND",
        "fx": {"$": 25_000},
        "items": [{"source": "a", "raw": {"price": "$100", "shipping": "50.000đ"}}]
    }));
    assert_eq!(out.items[0].normalized["total_cost"], json!(2_550_000));
}

#[test]
fn missing_and_unreadable_fields() {
    let out = run(json!({
        "schema": {"total_cost": "number", "rating": "number", "color": "string", "in_stock": "boolean"},
        "items": [
            {"source": "a", "raw": {"price": "abc", "rating": "4,8/5", "Color": " Đen ", "tình trạng": "Còn hàng"}},
            {"source": "b", "raw": {"giá": "Liên hệ", "đánh giá": "4.5 sao", "in_stock": "no"}},
            {"source": "c", "raw": {}}
        ]
    }));
    assert_eq!(
        values(&out),
        json!([
            {"color": "Đen", "in_stock": true, "rating": 4.8, "total_cost": null},
            {"color": null, "in_stock": false, "rating": 4.5, "total_cost": null},
            {"color": null, "in_stock": null, "rating": null, "total_cost": null}
        ])
    );
    assert_eq!(out.items[0].missing_fields, vec!["total_cost".to_string()]);
    assert_eq!(
        out.items[0].warnings,
        vec!["total_cost: could not read raw field \"price\" = \"abc\": no amount in \"abc\"".to_string()]
    );
    // "Liên hệ" (call for price) is missing, not an error.
    assert_eq!(out.items[1].warnings, Vec::<String>::new());
    assert_eq!(out.items[2].missing_fields, vec!["color", "in_stock", "rating", "total_cost"]);
    // Nobody has a total: rating decides; the empty item is last.
    assert_eq!(order(&out), vec!["a", "b", "c"]);
    assert_eq!(out.ranking[2].reason, "no total_cost, no rating, no in_stock");
}

#[test]
fn ranking_order_ties_and_missing_primary() {
    let out = run(json!({
        "schema": {"total_cost": "number", "warranty_months": "number"},
        "items": [
            {"source": "nototal", "raw": {"warranty": "36m"}},
            {"source": "tieA", "raw": {"price": 100, "warranty": "12m"}},
            {"source": "better", "raw": {"price": 100, "warranty": "24m"}},
            {"source": "tieB", "raw": {"price": 100, "warranty": "12m"}},
            {"source": "cheap", "raw": {"price": 90}}
        ]
    }));
    assert_eq!(order(&out), vec!["cheap", "better", "tieA", "tieB", "nototal"]);
    let reasons: Vec<&str> = out.ranking.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(
        reasons,
        vec![
            "total_cost 90 (lower than better's 100)",
            "tied with tieA on total_cost; warranty_months 24 (higher than tieA's 12)",
            "tied with tieB on every ranking field; input order kept",
            "total_cost 100 (nototal has none)",
            "no total_cost, warranty_months 36"
        ]
    );
    let ranks: Vec<(usize, usize)> = out.ranking.iter().map(|r| (r.rank, r.item)).collect();
    assert_eq!(ranks, vec![(1, 4), (2, 2), (3, 1), (4, 3), (5, 0)]);
    assert_eq!(out.best.as_deref(), Some("cheap"));
}

#[test]
fn explicit_rank_by() {
    let base = json!({
        "schema": {"total_cost": "number", "warranty_months": "number", "weight_kg": "number"},
        "items": [
            {"source": "a", "raw": {"price": 100, "warranty": "12m", "weight": "1,5 kg"}},
            {"source": "b", "raw": {"price": 120, "warranty": "24m", "weight": "900 g"}}
        ]
    });
    let mut args = base.clone();
    args["rank_by"] = json!([{"field": "warranty_months"}, {"field": "total_cost"}]);
    let out = run(args);
    assert_eq!(order(&out), vec!["b", "a"]);
    assert_eq!(
        out.rank_by,
        vec![
            RankKey { field: "warranty_months".into(), order: Some(SortOrder::Desc) },
            RankKey { field: "total_cost".into(), order: Some(SortOrder::Asc) }
        ]
    );
    // Fields of unknown meaning need an order, and are not ranked by default.
    let out = run(base.clone());
    assert_eq!(values(&out)[1]["weight_kg"], json!(0.9));
    assert!(out.rank_by.iter().all(|k| k.field != "weight_kg"));
    let mut args = base.clone();
    args["rank_by"] = json!([{"field": "weight_kg", "order": "asc"}]);
    assert_eq!(order(&run(args)), vec!["b", "a"]);
    let mut args = base.clone();
    args["rank_by"] = json!([{"field": "total_cost", "order": "desc"}]);
    assert_eq!(order(&run(args)), vec!["b", "a"]);
    // An empty list turns ranking off.
    let mut args = base;
    args["rank_by"] = json!([]);
    let out = run(args);
    assert!(out.ranking.is_empty());
    assert_eq!(out.best, None);
}

#[test]
fn integer_string_and_boolean_fields() {
    let out = run(json!({
        "schema": {"price": "integer", "name": "string", "in_stock": "boolean", "rating": "integer"},
        "items": [{"source": "a", "raw": {"price": "$19.99", "Name": "  Laptop X  ", "stock": 3, "rating": 4.6}}]
    }));
    assert_eq!(values(&out), json!([{"in_stock": true, "name": "Laptop X", "price": 20, "rating": 5}]));
    assert_eq!(
        out.items[0].warnings,
        vec!["price: rounded 19.99 to 20".to_string(), "rating: rounded 4.6 to 5".to_string()]
    );
}

#[test]
fn weird_values_never_panic() {
    let out = run(json!({
        "schema": {"total_cost": "number", "warranty_months": "number", "in_stock": "boolean", "note": "string"},
        "items": [
            {"source": "a", "raw": {"price": {"nested": {"deep": 1}}, "warranty": [1, 2], "in_stock": null}},
            {"source": "b", "raw": {"price": "9".repeat(400), "warranty": "NaN", "note": ["one"]}},
            {"source": "c", "raw": {"price": 1e300, "ship": 1e300, "warranty": "Trọn đời", "in_stock": "maybe"}},
            {"source": "d", "raw": {"price": [], "warranty": {"value": 2, "unit": "years"}, "note": {"x": 1}}},
            {"source": "e", "raw": {"price": true, "warranty": "", "in_stock": "✓", "note": 12.5}},
            {"source": "", "raw": {"": "x", "price": "1.2.3"}}
        ]
    }));
    assert_eq!(out.items.len(), 6);
    assert_eq!(out.items[2].normalized["total_cost"], json!(2e300));
    assert_eq!(out.items[3].normalized["warranty_months"], json!(24));
    assert_eq!(out.items[4].normalized["note"], json!("12.5"));
    assert_eq!(out.items[4].normalized["in_stock"], json!(true));
    assert_eq!(out.items[1].normalized["note"], json!("one"));
    for item in &out.items {
        assert!(item.normalized.len() == 4);
    }
    assert!(out.items[0].warnings.iter().any(|w| w.contains("a list of 2 values")));
    assert!(out.items[1].warnings.iter().any(|w| w.contains("out of range")));
    assert!(out.items[2].warnings.iter().any(|w| w.contains("unlimited")));
    assert!(out.items[5].warnings.iter().any(|w| w.contains("ambiguous number")));
    // Serialises cleanly (no NaN/inf).
    serde_json::to_string(&out).unwrap();
}

#[test]
fn malformed_arguments_are_rejected() {
    let item = json!([{"source": "a", "raw": {"price": 1}}]);
    assert_eq!(run_err(json!({"schema": {"price": "number"}, "items": []})), "items must list at least one item");
    assert_eq!(run_err(json!({"schema": {}, "items": item})), "schema must name at least one field");
    assert!(run_err(json!({"schema": {" - ": "number"}, "items": item})).contains("no letters or digits"));
    assert!(
        run_err(json!({"schema": {"price": "number"}, "items": item, "rank_by": [{"field": "nope"}]}))
            .contains("not in the schema (price)")
    );
    assert!(
        run_err(
            json!({"schema": {"price": "number"}, "items": item, "rank_by": [{"field": "price"}, {"field": "price"}]})
        )
        .contains("twice")
    );
    assert!(
        run_err(json!({"schema": {"name": "string"}, "items": item, "rank_by": [{"field": "name"}]}))
            .contains("is a string")
    );
    assert!(
        run_err(json!({"schema": {"weight": "number"}, "items": item, "rank_by": [{"field": "weight"}]}))
            .contains("no default direction")
    );
    assert!(
        run_err(json!({"schema": {"price": "number"}, "items": item, "currency": "dollarz"}))
            .contains("not a currency")
    );
    assert!(
        run_err(json!({"schema": {"price": "number"}, "items": item, "fx": {"USD": 2}})).contains("fx needs currency")
    );
    assert!(
        run_err(json!({"schema": {"price": "number"}, "items": item, "currency": "VND", "fx": {"USD": -1}}))
            .contains("positive")
    );
    assert!(
        run_err(json!({"schema": {"price": "number"}, "items": item, "currency": "VND", "fx": {"??": 1}}))
            .contains("not a currency code")
    );
    // Shape errors are caught by deserialisation (deny_unknown_fields, bad types).
    for bad in [
        json!({"schema": {"price": "number"}, "items": item, "extra": 1}),
        json!({"schema": {"price": "money"}, "items": item}),
        json!({"schema": {"price": "number"}, "items": [{"source": "a"}]}),
        json!({"schema": {"price": "number"}, "items": item, "rank_by": [{"field": "price", "order": "up"}]}),
    ] {
        assert!(serde_json::from_value::<NormalizeCompareArgs>(bad).is_err());
    }
}

#[test]
fn nothing_rankable_is_reported() {
    let out = run(json!({"schema": {"name": "string"}, "items": [{"source": "a", "raw": {"name": "x"}}]}));
    assert!(out.ranking.is_empty());
    assert_eq!(out.best, None);
    assert_eq!(out.warnings, vec!["no schema field has a known ranking direction; pass rank_by to rank".to_string()]);
}

#[test]
fn deterministic_output() {
    let args = json!({
        "schema": {"total_cost": "number", "warranty_months": "number"},
        "items": [
            {"source": "a", "raw": {"Giá": "21.490.000 ₫", "Bảo hành": "24 tháng"}},
            {"source": "b", "raw": {"price": "$899", "warranty": "1 year"}}
        ]
    });
    assert_eq!(run(args.clone()), run(args));
}

#[test]
fn schemas_generate() {
    let args = serde_json::to_value(schemars::schema_for!(NormalizeCompareArgs)).unwrap();
    assert_eq!(args["additionalProperties"], json!(false));
    assert!(args["properties"]["rank_by"].is_object());
    let out = serde_json::to_value(schemars::schema_for!(NormalizeCompareOutput)).unwrap();
    assert!(out["properties"]["ranking"].is_object());
}
