//! Key names and chords (`Enter`, `ArrowDown`, `Ctrl+A`, `Shift+Tab`, `é`)
//! turned into CDP key events.

use crate::error::{Error, Result};

/// CDP modifier bits.
pub(crate) const ALT: i64 = 1;
pub(crate) const CTRL: i64 = 2;
pub(crate) const META: i64 = 4;
pub(crate) const SHIFT: i64 = 8;

/// One key to press, with the modifiers held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyPress {
    /// DOM `key` value (`Enter`, `a`, `ArrowDown`).
    pub key: String,
    /// DOM `code` value (`Enter`, `KeyA`, `ArrowDown`).
    pub code: String,
    /// Windows virtual key code (what `keyCode` reports).
    pub key_code: i64,
    /// Text the key inserts, if any (none while Ctrl/Alt/Meta are held).
    pub text: Option<String>,
    pub modifiers: i64,
    /// Modifier keys to press and release around the key, in order.
    pub held: Vec<KeyPress>,
}

/// Parse `Ctrl+Shift+Tab`, `ENTER`, `a`, `+`.
pub(crate) fn parse_chord(spec: &str) -> Result<KeyPress> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(Error::invalid_arguments("an empty key name"));
    }
    // A lone "+" (or a chord ending in "++") presses the plus key.
    let parts: Vec<&str> = if spec == "+" {
        vec!["+"]
    } else if let Some(head) = spec.strip_suffix("++") {
        head.split('+').chain(std::iter::once("+")).collect()
    } else {
        spec.split('+').collect()
    };
    let Some((last, mods)) = parts.split_last() else {
        return Err(Error::invalid_arguments(format!("cannot read key {spec:?}")));
    };
    let mut modifiers = 0;
    let mut held = Vec::new();
    for m in mods {
        let (bit, name) = match m.trim().to_ascii_lowercase().as_str() {
            "ctrl" | "control" => (CTRL, "Control"),
            "shift" => (SHIFT, "Shift"),
            "alt" | "option" => (ALT, "Alt"),
            "meta" | "cmd" | "command" | "super" | "win" => (META, "Meta"),
            other => {
                return Err(Error::invalid_arguments(format!(
                    "unknown modifier {other:?} in {spec:?}; use Ctrl, Shift, Alt or Meta"
                )));
            }
        };
        modifiers |= bit;
        let mut k = named(name).ok_or_else(|| Error::internal("modifier table"))?;
        k.modifiers = modifiers;
        held.push(k);
    }
    let mut key = named(last.trim()).or_else(|| character(last)).ok_or_else(|| {
        Error::invalid_arguments(format!(
            "unknown key {last:?}; use a named key (Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, \
                 Home, End, PageUp, PageDown, Space, F1-F12) or a single character"
        ))
    })?;
    if !mods.is_empty() && key.key.chars().count() == 1 && key.key.chars().all(char::is_alphabetic) {
        // In a chord a letter names the key, not its case: Shift decides that.
        key.key = key.key.to_lowercase();
        key.text = Some(key.key.clone());
    }
    if modifiers & SHIFT != 0
        && let Some(t) = &key.text
        && t.chars().count() == 1
    {
        key.text = Some(t.to_uppercase());
        if key.key.chars().count() == 1 {
            key.key = key.key.to_uppercase();
        }
    }
    if modifiers & (CTRL | ALT | META) != 0 && key.key != "Enter" {
        key.text = None;
    }
    key.modifiers = modifiers;
    key.held = held;
    Ok(key)
}

fn press(key: &str, code: &str, key_code: i64, text: Option<&str>) -> KeyPress {
    KeyPress {
        key: key.to_owned(),
        code: code.to_owned(),
        key_code,
        text: text.map(str::to_owned),
        modifiers: 0,
        held: Vec::new(),
    }
}

