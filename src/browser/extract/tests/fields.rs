//! Field understanding and type coercion: names → concepts, warranties in
//! months, dates, numbers in every format, and values that do not fit.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::{expected, run, run_as};
use crate::browser::extract::coerce::parse_date;
use crate::browser::extract::names::{Concept, FieldSpec, Key, label_concept};
use crate::tools::catalogue::capture::ExtractSourceType;

#[test]
fn field_names_map_to_concepts() {
    let cases = [
        ("price", Some(Concept::Price)),
        ("giá", Some(Concept::Price)),
        ("Giá bán", Some(Concept::Price)),
        ("gia-ban", Some(Concept::Price)),
        ("salePrice", Some(Concept::Price)),
        ("cost", Some(Concept::Price)),
        ("amount", Some(Concept::Price)),
        ("price_vnd", Some(Concept::Price)),
        ("price_total", Some(Concept::Total)),
        ("total", Some(Concept::Total)),
        ("tổng tiền", Some(Concept::Total)),
        ("old_price", Some(Concept::OldPrice)),
        ("list_price", Some(Concept::OldPrice)),
        ("original-price", Some(Concept::OldPrice)),
        ("giá gốc", Some(Concept::OldPrice)),
        ("shipping_price", Some(Concept::Shipping)),
        ("phí vận chuyển", Some(Concept::Shipping)),
        ("price_currency", Some(Concept::Currency)),
        ("currency", Some(Concept::Currency)),
        ("name", Some(Concept::Name)),
        ("product_name", Some(Concept::Name)),
        ("tên", Some(Concept::Name)),
        ("brand_name", Some(Concept::Brand)),
        ("thương hiệu", Some(Concept::Brand)),
        ("in_stock", Some(Concept::Availability)),
        ("còn hàng", Some(Concept::Availability)),
        ("rating", Some(Concept::Rating)),
        ("đánh giá", Some(Concept::Rating)),
        ("rating_count", Some(Concept::ReviewCount)),
        ("số đánh giá", Some(Concept::ReviewCount)),
        ("image_url", Some(Concept::Image)),
        ("url", Some(Concept::Url)),
        ("warranty_months", Some(Concept::Warranty)),
        ("bảo hành", Some(Concept::Warranty)),
        ("warrenty", Some(Concept::Warranty)),
        ("cancellation_policy", None),
        ("total_weight", None),
        ("quốc gia", None),
    ];
    for (name, concept) in cases {
        assert_eq!(FieldSpec::new(name).concept, concept, "{name}");
    }
}

#[test]
fn labels_map_to_concepts_but_sentences_do_not() {
    assert_eq!(label_concept("Giá:"), Some(Concept::Price));
    assert_eq!(label_concept("Giá khuyến mãi"), Some(Concept::Price));
    assert_eq!(label_concept("Giá niêm yết"), Some(Concept::OldPrice));
    assert_eq!(label_concept("Tổng cộng"), Some(Concept::Total));
    assert_eq!(label_concept("Price (incl. VAT)"), Some(Concept::Price));
    assert_eq!(label_concept("Thông tin bảo hành"), Some(Concept::Warranty));
    assert_eq!(label_concept("Đánh giá"), Some(Concept::Rating));
    assert_eq!(label_concept("Giá trị đơn hàng"), None);
    assert_eq!(label_concept("Giá trên website đã bao gồm thuế"), None);
    assert_eq!(label_concept("Tên khách hàng"), None);
}

#[test]
fn fuzzy_label_similarity() {
    let field = Key::new("cancellation_policy");
    assert_eq!(field.similarity(&Key::new("Cancellation policy")), 1.0);
    assert_eq!(field.similarity(&Key::new("Chính sách hủy")), 1.0);
    assert_eq!(field.similarity(&Key::new("Cancellation Policies")), 1.0);
    assert_eq!(field.similarity(&Key::new("cancelationPolicy")), 1.0);
    assert!(field.similarity(&Key::new("Return policy")) < 0.5);
    assert_eq!(Key::new("check_in_time").similarity(&Key::new("checkinTime")), 1.0);
    assert_eq!(Key::new("phone").similarity(&Key::new("Số điện thoại")), 1.0);
}

