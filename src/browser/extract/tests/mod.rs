//! Extraction specs: whole outputs for typical pages (Vietnamese and US
//! shops, structured data of each kind, checkout summaries), then field
//! understanding, coercion and robustness in the sibling files.

mod fields;
mod model;
mod robust;

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::{PageFacts, extract};
use crate::tools::catalogue::capture::{BrowserExtractOutput, ExtractFieldType, ExtractSourceType};

pub(super) fn schema(v: Value) -> BTreeMap<String, ExtractFieldType> {
    serde_json::from_value(v).unwrap()
}

pub(super) fn run(facts: Value, fields: Value) -> BrowserExtractOutput {
    extract(&PageFacts::from_value(facts), &schema(fields), ExtractSourceType::Dom)
}

pub(super) fn run_as(kind: ExtractSourceType, facts: Value, fields: Value) -> BrowserExtractOutput {
    extract(&PageFacts::from_value(facts), &schema(fields), kind)
}

pub(super) fn expected(v: Value) -> BrowserExtractOutput {
    serde_json::from_value(v).unwrap()
}

fn vietnamese_shop() -> Value {
    json!({
        "jsonld": [
            {
                "@context": "https://schema.org",
                "@type": "Product",
                "name": "Laptop ASUS TUF Gaming F15",
                "brand": {"@type": "Brand", "name": "ASUS"},
                "sku": "FX507ZC4",
                "gtin13": "4711387000000",
                "image": ["/img/tuf-f15.jpg"],
                "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.8", "reviewCount": "125"},
                "offers": {
                    "@type": "Offer",
                    "price": "21490000",
                    "priceCurrency": "VND",
                    "availability": "https://schema.org/InStock",
                    "url": "https://shop.vn/p/tuf-f15"
                }
            },
            {"@type": "Organization", "name": "Shop VN", "telephone": "1800 6601"},
            {"@type": "BreadcrumbList", "name": "Trang chủ"}
        ],
        "meta": {"og:title": "Laptop ASUS TUF Gaming F15 | Shop VN"},
        "pairs": [["Giá", "21.490.000 ₫"], ["Bảo hành", "24 tháng"], ["Xuất xứ", "Trung Quốc"]],
        "prices": [
            {"text": "21.490.000 ₫", "context": "price", "struck": false},
            {"text": "25.990.000 ₫", "context": "old-price", "struck": true}
        ],
        "title": "Laptop ASUS TUF Gaming F15 | Shop VN",
        "url": "https://shop.vn/p/tuf-f15?ref=home",
        "lang": "vi",
        "text": "Laptop ASUS TUF Gaming F15\nGiá: 21.490.000 ₫\n25.990.000 ₫\nCòn hàng\nBảo hành: 24 tháng"
    })
}

#[test]
fn vietnamese_shop_with_json_ld_in_vnd() {
    let out = run(
        vietnamese_shop(),
        json!({
            "tên": "string", "giá": "number", "currency": "string", "brand": "string", "sku": "string",
            "gtin": "string", "in_stock": "boolean", "rating": "number", "review_count": "integer",
            "image": "url", "url": "url", "bảo_hành": "number", "giá_gốc": "number", "xuat_xu": "string",
            "phone": "string"
        }),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {
                "brand": "ASUS", "bảo_hành": 24, "currency": "VND", "giá": 21490000, "giá_gốc": 25990000,
                "gtin": "4711387000000", "image": "https://shop.vn/img/tuf-f15.jpg", "in_stock": true,
                "rating": 4.8, "review_count": 125, "sku": "FX507ZC4", "tên": "Laptop ASUS TUF Gaming F15",
                "url": "https://shop.vn/p/tuf-f15", "xuat_xu": "Trung Quốc", "phone": "1800 6601"
            },
            "confidence": {
                "brand": 0.95, "bảo_hành": 0.75, "currency": 0.95, "giá": 0.95, "giá_gốc": 0.7, "gtin": 0.95,
                "image": 0.95, "in_stock": 0.95, "rating": 0.95, "review_count": 0.95, "sku": 0.95, "tên": 0.95,
                "url": 0.95, "xuat_xu": 0.75, "phone": 0.95
            },
            "sources": {
                "brand": "json-ld", "bảo_hành": "label", "currency": "json-ld", "giá": "json-ld", "giá_gốc": "text",
                "gtin": "json-ld", "image": "json-ld", "in_stock": "json-ld", "rating": "json-ld",
                "review_count": "json-ld", "sku": "json-ld", "tên": "json-ld", "url": "json-ld", "xuat_xu": "label",
                "phone": "json-ld"
            },
            "missing_fields": [],
            "notes": ["giá: 2 different prices on the page; took the current one (21490000), not the struck-through 25.990.000 ₫"]
        }))
    );
}

