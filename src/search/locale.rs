//! The locale of a search: the one asked, else the query's own language
//! (Vietnamese diacritics say vi-VN), else the user's language setting, and
//! how each provider spells it.

/// A BCP 47 language with its region, e.g. `vi-VN`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locale {
    /// Lowercase language, e.g. `vi`.
    pub lang: String,
    /// Uppercase region, e.g. `VN` (none: the language's usual one, if any).
    pub region: Option<String>,
}

impl Locale {
    /// `vi-VN`, `en_us`, `VI`... (script subtags such as `zh-Hant-TW` keep
    /// the region). `None` when it does not read as a language tag.
    pub fn parse(tag: &str) -> Option<Locale> {
        let mut parts = tag.trim().split(['-', '_']).filter(|p| !p.is_empty());
        let lang = parts.next()?.to_ascii_lowercase();
        if !(2..=3).contains(&lang.len()) || !lang.chars().all(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        let region = parts
            .find(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_alphabetic()))
            .map(str::to_ascii_uppercase)
            .or_else(|| usual_region(&lang).map(str::to_owned));
        Some(Locale { lang, region })
    }

    /// `vi-VN` (or `vi` without a region).
    pub fn tag(&self) -> String {
        match &self.region {
            Some(r) => format!("{}-{r}", self.lang),
            None => self.lang.clone(),
        }
    }

    /// DuckDuckGo's region code (`kl`): `vn-vi`, `us-en`, `uk-en`; `wt-wt`
    /// (no region) when there is none.
    pub fn ddg_region(&self) -> String {
        match (self.lang.as_str(), self.region.as_deref()) {
            (_, None) => "wt-wt".into(),
            ("en", Some("GB")) => "uk-en".into(),
            ("zh", Some("TW")) => "tw-tzh".into(),
            ("zh", Some("HK")) => "hk-tzh".into(),
            (lang, Some(region)) => format!("{}-{lang}", region.to_ascii_lowercase()),
        }
    }
}

/// The region a language is usually searched from.
fn usual_region(lang: &str) -> Option<&'static str> {
    Some(match lang {
        "vi" => "VN",
        "en" => "US",
        "ja" => "JP",
        "ko" => "KR",
        "fr" => "FR",
        "de" => "DE",
        "th" => "TH",
        "zh" => "CN",
        _ => return None,
    })
}

/// The language a query is written in, when its letters say so:
/// Vietnamese (its own letters and tone marks), Japanese (kana), Korean
/// (Hangul), Thai.
pub fn detect(query: &str) -> Option<Locale> {
    let has = |f: fn(char) -> bool| query.chars().any(f);
    let vietnamese_word =
        query.split(|c: char| !c.is_alphanumeric()).any(|w| VIETNAMESE_WORDS.contains(&w.to_lowercase().as_str()));
    let tag = if has(is_vietnamese) || vietnamese_word {
        "vi-VN"
    } else if has(|c| matches!(c, '\u{3040}'..='\u{30ff}')) {
        "ja-JP"
    } else if has(|c| matches!(c, '\u{ac00}'..='\u{d7af}' | '\u{1100}'..='\u{11ff}')) {
        "ko-KR"
    } else if has(|c| matches!(c, '\u{0e00}'..='\u{0e7f}')) {
        "th-TH"
    } else {
        return None;
    };
    Locale::parse(tag)
}

/// Frequent Vietnamese words written with letters other languages share
/// (`giá` has none of Vietnamese's own).
const VIETNAMESE_WORDS: [&str; 24] = [
    "giá", "bán", "vé", "là", "có", "gì", "tìm", "nào", "mà", "và", "phí", "bánh", "xã", "hà", "gà", "cân", "công",
    "không", "bên", "trên", "dân", "hôm", "tháng", "tôi",
];

/// Letters only Vietnamese uses among Latin scripts: ă â đ ê ô ơ ư and the
/// precomposed vowels with tone marks (U+1EA0–U+1EF9).
fn is_vietnamese(c: char) -> bool {
    matches!(c, 'ă' | 'Ă' | 'đ' | 'Đ' | 'ơ' | 'Ơ' | 'ư' | 'Ư' | '\u{1ea0}'..='\u{1ef9}')
}

/// The search locale: `asked`, else the query's language, else the user's
/// language setting (`en`/`vi`), else the system's (`LANG`), else en-US.
pub fn choose(asked: Option<&str>, query: &str, language_setting: Option<&str>) -> Locale {
    asked
        .and_then(Locale::parse)
        .or_else(|| detect(query))
        .or_else(|| language_setting.and_then(Locale::parse))
        .or_else(|| std::env::var("LANG").ok().and_then(|l| Locale::parse(l.split('.').next().unwrap_or_default())))
        .filter(|l| l.lang != "c" && l.lang != "posix")
        .unwrap_or_else(|| Locale { lang: "en".into(), region: Some("US".into()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vietnamese_queries_are_searched_in_vietnam() {
        assert_eq!(detect("giá iPhone 16").map(|l| l.tag()), Some("vi-VN".into()));
        assert_eq!(detect("vé máy bay Hà Nội Tokyo").map(|l| l.tag()), Some("vi-VN".into()));
        assert_eq!(detect("đồng hồ").map(|l| l.tag()), Some("vi-VN".into()));
        // French accents are not Vietnamese.
        assert_eq!(detect("café crème à Paris"), None);
        assert_eq!(detect("carry-on size ANA 2025"), None);
        assert_eq!(detect("東京 ホテル").map(|l| l.tag()), Some("ja-JP".into()));
        assert_eq!(detect("서울 호텔").map(|l| l.tag()), Some("ko-KR".into()));
    }

    #[test]
    fn the_asked_locale_wins_then_the_query_then_the_setting() {
        assert_eq!(choose(Some("en-GB"), "giá iPhone 16", Some("vi")).tag(), "en-GB");
        assert_eq!(choose(None, "giá iPhone 16", Some("en")).tag(), "vi-VN");
        assert_eq!(choose(None, "iphone 16 price", Some("vi")).tag(), "vi-VN");
        assert_eq!(choose(Some("vi"), "x", None).tag(), "vi-VN");
    }

    #[test]
    fn locales_in_each_providers_terms() {
        let l = |t: &str| Locale::parse(t).unwrap();
        assert_eq!(l("vi-VN").ddg_region(), "vn-vi");
        assert_eq!(l("en-US").ddg_region(), "us-en");
        assert_eq!(l("en_gb").ddg_region(), "uk-en");
        assert_eq!(l("zh-Hant-TW").ddg_region(), "tw-tzh");
        assert_eq!(l("pt").ddg_region(), "wt-wt");
        assert_eq!(l("pt-BR").tag(), "pt-BR");
        assert_eq!(Locale::parse("not a tag"), None);
    }
}
