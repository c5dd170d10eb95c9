//! Origins and site patterns, for the gate and the store: the origin of a
//! URL (`scheme://host[:port]`, default port left out, host lowercased), a
//! URL resolved against its page, and the sites a rule or a task's limit
//! names: one origin, or a domain and its subdomains (`*.shop.vn`, on http
//! and https and any port; `https://*.shop.vn`: on https only).

use url::Url;

use crate::error::{Error, Result};

/// The origin (`scheme://host[:port]`, default port left out, host
/// lowercased) of a URL or an origin; `None` for opaque ones (`about:blank`,
/// `data:`, `file:`) and for text that is not a URL.
pub fn origin_of(input: &str) -> Option<String> {
    let url = Url::parse(input.trim()).ok()?;
    let origin = url.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// `url` read alone or, when it is relative, against `base` (the page it is on).
pub fn resolve(url: &str, base: Option<&str>) -> Option<Url> {
    Url::parse(url).ok().or_else(|| base.and_then(|b| Url::parse(b).ok()).and_then(|b| b.join(url).ok()))
}

/// The origin of `url` resolved against `base`; `None` for opaque ones.
pub fn origin_in(url: &str, base: Option<&str>) -> Option<String> {
    let origin = resolve(url, base)?.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// An origin in the form origins are compared in: the origin of a URL or
/// an origin, else the text itself, trimmed (an opaque `about:blank`).
pub fn normalize(input: &str) -> String {
    origin_of(input).unwrap_or_else(|| input.trim().to_owned())
}

/// Whether two URLs (or origins) are of one site: the same registrable
/// domain by the public suffix list (`checkout.shop.vn` and
/// `api.shop.vn`; never `a.com.vn` and `b.com.vn`), or, for hosts the list
/// has no domain for (an IP address, `localhost`), the same host. The
/// scheme and port do not matter, as for a browser's "same site".
pub fn same_site(a: &str, b: &str) -> bool {
    match (site_of(a), site_of(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The site of a URL as [`same_site`] reads it: its registrable domain, or
/// its host when the public suffix list has none (an IP address,
/// `localhost`).
pub fn site_of(url: &str) -> Option<String> {
    let host = Url::parse(url).ok()?.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let is_ip = host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[');
    let domain = (!is_ip).then(|| psl::domain_str(&host)).flatten().map(str::to_owned);
    Some(domain.unwrap_or(host))
}

/// Whether `host` is `domain` or one of its subdomains (`m.shop.vn` is
/// within `shop.vn`; `notshop.vn` is not). Both are compared as given
/// (lowercase them first; [`Url`] hosts already are).
pub fn host_within(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|head| head.ends_with('.') && head.len() > 1)
}

/// Where a rule or a task's origin limit applies: one origin, or a domain
/// and its subdomains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SitePattern {
    /// `https://shop.vn` (from any URL on it).
    Origin(String),
    /// `*.shop.vn` (scheme `None`: http or https) or `https://*.shop.vn`.
    Hosts { scheme: Option<String>, domain: String },
}

impl SitePattern {
    /// Read an origin or URL (`https://shop.vn/cart` is `https://shop.vn`)
    /// or a host pattern (`*.shop.vn`, `https://*.shop.vn`); anything else
    /// is `invalid_arguments`.
    pub fn parse(input: &str) -> Result<SitePattern> {
        let s = input.trim();
        let bad = || {
            Error::invalid_arguments(format!(
                "`{input}` is not a site: give an origin like https://shop.vn or a host pattern like *.shop.vn"
            ))
        };
        let (scheme, rest) = match s.split_once("://") {
            Some((scheme, rest)) => (Some(scheme.to_ascii_lowercase()), rest),
            None => (None, s),
        };
        if scheme.as_deref().is_some_and(|sc| sc != "http" && sc != "https") {
            return Err(bad());
        }
        let Some(domain) = rest.strip_prefix("*.") else {
            return match scheme {
                Some(_) => origin_of(s).map(SitePattern::Origin).ok_or_else(bad),
                None => Err(bad()),
            };
        };
        let domain = domain.strip_suffix('/').unwrap_or(domain);
        if !domain.contains('.') || domain.contains(['/', ':', '*', '?', '#', '@', '[']) {
            return Err(bad());
        }
        let url = Url::parse(&format!("https://{domain}/")).map_err(|_| bad())?;
        let domain = url.domain().filter(|d| !d.starts_with('.') && !d.ends_with('.')).ok_or_else(bad)?;
        Ok(SitePattern::Hosts { scheme, domain: domain.to_owned() })
    }

    /// Whether the origin of `url` (a URL or an origin) falls under this pattern.
    pub fn matches(&self, url: &str) -> bool {
        match self {
            SitePattern::Origin(origin) => origin_of(url).is_some_and(|o| &o == origin),
            SitePattern::Hosts { scheme, domain } => {
                let Ok(url) = Url::parse(url.trim()) else { return false };
                let scheme_fits = match scheme {
                    Some(s) => url.scheme() == s,
                    None => matches!(url.scheme(), "http" | "https"),
                };
                let host = url.host_str().unwrap_or_default();
                scheme_fits && host_within(host, domain)
            }
        }
    }
}

impl std::fmt::Display for SitePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SitePattern::Origin(origin) => f.write_str(origin),
            SitePattern::Hosts { scheme: Some(scheme), domain } => write!(f, "{scheme}://*.{domain}"),
            SitePattern::Hosts { scheme: None, domain } => write!(f, "*.{domain}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn one_site_is_one_registrable_domain() {
        assert!(same_site("https://www.shop.com.vn/p/1", "https://api.shop.com.vn/order"));
        assert!(same_site("https://checkout.shop.vn", "http://api.shop.vn:8443/x"));
        assert!(same_site("https://shop.vn", "https://shop.vn"));
        assert!(!same_site("https://shop.com.vn", "https://evil.com.vn"));
        assert!(!same_site("https://a.github.io", "https://b.github.io"), "a private suffix is a suffix");
        assert!(!same_site("https://shop.vn", "https://shop.vn.evil.com"));
        assert!(same_site("http://127.0.0.1:8080/a", "http://127.0.0.1:9090/b"));
        assert!(!same_site("http://127.0.0.1:8080/a", "http://localhost:8080/b"));
        assert!(!same_site("not a url", "not a url"));
    }

    #[test]
    fn origins_and_site_patterns() {
        assert_eq!(origin_of("HTTPS://Shop.VN:443/cart?x=1#y").as_deref(), Some("https://shop.vn"));
        assert_eq!(origin_of("http://localhost:8080/").as_deref(), Some("http://localhost:8080"));
        assert_eq!(origin_of("https://shop.vn").as_deref(), Some("https://shop.vn"));
        for opaque in ["about:blank", "data:text/html,hi", "shop.vn", ""] {
            assert_eq!(origin_of(opaque), None, "{opaque}");
        }

        let parsed = |s: &str| SitePattern::parse(s).map(|p| p.to_string()).map_err(|e| e.code());
        assert_eq!(parsed("https://shop.vn/cart"), Ok("https://shop.vn".into()));
        assert_eq!(parsed(" *.Shop.vn/ "), Ok("*.shop.vn".into()));
        assert_eq!(parsed("HTTPS://*.shop.vn"), Ok("https://*.shop.vn".into()));
        for bad in
            ["shop.vn", "*.", "*.vn", "*.shop.vn/x", "*.shop.vn:80", "ftp://shop.vn", "**.shop.vn", "about:blank"]
        {
            assert_eq!(parsed(bad), Err(crate::error::ErrorCode::InvalidArguments), "{bad}");
        }

        let p = |s: &str| SitePattern::parse(s).unwrap();
        #[rustfmt::skip]
        let table = [
            ("https://shop.vn", "https://shop.vn/p/1", true),
            ("https://shop.vn", "https://shop.vn:443", true),
            ("https://shop.vn", "http://shop.vn", false),
            ("https://shop.vn", "https://m.shop.vn", false),
            ("https://shop.vn", "https://shop.vn:8443", false),
            ("*.shop.vn", "https://shop.vn", true),
            ("*.shop.vn", "http://m.shop.vn:8080", true),
            ("*.shop.vn", "https://a.b.shop.vn", true),
            ("*.shop.vn", "https://notshop.vn", false),
            ("*.shop.vn", "https://shop.vn.evil.com", false),
            ("*.shop.vn", "ws://shop.vn", false),
            ("https://*.shop.vn", "http://m.shop.vn", false),
            ("https://*.shop.vn", "https://m.shop.vn", true),
            ("*.shop.vn", "about:blank", false),
        ];
        for (pattern, url, want) in table {
            assert_eq!(p(pattern).matches(url), want, "{pattern} vs {url}");
        }
    }

    #[test]
    fn relative_urls_and_hosts() {
        assert_eq!(origin_in("/cart", Some("https://Shop.vn/p/1")).as_deref(), Some("https://shop.vn"));
        assert_eq!(origin_in("https://pay.vn/x", Some("https://shop.vn/")).as_deref(), Some("https://pay.vn"));
        assert_eq!(origin_in("/cart", None), None);
        assert_eq!(origin_in("javascript:void(0)", Some("https://shop.vn/")), None);
        assert_eq!(normalize(" HTTPS://Shop.VN/cart "), "https://shop.vn");
        assert_eq!(normalize(" about:blank "), "about:blank");
        assert!(host_within("shop.vn", "shop.vn"));
        assert!(host_within("m.shop.vn", "shop.vn"));
        assert!(!host_within("notshop.vn", "shop.vn"));
        assert!(!host_within(".shop.vn", "shop.vn"));
    }
}