#[test]
fn us_shop_without_structured_data() {
    let facts = json!({
        "pairs": [["Price", "$1,299.99"], ["Shipping", "$9.99"], ["Warranty", "2 years"], ["Availability", "In stock"]],
        "prices": [
            {"text": "$1,299.99", "context": "product-price"},
            {"text": "$9.99", "context": "shipping-cost"}
        ],
        "url": "https://shop.example.com/p/1",
        "lang": "en-US",
        "title": "UltraBook 14 – Example Shop",
        "text": "UltraBook 14\nPrice: $1,299.99\nShipping: $9.99\nWarranty: 2 years\nIn stock"
    });
    let out = run(
        facts,
        json!({
            "name": "string", "price": "number", "currency": "string", "shipping": "number",
            "warranty_months": "integer", "in_stock": "boolean", "sku": "string"
        }),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {
                "currency": "USD", "in_stock": true, "name": "UltraBook 14", "price": 1299.99, "shipping": 9.99,
                "warranty_months": 24
            },
            "confidence": {
                "currency": 0.75, "in_stock": 0.75, "name": 0.5, "price": 0.75, "shipping": 0.75, "warranty_months": 0.75
            },
            "sources": {
                "currency": "label", "in_stock": "label", "name": "text", "price": "label", "shipping": "label",
                "warranty_months": "label"
            },
            "missing_fields": ["sku"],
            "notes": ["in_stock: \"Availability: In stock\""]
        }))
    );
}

#[test]
fn struck_old_price_is_not_the_current_price() {
    // Visible text only: the struck-through price comes first on the page.
    let facts = json!({
        "prices": [
            {"text": "25.990.000 ₫", "context": "", "struck": true},
            {"text": "21.490.000 ₫", "context": "product-price", "struck": false},
            {"text": "-17%", "context": "badge"}
        ],
        "jsonld": [{"@type": "Product", "offers": {"price": 1}}],
        "text": "25.990.000 ₫ 21.490.000 ₫ -17%"
    });
    let out = run_as(ExtractSourceType::Text, facts, json!({"price": "number", "old_price": "number"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {"old_price": 25990000, "price": 21490000},
            "confidence": {"old_price": 0.7, "price": 0.7},
            "sources": {"old_price": "text", "price": "text"},
            "missing_fields": [],
            "notes": ["price: 2 different prices on the page; took the current one (21.490.000 ₫), not the struck-through 25.990.000 ₫"]
        }))
    );
}

#[test]
fn aggregate_offer_low_and_high_price() {
    let facts = json!({
        "jsonld": [{
            "@type": ["Product"],
            "name": "iPhone 15 128GB",
            "offers": {
                "@type": "AggregateOffer", "lowPrice": 19990000, "highPrice": "22990000",
                "priceCurrency": "VND", "offerCount": 4,
                "offers": [{"@type": "Offer", "price": 20500000}]
            }
        }]
    });
    let out = run(facts, json!({"price": "number", "list_price": "number", "currency": "string"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {"currency": "VND", "list_price": 22990000, "price": 19990000},
            "confidence": {"currency": 0.95, "list_price": 0.95, "price": 0.95},
            "sources": {"currency": "json-ld", "list_price": "json-ld", "price": "json-ld"},
            "missing_fields": [],
            "notes": ["price: offers range from 19990000 to 22990000; took the lowest"]
        }))
    );
}

#[test]
fn nested_offers_that_disagree_cost_confidence() {
    let facts = json!({
        "jsonld": [{
            "@type": "Product",
            "name": "Áo thun",
            "offers": [[
                {"@type": "Offer", "price": "199000", "priceCurrency": "VND", "sku": "AT-S"},
                {"@type": "Offer", "price": "249000", "priceCurrency": "VND", "sku": "AT-XL"}
            ]]
        }]
    });
    let out = run(facts, json!({"price": "integer", "sku": "string"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {"price": 199000, "sku": "AT-S"},
            "confidence": {"price": 0.8, "sku": 0.95},
            "sources": {"price": "json-ld", "sku": "json-ld"},
            "missing_fields": [],
            "notes": ["price: 2 different values (199000 from json-ld, 249000 from json-ld); took 199000"]
        }))
    );
}

