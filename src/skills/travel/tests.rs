use serde_json::{Map, Value, json};

use super::forms::{key_for, read_form};
use super::itinerary::check;
use super::offers::{cards, duration_minutes, refundable, stops};
use crate::tools::catalogue::common::Money;
use crate::tools::catalogue::travel::{DateRange, TravelOption, TravelPlanItineraryArgs};
use crate::vocab::text::fold;

const FLIGHTS: &str = include_str!("../../../tests/fixtures/site/travel/flights.html");
const VISA: &str = include_str!("../../../tests/fixtures/site/travel/visa.html");

#[test]
fn result_cards_are_found_and_their_terms_read() {
    let found = cards(FLIGHTS, "http://x.test/travel/flights.html", None);
    let names: Vec<&str> = found.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Vietnam Airlines VN310", "Vietjet Air VJ934", "ANA NH858 + NH9"]);
    // The struck-through old price is left out; the refund fee is no booking fee.
    assert_eq!(
        Value::Object(found[1].money.clone()),
        json!({"price": "7.890.000 ₫", "fees": 1_100_000.0, "currency": "VND"})
    );
    assert_eq!(found[0].money["fees"], json!(1_230_000.0));
    assert_eq!(found[2].money["fees"], json!(950_000.0));
    assert_eq!(found[1].url, "http://x.test/travel/book.html?f=vj934");
    assert_eq!(
        Value::Object(found[1].terms.clone()),
        json!({"depart": "01:45", "arrive": "09:05", "duration_minutes": 320, "stops": 0, "checked_baggage_kg": 0,
            "cabin_baggage_kg": 7, "refundable": false})
    );
    assert_eq!(found[2].terms["checked_baggage_kg"], 46);
    // A selector given by the site entry wins.
    assert_eq!(cards(FLIGHTS, "http://x.test/", Some("li[data-id=nh858]")).len(), 1);
    assert!(cards("<p>Không có chuyến bay 1.000 ₫</p>", "http://x.test/", None).is_empty());
}

#[test]
fn durations_stops_and_refunds_in_english_and_vietnamese() {
    assert_eq!(duration_minutes(&fold("2h 35m")), Some(155));
    assert_eq!(duration_minutes(&fold("2 giờ 35 phút")), Some(155));
    assert_eq!(duration_minutes(&fold("Thời gian: 95 phút")), Some(95));
    assert_eq!(stops(&fold("Bay thẳng")), Some(0));
    assert_eq!(stops(&fold("2 điểm dừng")), Some(2));
    assert_eq!(stops(&fold("1 stop")), Some(1));
    assert_eq!(refundable(&fold("Không hoàn tiền")), Some(false));
    assert_eq!(refundable(&fold("Non-refundable")), Some(false));
    assert_eq!(refundable(&fold("Hoàn tiền")), Some(true));
    assert_eq!(refundable(&fold("Free cancellation")), Some(true));
    assert_eq!(refundable(&fold("Economy")), None);
}

#[test]
fn a_form_is_read_and_its_labels_matched_to_profile_keys() {
    let form = read_form(VISA);
    let fields: Vec<(&str, &str, bool)> =
        form.fields.iter().map(|f| (f.label.as_str(), f.kind.as_str(), f.required)).collect();
    assert_eq!(fields.len(), 11, "{fields:?}");
    assert_eq!(fields[0], ("Họ và tên (Full name)", "text", true));
    assert_eq!(fields[6], ("Ảnh trang hộ chiếu (Passport scan)", "file", true));
    assert_eq!(fields[7], ("Ảnh chân dung 4x6 (Portrait photo, optional)", "file", false));
    assert_eq!(form.fields[3].options[0], ("VNM".to_owned(), "Việt Nam".to_owned()));
    assert_eq!(form.submit.as_deref(), Some("[id=\"send\"]"));
    let keys: Vec<String> =
        ["name", "contact.email", "dob", "travel.passport_no", "travel.passport_expiry"].map(str::to_owned).to_vec();
    let key = |label: &str| key_for(label, &keys).map(String::as_str);
    assert_eq!(key("Họ và tên (Full name)"), Some("name"));
    assert_eq!(key("Ngày sinh"), Some("dob"));
    assert_eq!(key("Số hộ chiếu"), Some("travel.passport_no"));
    assert_eq!(key("Ngày hết hạn (Expiry date)"), Some("travel.passport_expiry"));
    assert_eq!(key("Thư điện tử"), Some("contact.email"));
    assert_eq!(key("Nghề nghiệp"), None);
}

fn option(summary: &str, total: f64) -> TravelOption {
    TravelOption {
        source: "s".into(),
        url: "http://x.test/".into(),
        summary: summary.into(),
        total_price: Some(Money { amount: total, currency: "VND".into() }),
        terms: Map::new(),
    }
}

#[test]
fn without_a_model_the_skeleton_has_the_days_and_bookings_and_over_budget_is_a_tradeoff() {
    let args = TravelPlanItineraryArgs {
        origin: "HAN".into(),
        destination: "Đà Nẵng".into(),
        dates: DateRange { from: "2026-04-30".into(), to: "2026-05-02".into() },
        budget_vnd: Some(5_000_000),
        travellers: 2,
        notes: None,
        sites: Vec::new(),
    };
    let days: Vec<chrono::NaiveDate> = super::date("2026-04-30", "d").unwrap().iter_days().take(3).collect();
    let c = check(&days, &args, &[option("VN 123", 3_000_000.0)], &[option("Hotel A", 4_000_000.0)], 2, None);
    let dates: Vec<&str> = c.days.iter().map(|d| d.date.as_str()).collect();
    assert_eq!(dates, ["2026-04-30", "2026-05-01", "2026-05-02"]);
    assert_eq!(c.days[0].items, ["Flight HAN → Đà Nẵng: VN 123", "Check in: Hotel A"]);
    assert!(c.days[1].items.is_empty());
    assert_eq!(c.total, Some(7_000_000));
    assert!(!c.within_budget);
    assert_eq!(c.tradeoffs, ["Over budget by 2.000.000 ₫: 7.000.000 ₫ for a budget of 5.000.000 ₫"]);
    let parts: Vec<(&str, f64)> = c.score_parts.iter().map(|p| (p.name.as_str(), p.score)).collect();
    assert_eq!(parts, [("budget", 0.71), ("days", 0.0), ("bookings", 1.0)]);
}
