//! Chromium's `--host-resolver-rules` (and `--host-rules`), applied by the
//! relay: through a SOCKS5 proxy Chromium sends host names, not
//! addresses, so the names are resolved in the relay, where the browser's
//! own rules would otherwise be lost. A browser told `MAP * ~NOTFOUND ,
//! EXCLUDE 127.0.0.1` (a machine with no way out, or a test) gets "name
//! not resolved" at once from the relay too, instead of a real lookup.
//!
//! The syntax is Chromium's (`net/base/host_mapping_rules.cc`): rules
//! separated by commas, each `MAP pattern replacement[:port]` or `EXCLUDE
//! pattern`, patterns with `*` and `?`, case-insensitive; a host an
//! `EXCLUDE` matches is never mapped, else the first `MAP` that matches
//! decides; the replacement `~NOTFOUND` fails the name.

use regex::Regex;

/// The rules a browser was started with.
#[derive(Debug, Default)]
pub(crate) struct HostRules {
    maps: Vec<(Regex, To)>,
    excludes: Vec<Regex>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum To {
    NotFound,
    Host(String, Option<u16>),
}

/// Where a connection to a host goes, under the rules.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Mapped {
    /// The host itself (no rule for it).
    Same,
    /// Another host, and maybe another port.
    To(String, Option<u16>),
    /// A name that must not resolve.
    NotFound,
}

impl HostRules {
    /// The rules of the running process `pid`, read from `/proc` (none when
    /// it cannot be read). Chromium writes its process title over its
    /// arguments once it runs: then they are one line, joined by spaces,
    /// and a switch's value ends where the next switch begins (` --`).
    pub fn of_process(pid: u32) -> HostRules {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return HostRules::default() };
        HostRules::of_title(&String::from_utf8_lossy(&cmdline))
    }

    fn of_title(title: &str) -> HostRules {
        let mut rules = HostRules::default();
        for switch in ["--host-resolver-rules=", "--host-rules="] {
            for (at, _) in title.match_indices(switch) {
                let value = &title[at + switch.len()..];
                let end = [value.find('\0'), value.find(" --")].into_iter().flatten().min().unwrap_or(value.len());
                rules.add(value[..end].trim_matches('"'));
            }
        }
        rules
    }

    fn add(&mut self, text: &str) {
        for rule in text.split(',') {
            let words: Vec<&str> = rule.split_whitespace().collect();
            match words.as_slice() {
                [kind, pattern, to] if kind.eq_ignore_ascii_case("MAP") => {
                    let Some(pattern) = wildcard(pattern) else { continue };
                    let to = if *to == "~NOTFOUND" { To::NotFound } else { host_and_port(to) };
                    self.maps.push((pattern, to));
                }
                [kind, pattern] if kind.eq_ignore_ascii_case("EXCLUDE") => {
                    if let Some(pattern) = wildcard(pattern) {
                        self.excludes.push(pattern);
                    }
                }
                // Chromium ignores a rule it cannot read; so does the relay.
                _ => {}
            }
        }
    }

    /// Where a connection to `host` goes.
    pub fn map(&self, host: &str) -> Mapped {
        if self.excludes.iter().any(|p| p.is_match(host)) {
            return Mapped::Same;
        }
        match self.maps.iter().find(|(p, _)| p.is_match(host)) {
            None => Mapped::Same,
            Some((_, To::NotFound)) => Mapped::NotFound,
            Some((_, To::Host(to, port))) => Mapped::To(to.clone(), *port),
        }
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn host_and_port(text: &str) -> To {
    let (host, port) = match text.strip_prefix('[').and_then(|t| t.split_once(']')) {
        Some((v6, rest)) => (v6, rest.strip_prefix(':')),
        None => match text.split_once(':') {
            Some((host, port)) if !port.contains(':') => (host, Some(port)),
            _ => (text, None),
        },
    };
    To::Host(host.to_owned(), port.and_then(|p| p.parse().ok()))
}

/// A pattern with `*` and `?` as a whole-name, case-insensitive regex.
fn wildcard(pattern: &str) -> Option<Regex> {
    let mut re = String::from("(?i)^");
    for c in pattern.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_rules_decide_where_a_name_goes() {
        let rules =
            HostRules::of_title("chromium\0--headless\0--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1\0");
        assert_eq!(rules.map("cdn.example.com"), Mapped::NotFound);
        assert_eq!(rules.map("localhost"), Mapped::NotFound);
        assert_eq!(rules.map("127.0.0.1"), Mapped::Same);
        let rules =
            HostRules::of_title("--host-rules=MAP *.shop.vn 127.0.0.1:8080,MAP api.* [::1], MAP v6.* [::1]:9, junk\0");
        assert_eq!(rules.map("WWW.Shop.VN"), Mapped::To("127.0.0.1".into(), Some(8080)));
        assert_eq!(rules.map("api.example.org"), Mapped::To("::1".into(), None));
        assert_eq!(rules.map("v6.example.org"), Mapped::To("::1".into(), Some(9)));
        assert_eq!(rules.map("shop.vn"), Mapped::Same);
        assert_eq!(HostRules::of_title("chromium\0--no-sandbox\0").map("x.vn"), Mapped::Same);
        // As /proc shows a running Chromium: its title over its arguments.
        let title = "/usr/lib/chromium/chromium --load-extension --host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE \
                     127.0.0.1 --no-first-run --proxy-server=socks5://127.0.0.1:1\0";
        let rules = HostRules::of_title(title);
        assert_eq!((rules.map("a.vn"), rules.map("127.0.0.1")), (Mapped::NotFound, Mapped::Same));
        let rules = HostRules::of_title("chromium\0--host-rules=MAP x.vn 127.0.0.1\0--headless\0");
        assert_eq!(rules.map("x.vn"), Mapped::To("127.0.0.1".into(), None));
    }
}