#[test]
fn microdata_product() {
    let facts = json!({
        "microdata": [{
            "type": "https://schema.org/Product",
            "properties": {
                "name": "Nồi cơm điện Sharp 1.8L",
                "offers": {
                    "type": "https://schema.org/Offer",
                    "properties": {
                        "price": "1290000", "priceCurrency": "VND",
                        "availability": "https://schema.org/OutOfStock"
                    }
                }
            }
        }]
    });
    let out = run(
        facts,
        json!({"name": "string", "price": "integer", "currency": "string", "availability": "string", "in_stock": "boolean"}),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {
                "availability": "OutOfStock", "currency": "VND", "in_stock": false,
                "name": "Nồi cơm điện Sharp 1.8L", "price": 1290000
            },
            "confidence": {"availability": 0.9, "currency": 0.9, "in_stock": 0.9, "name": 0.9, "price": 0.9},
            "sources": {
                "availability": "microdata", "currency": "microdata", "in_stock": "microdata", "name": "microdata",
                "price": "microdata"
            },
            "missing_fields": [],
            "notes": []
        }))
    );
}

#[test]
fn opengraph_only() {
    let facts = json!({
        "meta": {
            "og:title": "Tai nghe Sony WH-1000XM5",
            "og:image": "/img/xm5.jpg",
            "og:url": "https://shop.vn/xm5",
            "og:description": "Chống ồn chủ động, pin 30 giờ.",
            "product:price:amount": "6990000",
            "product:price:currency": "VND",
            "product:availability": "instock"
        },
        "url": "https://shop.vn/xm5?utm=1",
        "title": "Tai nghe Sony WH-1000XM5 | Shop"
    });
    let out = run(
        facts,
        json!({
            "title": "string", "price": "number", "currency": "string", "image": "url", "url": "url",
            "description": "string", "còn_hàng": "boolean"
        }),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {
                "currency": "VND", "còn_hàng": true, "description": "Chống ồn chủ động, pin 30 giờ.",
                "image": "https://shop.vn/img/xm5.jpg", "price": 6990000, "title": "Tai nghe Sony WH-1000XM5",
                "url": "https://shop.vn/xm5"
            },
            "confidence": {
                "currency": 0.85, "còn_hàng": 0.85, "description": 0.85, "image": 0.85, "price": 0.85, "title": 0.85,
                "url": 0.85
            },
            "sources": {
                "currency": "meta", "còn_hàng": "meta", "description": "meta", "image": "meta", "price": "meta",
                "title": "meta", "url": "meta"
            },
            "missing_fields": [],
            "notes": []
        }))
    );
}

#[test]
fn tools_md_example_schema_on_a_checkout_summary() {
    let facts = json!({
        "pairs": [
            ["Tạm tính", "12.000.000 ₫"],
            ["Phí dịch vụ", "500.000 ₫"],
            ["Tổng cộng", "12.500.000 ₫"],
            ["Chính sách hủy", "Không hoàn tiền sau khi xuất vé"]
        ],
        "prices": [{"text": "12.500.000 ₫", "context": "total"}],
        "lang": "vi",
        "text": "Tạm tính: 12.000.000 ₫\nPhí dịch vụ: 500.000 ₫\nTổng cộng: 12.500.000 ₫"
    });
    let out = run(facts, json!({"price_total": "number", "currency": "string", "cancellation_policy": "string"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {
                "cancellation_policy": "Không hoàn tiền sau khi xuất vé", "currency": "VND", "price_total": 12500000
            },
            "confidence": {"cancellation_policy": 0.75, "currency": 0.75, "price_total": 0.75},
            "sources": {"cancellation_policy": "label", "currency": "label", "price_total": "label"},
            "missing_fields": [],
            "notes": []
        }))
    );
}

#[test]
fn cancellation_policy_by_label_in_english_and_vietnamese() {
    let fields = json!({"cancellation_policy": "string"});
    let en = run(
        json!({"pairs": [["Room", "Deluxe"], ["Cancellation policy", "Free cancellation until 48h before check-in"]]}),
        fields.clone(),
    );
    assert_eq!(en.data.get("cancellation_policy"), Some(&json!("Free cancellation until 48h before check-in")));
    assert_eq!(en.sources.get("cancellation_policy").map(String::as_str), Some("label"));
    let vi = run(
        json!({"pairs": [["Loại phòng", "Deluxe"], ["Chính sách hủy phòng", "Miễn phí hủy trước 48 giờ"]]}),
        fields.clone(),
    );
    assert_eq!(vi.data.get("cancellation_policy"), Some(&json!("Miễn phí hủy trước 48 giờ")));
    // A `Label: value` line in the text works too, at text confidence.
    let text = run_as(
        ExtractSourceType::Text,
        json!({"text": "Deluxe room\nCancellation Policy: Non-refundable"}),
        fields.clone(),
    );
    assert_eq!(
        text,
        expected(json!({
            "data": {"cancellation_policy": "Non-refundable"},
            "confidence": {"cancellation_policy": 0.5},
            "sources": {"cancellation_policy": "text"},
            "missing_fields": [],
            "notes": []
        }))
    );
    // An unrelated policy is not taken for it.
    let other = run(json!({"pairs": [["Return policy", "30 days"]]}), fields);
    assert_eq!(other.missing_fields, vec!["cancellation_policy".to_string()]);
}

