//! Result URLs made comparable: the same page reached with tracking
//! parameters, a fragment, another case or a trailing slash is one result.

use url::Url;

/// Query parameters that only track the visit.
fn is_tracking(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("utm_")
        || matches!(
            n.as_str(),
            "fbclid"
                | "gclid"
                | "dclid"
                | "gbraid"
                | "wbraid"
                | "msclkid"
                | "yclid"
                | "mc_cid"
                | "mc_eid"
                | "igshid"
                | "ref_src"
                | "srsltid"
                | "_ga"
                | "_gl"
                | "spm"
        )
}

/// The URL as shown to the model: tracking parameters and the fragment
/// dropped, scheme and host lowercase. `None` when it is not an http(s) URL.
pub fn clean(raw: &str) -> Option<String> {
    let mut url = Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    url.set_fragment(None);
    let kept: Vec<(String, String)> = url.query_pairs().into_owned().filter(|(k, _)| !is_tracking(k)).collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    Some(url.to_string())
}

/// What two results must share to be the same page: the cleaned URL
/// without a trailing slash on its path.
pub fn key(raw: &str) -> Option<String> {
    let mut url = Url::parse(&clean(raw)?).ok()?;
    let path = url.path().trim_end_matches('/').to_owned();
    url.set_path(&path);
    let s = url.to_string();
    Some(match url.query() {
        None => s.trim_end_matches('/').to_owned(),
        Some(_) => s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracking_fragments_case_and_trailing_slashes_do_not_make_another_page() {
        let a = key("https://Shop.Example.VN/iphone-16/?utm_source=x&utm_medium=y#reviews").unwrap();
        let b = key("HTTPS://shop.example.vn/iphone-16").unwrap();
        let c = key("https://shop.example.vn/iphone-16?fbclid=abc").unwrap();
        assert_eq!(a, b);
        assert_eq!(b, c);
        assert_eq!(key("https://example.com/").unwrap(), key("https://EXAMPLE.com").unwrap());
        // A parameter that names the content is kept.
        assert_ne!(key("https://shop.vn/p?id=1").unwrap(), key("https://shop.vn/p?id=2").unwrap());
        assert_eq!(key("https://shop.vn/p?id=1&utm_source=z").unwrap(), key("https://shop.vn/p/?id=1").unwrap());
    }

    #[test]
    fn cleaned_urls_keep_the_page_and_drop_the_tracking() {
        assert_eq!(clean("https://Shop.VN/a/?utm_source=x&q=gi%C3%A1#top").unwrap(), "https://shop.vn/a/?q=gi%C3%A1");
        assert_eq!(clean("https://shop.vn/a?gclid=1").unwrap(), "https://shop.vn/a");
        assert_eq!(clean("javascript:alert(1)"), None);
        assert_eq!(clean("/relative"), None);
    }
}