/// A named key, case-insensitively.
fn named(name: &str) -> Option<KeyPress> {
    let lower = name.to_ascii_lowercase();
    let k = match lower.as_str() {
        "enter" | "return" => press("Enter", "Enter", 13, Some("\r")),
        "tab" => press("Tab", "Tab", 9, None),
        "escape" | "esc" => press("Escape", "Escape", 27, None),
        "backspace" => press("Backspace", "Backspace", 8, None),
        "delete" | "del" => press("Delete", "Delete", 46, None),
        "space" | "spacebar" => press(" ", "Space", 32, Some(" ")),
        "arrowup" | "up" => press("ArrowUp", "ArrowUp", 38, None),
        "arrowdown" | "down" => press("ArrowDown", "ArrowDown", 40, None),
        "arrowleft" | "left" => press("ArrowLeft", "ArrowLeft", 37, None),
        "arrowright" | "right" => press("ArrowRight", "ArrowRight", 39, None),
        "home" => press("Home", "Home", 36, None),
        "end" => press("End", "End", 35, None),
        "pageup" => press("PageUp", "PageUp", 33, None),
        "pagedown" => press("PageDown", "PageDown", 34, None),
        "insert" => press("Insert", "Insert", 45, None),
        "control" | "ctrl" => press("Control", "ControlLeft", 17, None),
        "shift" => press("Shift", "ShiftLeft", 16, None),
        "alt" => press("Alt", "AltLeft", 18, None),
        "meta" => press("Meta", "MetaLeft", 91, None),
        f if f.len() >= 2 && f.starts_with('f') => {
            let n: i64 = f[1..].parse().ok().filter(|n| (1..=12).contains(n))?;
            let name = format!("F{n}");
            return Some(KeyPress {
                key: name.clone(),
                code: name,
                key_code: 111 + n,
                text: None,
                modifiers: 0,
                held: Vec::new(),
            });
        }
        _ => return None,
    };
    Some(k)
}

/// A single character: letters and digits get their physical key code;
/// anything else (é, ư, ₫) is typed as text.
fn character(s: &str) -> Option<KeyPress> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let text = c.to_string();
    let (code, key_code) = if c.is_ascii_alphabetic() {
        (format!("Key{}", c.to_ascii_uppercase()), i64::from(u32::from(c.to_ascii_uppercase())))
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), i64::from(u32::from(c)))
    } else {
        let (code, kc) = match c {
            '-' => ("Minus", 189),
            '=' | '+' => ("Equal", 187),
            ',' => ("Comma", 188),
            '.' => ("Period", 190),
            '/' => ("Slash", 191),
            ';' => ("Semicolon", 186),
            '\'' => ("Quote", 222),
            '[' => ("BracketLeft", 219),
            ']' => ("BracketRight", 221),
            '\\' => ("Backslash", 220),
            '`' => ("Backquote", 192),
            _ => ("", 0),
        };
        (code.to_owned(), kc)
    };
    Some(KeyPress { key: text.clone(), code, key_code, text: Some(text), modifiers: 0, held: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_and_chords() {
        let enter = parse_chord("ENTER").unwrap();
        assert_eq!((enter.key.as_str(), enter.key_code, enter.text.as_deref()), ("Enter", 13, Some("\r")));
        let sel = parse_chord("Ctrl+A").unwrap();
        assert_eq!((sel.key.as_str(), sel.code.as_str(), sel.modifiers, sel.text), ("a", "KeyA", CTRL, None));
        assert_eq!(sel.held.len(), 1);
        let back = parse_chord("shift+tab").unwrap();
        assert_eq!((back.key.as_str(), back.modifiers), ("Tab", SHIFT));
        assert_eq!(parse_chord("F5").unwrap().key_code, 116);
        assert_eq!(parse_chord("ư").unwrap().text.as_deref(), Some("ư"));
        assert_eq!(parse_chord("+").unwrap().key, "+");
        assert_eq!(parse_chord("Ctrl++").unwrap().modifiers, CTRL);
        assert_eq!(parse_chord("Shift+a").unwrap().text.as_deref(), Some("A"));
    }

    #[test]
    fn unknown_keys_are_errors() {
        for bad in ["Hyper+A", "Foo", "", "F13"] {
            assert_eq!(parse_chord(bad).unwrap_err().code(), crate::ErrorCode::InvalidArguments, "{bad}");
        }
    }
}
