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

/// A strict reading of an iCalendar text (RFC 5545 3.1, 3.4, 3.6.1): CRLF
/// line ends, lines of at most 75 octets, continuation lines unfolded,
/// every line `NAME[;params]:value`, components balanced, the required
/// properties present. Returns the events' properties.
pub fn read_icalendar(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    assert!(text.ends_with("\r\n"), "ends with CRLF");
    let raw: Vec<&str> = text.strip_suffix("\r\n").unwrap().split("\r\n").collect();
    let mut lines: Vec<String> = Vec::new();
    for line in raw {
        assert!(!line.contains('\n') && !line.contains('\r'), "bare LF or CR in {line:?}");
        assert!(line.len() <= 75, "line of {} octets: {line:?}", line.len());
        if let Some(rest) = line.strip_prefix(' ') {
            lines.last_mut().expect("a continuation line follows a line").push_str(rest);
        } else {
            lines.push(line.to_owned());
        }
    }
    assert_eq!(lines.first().map(String::as_str), Some("BEGIN:VCALENDAR"));
    assert_eq!(lines.last().map(String::as_str), Some("END:VCALENDAR"));
    let mut stack = Vec::new();
    let mut calendar_props = Vec::new();
    let mut events = Vec::new();
    let mut event = std::collections::BTreeMap::new();
    for line in &lines {
        let (name, value) = line.split_once(':').unwrap_or_else(|| panic!("no `:` in {line:?}"));
        let name = name.split(';').next().unwrap();
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '-'), "name {name:?}");
        match name {
            "BEGIN" => stack.push(value.to_owned()),
            "END" => {
                assert_eq!(stack.pop().as_deref(), Some(value), "unbalanced END:{value}");
                if value == "VEVENT" {
                    for required in ["UID", "DTSTAMP", "DTSTART", "SUMMARY"] {
                        assert!(event.contains_key(required), "an event without {required}: {event:?}");
                    }
                    events.push(std::mem::take(&mut event));
                }
            }
            _ if stack.last().map(String::as_str) == Some("VEVENT") => {
                assert!(event.insert(name.to_owned(), value.to_owned()).is_none(), "{name} twice");
            }
            _ => calendar_props.push(name.to_owned()),
        }
    }
    assert!(stack.is_empty());
    assert!(calendar_props.contains(&"VERSION".to_owned()) && calendar_props.contains(&"PRODID".to_owned()));
    events
}

/// The text of a property value, unescaped.
pub fn unescape(value: &str) -> String {
    value.replace("\\n", "\n").replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\")
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
    let events = read_icalendar(&ics);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["DTSTART"], "20261130T120000Z", "19:00 in Hồ Chí Minh City is 12:00 UTC");
    assert_eq!(events[0]["DTSTAMP"], "20261124T140000Z");
    assert_eq!(unescape(&events[1]["SUMMARY"]), format!("[tiktok] {title}"));
    assert_eq!(unescape(&events[0]["DESCRIPTION"]), "Channel: youtube\nPillar: tech");
    assert_ne!(events[0]["UID"], events[1]["UID"]);
    assert!(ics.contains("\r\n "), "the long summary is folded");
}