#[test]
fn hotel_and_event_properties_by_name() {
    let facts = json!({
        "jsonld": [
            {"@type": "WebSite", "name": "Booking VN"},
            {
                "@type": "Hotel", "name": "Khách sạn Hạ Long Bay", "checkinTime": "14:00", "checkoutTime": "12:00",
                "address": {"@type": "PostalAddress", "streetAddress": "1 Hạ Long", "addressLocality": "Quảng Ninh"},
                "starRating": {"@type": "Rating", "ratingValue": 4}
            },
            {"@type": "Event", "name": "Concert", "startDate": "2026-02-10T19:00:00+07:00"}
        ]
    });
    let out = run(
        facts,
        json!({"hotel_name": "string", "check_in_time": "string", "checkout_time": "string", "address": "string", "start_date": "date"}),
    );
    assert_eq!(
        out.data,
        json!({
            "address": "1 Hạ Long, Quảng Ninh", "check_in_time": "14:00", "checkout_time": "12:00",
            "hotel_name": "Khách sạn Hạ Long Bay", "start_date": "2026-02-10"
        })
        .as_object()
        .cloned()
        .unwrap()
    );
    assert!(out.missing_fields.is_empty());
}

#[test]
fn reservation_total_beats_products_for_a_total() {
    let facts = json!({
        "jsonld": [
            {
                "@type": "LodgingReservation", "reservationId": "ABC123", "totalPrice": "3500000",
                "priceCurrency": "VND", "checkinTime": "2026-02-10T14:00:00+07:00",
                "reservationFor": {"@type": "Hotel", "name": "Hotel X", "address": "1 Tràng Tiền, Hà Nội"}
            },
            {"@type": "Product", "name": "Tour A", "offers": {"price": 10, "priceCurrency": "USD"}}
        ]
    });
    let out = run(
        facts,
        json!({"price_total": "number", "reservation_id": "string", "checkin_time": "date", "currency": "string"}),
    );
    assert_eq!(
        out,
        expected(json!({
            "data": {"checkin_time": "2026-02-10", "currency": "VND", "price_total": 3500000, "reservation_id": "ABC123"},
            "confidence": {"checkin_time": 0.95, "currency": 0.8, "price_total": 0.95, "reservation_id": 0.95},
            "sources": {"checkin_time": "json-ld", "currency": "json-ld", "price_total": "json-ld", "reservation_id": "json-ld"},
            "missing_fields": [],
            // The page has prices in two currencies; the reservation's is taken.
            "notes": ["currency: 2 different values (\"VND\" from json-ld, \"USD\" from json-ld); took \"VND\""]
        }))
    );
}

#[test]
fn twitter_pairs_currency_suffixes_and_several_numbers() {
    let facts = json!({
        "pairs": [["Giá", "21.490.000 ₫ 25.990.000 ₫ -17%"]],
        "meta": {"twitter:label1": "Price", "twitter:data1": "$20", "twitter:label2": "Availability", "twitter:data2": "In stock"}
    });
    let out = run(facts, json!({"price_vnd": "number", "price_usd": "number", "in_stock": "boolean"}));
    assert_eq!(
        out,
        expected(json!({
            "data": {"in_stock": true, "price_usd": 20, "price_vnd": 21490000},
            "confidence": {"in_stock": 0.85, "price_usd": 0.85, "price_vnd": 0.75},
            "sources": {"in_stock": "meta", "price_usd": "meta", "price_vnd": "label"},
            "missing_fields": [],
            "notes": [
                "price_vnd: skipped \"$20\" is in USD, not VND (meta)",
                "price_vnd: \"21.490.000 ₫ 25.990.000 ₫ -17%\" holds several numbers; used the first"
            ]
        }))
    );
}

#[test]
fn prices_only_in_links_are_other_products() {
    // A page without a buy box: the only prices are recommendations (links).
    let link = |t: &str| json!({"text": t, "context": "p13n-sc-price", "link": true, "size": 14, "near": 21});
    let facts = json!({"prices": [link("23,49 €"), link("12,29 €"), link("7,61 €"), link("4,81 €")]});
    let out = run(facts, json!({"price": "number"}));
    assert_eq!(out.data.get("price"), None, "{:?}", out.notes);
    assert!(out.notes.iter().any(|n| n.contains("below 0.3")), "{:?}", out.notes);
    // With the product's own price beside them, that one wins.
    let own = json!({"text": "66,75 €", "context": "priceblock", "link": false, "size": 18, "near": 4});
    let facts = json!({"prices": [link("23,49 €"), own, link("12,29 €")]});
    let out = run(facts, json!({"price": "number"}));
    assert_eq!(out.data.get("price"), Some(&json!(66.75)));
}
