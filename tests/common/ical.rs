//! A strict reader of iCalendar files (RFC 5545), for the files Halley writes.

/// A strict reading of an iCalendar text (RFC 5545 3.1, 3.4, 3.6.1): CRLF
/// line ends, lines of at most 75 octets, continuation lines unfolded,
/// every line `NAME[;params]:value`, components balanced, the required
/// properties present. Returns the events' properties.
pub fn read(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
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
