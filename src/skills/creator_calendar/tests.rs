use jiff::civil::date;

use super::*;

fn days(times: &[jiff::civil::DateTime]) -> Vec<String> {
    times.iter().map(|t| t.to_string()).collect()
}

#[test]
fn cadences_are_read_and_refused_with_a_reason() {
    assert_eq!(Cadence::parse("daily").unwrap(), Cadence::PerDay(1));
    assert_eq!(Cadence::parse("weekly").unwrap(), Cadence::PerWeek(1));
    assert_eq!(Cadence::parse("3_per_week").unwrap(), Cadence::PerWeek(3));
    assert_eq!(Cadence::parse("2_per_month").unwrap(), Cadence::PerMonth(2));
    for bad in ["0_per_week", "often", "3_per_year", "8_per_week", "x_per_day"] {
        let e = Cadence::parse(bad).unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::InvalidArguments, "{bad}");
        assert!(e.message().contains("per_"), "{bad}: {}", e.message());
    }
}

#[test]
fn slots_spread_over_the_week_the_day_and_the_month() {
    // 2026-11-30 is a Monday.
    let monday = date(2026, 11, 30);
    let three = slot_times(Cadence::PerWeek(3), monday, 14, (19, 0)).unwrap();
    assert_eq!(
        days(&three),
        [
            "2026-11-30T19:00:00",
            "2026-12-02T19:00:00",
            "2026-12-04T19:00:00",
            "2026-12-07T19:00:00",
            "2026-12-09T19:00:00",
            "2026-12-11T19:00:00"
        ]
    );
    let twice = slot_times(Cadence::PerDay(2), monday, 2, (19, 0)).unwrap();
    assert_eq!(
        days(&twice),
        ["2026-11-30T08:00:00", "2026-11-30T20:00:00", "2026-12-01T08:00:00", "2026-12-01T20:00:00"]
    );
    let daily = slot_times(Cadence::PerDay(1), monday, 3, (7, 30)).unwrap();
    assert_eq!(days(&daily), ["2026-11-30T07:30:00", "2026-12-01T07:30:00", "2026-12-02T07:30:00"]);
    // Four weeks from the 30th touch November (nothing left of it) and December.
    let monthly = slot_times(Cadence::PerMonth(2), monday, 28, (19, 0)).unwrap();
    assert_eq!(days(&monthly), ["2026-12-01T19:00:00", "2026-12-16T19:00:00"]);
    assert_eq!(next_monday(date(2026, 11, 24)), monday);
    assert_eq!(next_monday(monday), date(2026, 12, 7), "next Monday is never today");
}

#[test]
fn the_icalendar_file_is_valid_and_folds_vietnamese_text_on_character_boundaries() {
    let tz = TimeZone::get(DEFAULT_TIME_ZONE).unwrap();
    let starts = vec![date(2026, 11, 30).at(19, 0, 0, 0).to_zoned(tz).unwrap()];
    let title = "Trình duyệt AI năm 2026: 5 xu hướng, 3 công cụ; và một câu chuyện dài về việc xây dựng công khai";
    let calendar = ["youtube", "tiktok"]
        .map(|channel| CalendarSlot {
            date: "2026-11-30".into(),
            channel: channel.into(),
            pillar: Some("tech".into()),
            title: title.into(),
            start: Some("2026-11-30T19:00:00+07:00".into()),
        })
        .to_vec();
    let now = "2026-11-24T14:00:00Z".parse().unwrap();
    let ics = icalendar(&calendar, &starts, 2, DEFAULT_TIME_ZONE, now);
    // (tests/common/ical.rs reads the stored file strictly in the end-to-end tests.)
    let lines: Vec<&str> = ics.strip_suffix("\r\n").unwrap().split("\r\n").collect();
    assert!(lines.iter().all(|l| l.len() <= 75 && !l.contains('\n')), "{lines:#?}");
    assert_eq!(lines.iter().filter(|l| **l == "BEGIN:VEVENT").count(), 2);
    assert_eq!(lines.iter().filter(|l| **l == "DTSTART:20261130T120000Z").count(), 2, "19:00 in Hồ Chí Minh City");
    assert!(lines.contains(&"DTSTAMP:20261124T140000Z"));
    assert!(lines.contains(&"DESCRIPTION:Channel: youtube\\nPillar: tech"), "{lines:#?}");
    let unfolded = ics.replace("\r\n ", "");
    assert!(unfolded.contains(&format!("SUMMARY:[tiktok] {}", title.replace(',', "\\,").replace(';', "\\;"))));
    assert!(ics.contains("\r\n "), "the long summary is folded");
}