#[test]
fn warranty_in_months() {
    let fields =
        json!({"warranty_months": "number", "bảo hành": "integer", "warranty_years": "number", "warranty": "string"});
    let label = |v: &str| run(json!({"pairs": [["Bảo hành", v]]}), fields.clone()).data;
    let months = |v: &str| label(v).get("warranty_months").cloned();
    assert_eq!(months("24 tháng"), Some(json!(24)));
    assert_eq!(months("2 năm"), Some(json!(24)));
    assert_eq!(months("12m"), Some(json!(12)));
    assert_eq!(months("18"), Some(json!(18)));
    assert_eq!(months("Không bảo hành"), Some(json!(0)));
    let data = label("2 năm chính hãng");
    assert_eq!(data.get("bảo hành"), Some(&json!(24)));
    assert_eq!(data.get("warranty_years"), Some(&json!(2)));
    assert_eq!(data.get("warranty"), Some(&json!("2 năm chính hãng")));

    // schema.org WarrantyPromise.
    let jsonld = json!({"jsonld": [{"@type": "Product", "offers": {"@type": "Offer", "price": 1,
        "warranty": {"@type": "WarrantyPromise", "durationOfWarranty": {"@type": "QuantitativeValue", "value": 2, "unitCode": "ANN"}}}}]});
    assert_eq!(run(jsonld, json!({"warranty_months": "number"})).data.get("warranty_months"), Some(&json!(24)));

    // Visible text only.
    let text = json!({"text": "Laptop Dell XPS 13\nSản phẩm được bảo hành chính hãng 12 tháng tại Dell Việt Nam.\nAlso: 3-year warranty on battery"});
    let out = run_as(ExtractSourceType::Text, text, json!({"warranty_months": "number"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {"warranty_months": 12},
            "confidence": {"warranty_months": 0.35},
            "sources": {"warranty_months": "text"},
            "missing_fields": [],
            "notes": ["warranty_months: 2 different values (12 from text, 36 from text); took 12"]
        }))
    );
}

#[test]
fn dates_become_iso() {
    assert_eq!(parse_date("2026-02-10", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("Thứ Ba, 10/02/2026 19:00", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("02/10/2026", true).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("25/12/2026", true).map(|d| d.0.to_string()), Some("2026-12-25".into()));
    assert_eq!(parse_date("Feb 10, 2026", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("10 February 2026", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("ngày 10 tháng 2 năm 2026", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("2026-02-10T19:00:00+07:00", false).map(|d| d.0.to_string()), Some("2026-02-10".into()));
    assert_eq!(parse_date("31/02/2026", false), None);
    assert_eq!(parse_date("soon", false), None);

    let pairs = json!({"lang": "vi", "pairs": [["Ngày khởi hành", "10/02/2026"], ["Ngày về", "14.02.2026"]]});
    let out = run(pairs, json!({"departure_date": "date", "ngay_ve": "date"}));
    assert_eq!(out.data.get("departure_date"), Some(&json!("2026-02-10")));
    assert_eq!(out.data.get("ngay_ve"), Some(&json!("2026-02-14")));
    assert!(out.notes.is_empty());

    // Outside Vietnamese and US English pages, a day-first guess is noted.
    let gb =
        run(json!({"lang": "en-GB", "pairs": [["Departure date", "10/02/2026"]]}), json!({"departure_date": "date"}));
    assert_eq!(gb.data.get("departure_date"), Some(&json!("2026-02-10")));
    assert_eq!(gb.notes, vec!["departure_date: \"10/02/2026\" read day-first".to_string()]);
    let us =
        run(json!({"lang": "en-US", "pairs": [["Departure date", "02/10/2026"]]}), json!({"departure_date": "date"}));
    assert_eq!(us.data.get("departure_date"), Some(&json!("2026-02-10")));
}

#[test]
fn numbers_in_every_format() {
    let fields = json!({"price": "number", "weight": "number", "rating": "number", "review_count": "integer"});
    let cases: [(&str, &str, Value); 8] = [
        ("Giá", "21.490.000 ₫", json!(21490000)),
        ("Giá", "21.490.000đ", json!(21490000)),
        ("Price", "$1,299.99", json!(1299.99)),
        ("Price", "€89,90", json!(89.9)),
        ("Price", "1.299,99 €", json!(1299.99)),
        ("Giá", "21,49 triệu", json!(21490000)),
        ("Weight", "12,5 kg", json!(12.5)),
        ("Rating", "4,8/5", json!(4.8)),
    ];
    for (label, value, want) in cases {
        let out = run(json!({"pairs": [[label, value]]}), fields.clone());
        assert!(out.data.values().any(|v| *v == want), "{label}: {value} → {:?}", out.data);
    }
    let reviews = run(json!({"pairs": [["Số đánh giá", "1.234 đánh giá"]]}), fields.clone());
    assert_eq!(reviews.data.get("review_count"), Some(&json!(1234)));
    // ¥ is yen unless the text says yuan.
    let yen = run(json!({"pairs": [["Price", "¥1,280"]]}), json!({"currency": "string"}));
    assert_eq!(yen.data.get("currency"), Some(&json!("JPY")));
    let yuan = run(json!({"pairs": [["Price", "¥128元"]]}), json!({"currency": "string"}));
    assert_eq!(yuan.data.get("currency"), Some(&json!("CNY")));
}

#[test]
fn values_that_do_not_fit_are_missing_with_a_note() {
    let facts = json!({
        "pairs": [
            ["Giá", "Liên hệ"],
            ["Bảo hành", "Trọn đời"],
            ["Đánh giá", "Xuất sắc"],
            ["Price", "21.490.000 ₫"],
            ["Số lượng", "2,5"],
            ["Ngày giao hàng", "sớm nhất có thể"]
        ]
    });
    let out = run(
        facts,
        json!({
            "gia": "number", "warranty_months": "number", "rating": "number", "price_usd": "number",
            "quantity": "integer", "delivery_date": "date", "website": "url"
        }),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {"gia": 21490000},
            "confidence": {"gia": 0.75},
            "sources": {"gia": "label"},
            "missing_fields": ["delivery_date", "price_usd", "quantity", "rating", "warranty_months", "website"],
            "notes": [
                "delivery_date: not found; skipped \"sớm nhất có thể\" is not a date (label)",
                "price_usd: not found; skipped \"21.490.000 ₫\" is in VND, not USD (label)",
                "quantity: not found; skipped \"2,5\" is not a whole number (label)",
                "rating: not found; skipped no number in \"Xuất sắc\" (label)",
                "warranty_months: not found; skipped \"Trọn đời\" is unlimited, not a number (label)"
            ]
        }))
    );
}

#[test]
fn nothing_on_the_page_means_everything_missing() {
    let out = run(
        json!({"url": "https://example.com/", "text": "Welcome"}),
        json!({"price": "number", "sku": "string", "in_stock": "boolean"}),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {}, "confidence": {}, "sources": {},
            "missing_fields": ["in_stock", "price", "sku"],
            "notes": []
        }))
    );
}

#[test]
fn arrays_objects_and_strings() {
    let facts = json!({
        "url": "https://shop.vn/p/1",
        "jsonld": [{
            "@type": "Product", "name": "Bàn phím", "image": ["/a.jpg", {"@type": "ImageObject", "url": "https://cdn.vn/b.jpg"}],
            "brand": {"@type": "Brand", "name": "Akko"}
        }],
        "pairs": [["Màu sắc", "Đen, Trắng; Hồng"]]
    });
    let out = run(facts, json!({"image": "array", "brand": "object", "color": "array", "name": "object"}));
    assert_eq!(out.data.get("image"), Some(&json!(["https://shop.vn/a.jpg", "https://cdn.vn/b.jpg"])));
    assert_eq!(out.data.get("brand"), Some(&json!({"@type": "Brand", "name": "Akko"})));
    assert_eq!(out.data.get("color"), Some(&json!(["Đen", "Trắng", "Hồng"])));
    assert_eq!(out.missing_fields, vec!["name".to_string()]);
    assert_eq!(out.notes, vec!["name: not found; skipped \"Bàn phím\" is not an object (json-ld)".to_string()]);
}

#[test]
fn stock_stated_only_in_page_text_in_european_languages() {
    let cases = [
        ("Wanderschuh Alpin\n89,95 €\nAuf Lager\nIn den Warenkorb", true),
        ("Chaussure de randonnée\n89,95 €\nÉpuisé", false),
        ("Zapatilla de montaña\n89,95 €\nAgotado", false),
        ("Походные ботинки\n8 990 ₽\nНет в наличии", false),
        ("Походные ботинки\n8 990 ₽\nВ наличии", true),
        ("Giày leo núi\n1.990.000 ₫\nHết hàng", false),
        ("Turistická obuv\n2 290 Kč\nNení skladem", false),
    ];
    for (text, in_stock) in cases {
        let out = run(json!({"url": "https://example.com/p/1", "text": text}), json!({"in_stock": "boolean"}));
        assert_eq!(out.data.get("in_stock"), Some(&json!(in_stock)), "{text}");
        assert_eq!(out.sources.get("in_stock").map(|s| json!(s)), Some(json!("text")), "{text}");
    }
}

#[test]
fn availability_as_text_is_a_stock_state_or_missing() {
    let out = run(
        json!({"url": "https://example.com/p/1", "text": "Trekkingschuh\n89,95 €\nNicht auf Lager"}),
        json!({"availability": "string"}),
    );
    assert_eq!(out.data.get("availability"), Some(&json!("OutOfStock")));
    let out = run(
        json!({"url": "https://example.com/p/2", "pairs": [["Availability", "July 31, 2016"]], "text": "Walking boot\nEn stock"}),
        json!({"availability": "string"}),
    );
    assert_eq!(out.data.get("availability"), Some(&json!("InStock")), "{:?}", out.notes);
    let out = run(
        json!({"url": "https://example.com/p/3", "pairs": [["Availability", "July 31, 2016"]]}),
        json!({"availability": "string"}),
    );
    assert_eq!(out.data.get("availability"), None);
    assert_eq!(out.missing_fields, vec!["availability".to_string()]);
}

#[test]
fn a_row_comparing_several_products_prices_this_one_less_surely() {
    // Its first cell is read (often the product itself), under the trust a watch needs (0.7).
    let out = run(
        json!({"lang": "de", "pairs": [["Preis", "Ab 98,65 € | 105,99 € | 109,99 €"]]}),
        json!({"price": "number"}),
    );
    assert_eq!((out.data["price"].as_f64(), out.confidence["price"]), (Some(98.65), 0.6), "{out:?}");
    assert!(out.notes.iter().any(|n| n.contains("a row comparing 3 amounts")), "{:?}", out.notes);
    // A label whose value is one price with its old one is no comparison.
    let out = run(json!({"pairs": [["Giá", "21.490.000 ₫ 25.990.000 ₫"]]}), json!({"price": "number"}));
    assert_eq!((out.data["price"].as_f64(), out.confidence["price"]), (Some(21_490_000.0), 0.75), "{out:?}");
}
