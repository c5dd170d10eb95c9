//! What the gate sees of a request a page really sends ([`WireRequest`]):
//! its method, its URL as sent (fragment included), its body's fields read
//! by content type (form, JSON, multipart; anything else one text field)
//! and the query's, its headers (the Referer among them), the amount it
//! sends (total and currency from its own fields, minor units turned to
//! major: [`WireRequest::amount`]), the form it stands for, and the binding
//! an approval holds it to ([`WireRequest::binding`]: what leaves must be
//! what the dialog showed). [`SentElsewhere`] joins what a watch sent to
//! one other site, so a value split over two requests is found whole.
//!
//! It sits beside [`Action`](super::action::Action) (which carries one
//! when a request is what is judged); how a request is graded is
//! `classify::wire`.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use super::action::{FieldFacts, FormFacts};
use super::classify::words::words;
use crate::vocab::origin::same_site;

/// How many characters of a field's value are kept (the dialog shows them;
/// the binding hashes the whole body).
const VALUE_SHOWN: usize = 200;

/// The last words of a field name that holds the amount of an order (a
/// unit price is not one: an add-to-cart sends that). `order_total`,
/// `grandTotal`, `vnp_Amount` end in one.
const AMOUNT_FIELDS: &[&str] =
    &["total", "amount", "grand total", "subtotal", "sum", "tong tien", "thanh tien", "so tien", "tong cong"];

/// What an amount in minor units is called after its base word
/// (`amount_cents`, `charge_minor`, `total_minor`, `price_minor`).
const MINOR_WORDS: &[&str] = &["minor", "cents", "cent", "subunits", "minor units"];

/// The base words of a field in minor units: a charge is an amount there.
const MINOR_BASES: &[&str] = &["total", "amount", "sum", "charge", "subtotal", "price", "value"];

/// Field names (their last words) that say which currency.
const CURRENCY_FIELDS: &[&str] =
    &["currency", "currency code", "curr code", "curr", "ccy", "currency id", "tien te", "loai tien"];

/// Field values that are a currency.
const CURRENCY_WORDS: &[&str] =
    &["vnd", "usd", "eur", "gbp", "jpy", "krw", "cny", "thb", "sgd", "myr", "idr", "php", "aud", "₫", "đ", "$", "€"];

/// ISO 4217 currencies with no minor unit (an amount in "minor units" of
/// one of them is the amount itself: VND has no hào in use).
const NO_MINOR_UNIT: &[&str] = &[
    "bif", "clp", "djf", "gnf", "isk", "jpy", "kmf", "krw", "pyg", "rwf", "ugx", "uyi", "vnd", "vuv", "xaf", "xof",
    "xpf",
];

/// ISO 4217 currencies with three decimals.
const THREE_DECIMALS: &[&str] = &["bhd", "iqd", "jod", "kwd", "lyd", "omr", "tnd"];

/// Field names that hold the items of an order.
const ITEM_FIELDS: &[&str] = &[
    "items",
    "item",
    "cart",
    "line items",
    "products",
    "product",
    "sku",
    "qty",
    "quantity",
    "so luong",
    "soluong",
    "sl",
];

/// One field a request sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireField {
    /// `qty`, `items.0.sku` (JSON paths dotted), `?q` for the query's.
    pub name: String,
    pub value: String,
    /// A file part of a multipart body (its value is the file name).
    #[serde(default)]
    pub file: bool,
}

/// A request a page sends, as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRequest {
    /// `POST`.
    pub method: String,
    /// The URL, as sent (with the fragment the page gave it, which the
    /// next page can read).
    pub url: String,
    /// The body's fields, then the query's.
    pub fields: Vec<WireField>,
    /// The headers as sent (the Referer among them): searched for the
    /// user's values, not part of the binding (a cookie changes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The body as sent (bounded), for the exfiltration checks.
    #[serde(skip)]
    pub body: String,
    /// What this request's parts make joined with what was sent to the
    /// same other site before ([`SentElsewhere::join`]): searched for the
    /// user's values too (one value split over two requests).
    #[serde(skip)]
    pub joined: String,
}

impl WireRequest {
    /// Read a request: its body parsed by its content type (form, JSON,
    /// multipart; anything else is one unnamed text field).
    pub fn parse(method: &str, url: &str, content_type: Option<&str>, body: Option<&str>) -> WireRequest {
        let body = body.unwrap_or_default();
        let mut fields = body_fields(content_type.unwrap_or_default(), body);
        if let Ok(u) = Url::parse(url) {
            for (k, v) in u.query_pairs() {
                fields.push(WireField { name: format!("?{k}"), value: v.into_owned(), file: false });
            }
        }
        WireRequest {
            method: method.to_ascii_uppercase(),
            url: url.to_owned(),
            fields,
            headers: Vec::new(),
            body: body.to_owned(),
            joined: String::new(),
        }
    }

    /// The same request with the headers it is sent with.
    #[must_use]
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> WireRequest {
        self.headers = headers;
        self
    }

    /// Where the user's values could hide in it, one part a line: the
    /// URL (its host name, path, query and fragment), each header's value,
    /// the body.
    pub fn text(&self) -> String {
        let mut out = self.url.clone();
        if let Some(host) = Url::parse(&self.url).ok().and_then(|u| u.host_str().map(str::to_owned)) {
            // A host name's labels (`b7654321.localhost`) as words of their own.
            out.push('\n');
            out.push_str(&host.replace('.', " "));
        }
        for (name, value) in &self.headers {
            out.push('\n');
            out.push_str(name);
            out.push_str(": ");
            out.push_str(value);
        }
        out.push('\n');
        out.push_str(&self.body);
        out
    }

    /// The pieces of data it carries, each short: its host's labels, its
    /// path's segments, its fragment, its fields' values (what a page would
    /// split a value into).
    fn pieces(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Ok(u) = Url::parse(&self.url) {
            out.extend(u.host_str().unwrap_or_default().split('.').map(str::to_owned));
            out.extend(u.path_segments().into_iter().flatten().map(str::to_owned));
            out.extend(u.fragment().map(str::to_owned));
        }
        out.extend(self.fields.iter().filter(|f| !f.file).map(|f| f.value.clone()));
        out.retain(|p| (2..=PIECE_CHARS).contains(&p.chars().count()));
        out.truncate(PIECES_PER_REQUEST);
        out
    }

    /// The request a form sends when submitted as the page shows it: what
    /// the user approves when a click submits a form. `submitter`: the
    /// clicked button's name and value, which the browser sends too.
    pub fn of_form(form: &FormFacts, base: Option<&str>, submitter: Option<(&str, &str)>) -> Option<WireRequest> {
        let action = if form.action.is_empty() { base? } else { form.action.as_str() };
        let url = crate::vocab::origin::resolve(action, base)?;
        let method = if form.method.eq_ignore_ascii_case("post") { "POST" } else { "GET" };
        let mut sent: Vec<(String, String)> = form
            .fields
            .iter()
            .filter(|f| !f.name.is_empty() && f.kind != "file")
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect();
        if let Some((name, value)) = submitter.filter(|(n, _)| !n.is_empty()) {
            sent.push((name.to_owned(), value.to_owned()));
        }
        if method == "GET" {
            let mut u = url;
            u.set_query(None);
            u.query_pairs_mut().extend_pairs(sent.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            return Some(WireRequest::parse("GET", u.as_str(), None, None));
        }
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(sent).finish();
        Some(WireRequest::parse("POST", url.as_str(), Some("application/x-www-form-urlencoded"), Some(&body)))
    }

    /// A request that only reads: GET, HEAD or OPTIONS with no body.
    pub fn reads_only(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS") && self.body.is_empty()
    }

    /// What makes this request this request: method, destination (without
    /// its fragment) and every field with its value, in any order. An
    /// approval is bound to it.
    pub fn binding(&self) -> String {
        let mut url = Url::parse(&self.url).map_or_else(
            |_| self.url.clone(),
            |mut u| {
                u.set_fragment(None);
                u.set_query(None);
                u.to_string()
            },
        );
        url.make_ascii_lowercase();
        let mut fields: Vec<(&str, &str, bool)> =
            self.fields.iter().map(|f| (f.name.as_str(), f.value.as_str(), f.file)).collect();
        fields.sort_unstable();
        let key = serde_json::json!([self.method, url, fields]);
        hex::encode(Sha256::digest(key.to_string().as_bytes()))
    }

    /// The fields as a form's, for the dialog (values shortened).
    pub fn form(&self) -> FormFacts {
        FormFacts {
            action: self.url.clone(),
            method: self.method.to_ascii_lowercase(),
            id: String::new(),
            name: String::new(),
            fields: self
                .fields
                .iter()
                .map(|f| FieldFacts {
                    name: f.name.clone(),
                    kind: if f.file { "file".into() } else { "text".into() },
                    value: f.value.chars().take(VALUE_SHOWN).collect(),
                    label: String::new(),
                })
                .collect(),
        }
    }

    /// The amount the request sends, as `99900000 VND` or `19.99 USD`, for
    /// the dialog: its total (or amount, or charge), else its price, read
    /// in major units (a field in minor units, `amount_cents`,
    /// `charge_minor`, divided by the currency's minor unit as ISO 4217
    /// gives it: none for VND or JPY, three decimals for KWD; a `minor`
    /// field of no named currency is shown as it is, never less), with
    /// the currency the request names.
    pub fn amount(&self) -> Option<String> {
        let numeric = |kind: AmountKind| {
            self.fields.iter().find_map(|f| {
                let (k, minor) = amount_field(&f.name)?;
                (k == kind && looks_numeric(&f.value)).then_some((f, minor))
            })
        };
        let (field, minor) = numeric(AmountKind::Total).or_else(|| numeric(AmountKind::Price))?;
        let currency = self.currency();
        let digits = match (&currency, minor) {
            (_, None) => 0,
            (Some(code), Some(_)) => minor_digits(code),
            (None, Some(word)) => usize::from(word.starts_with("cent")) * 2,
        };
        let value = to_major(&field.value, digits);
        Some(match currency {
            Some(code) => format!("{value} {code}"),
            None => value,
        })
    }

    /// The currency the request names (`VND`): a currency field's value,
    /// else a value that is a currency.
    fn currency(&self) -> Option<String> {
        let named = self.fields.iter().find(|f| {
            let last = last_name(&f.name);
            ends_with_any(&last, CURRENCY_FIELDS) && (1..=8).contains(&f.value.trim().chars().count())
        });
        let value = named.map(|f| f.value.trim().to_owned()).or_else(|| {
            self.fields
                .iter()
                .map(|f| crate::vocab::text::fold(f.value.trim()))
                .find(|v| CURRENCY_WORDS.contains(&v.as_str()))
        })?;
        Some(match value.as_str() {
            "₫" | "đ" | "d" => "VND".to_owned(),
            "$" => "USD".to_owned(),
            "€" => "EUR".to_owned(),
            other => other.to_ascii_uppercase(),
        })
    }

    /// Whether it names a currency (a field, or a value).
    pub(in crate::gate) fn names_currency(&self) -> bool {
        self.currency().is_some()
    }

    /// Whether it sends items (a cart, products, SKUs, quantities).
    pub(in crate::gate) fn sends_items(&self) -> bool {
        self.fields.iter().any(|f| {
            let name = f.name.trim_start_matches('?').to_lowercase();
            name.split(['.', '[', ']']).any(|part| ITEM_FIELDS.contains(&normalise(part).as_str()))
        })
    }
}

/// How a field holds an amount: an order's total (an amount, a charge),
/// or a unit price (an add-to-cart sends one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::gate) enum AmountKind {
    Total,
    Price,
}

/// Whether a field's name says it holds an amount, and which, with the
/// minor-unit word when it is in minor units (`amount_cents` → `cents`).
pub(in crate::gate) fn amount_field(name: &str) -> Option<(AmountKind, Option<&'static str>)> {
    let name = name.trim_start_matches('?');
    let parts: Vec<String> =
        name.split(['.', '[', ']']).filter(|p| !p.is_empty() && p.parse::<usize>().is_err()).map(normalise).collect();
    let last = parts.last()?;
    // `amount.value` (with `amount.currency_code` beside it).
    if last == "value" && parts.len() >= 2 && ends_with_any(&parts[parts.len() - 2], AMOUNT_FIELDS) {
        return Some((AmountKind::Total, None));
    }
    for word in MINOR_WORDS {
        if let Some(base) = last.strip_suffix(word).and_then(|b| b.strip_suffix(' '))
            && let Some(base_word) = base.rsplit(' ').next()
            && MINOR_BASES.contains(&base_word)
        {
            let kind = if base_word == "price" { AmountKind::Price } else { AmountKind::Total };
            return Some((kind, Some(word)));
        }
    }
    if ends_with_any(last, AMOUNT_FIELDS) {
        return Some((AmountKind::Total, None));
    }
    ends_with_any(last, &["price", "gia", "don gia"]).then_some((AmountKind::Price, None))
}

/// Whether `words` (space-separated) is one of `list` or ends in one.
fn ends_with_any(words: &str, list: &[&str]) -> bool {
    list.iter().any(|w| words == *w || words.ends_with(&format!(" {w}")))
}

/// Whether `words` (space-separated) holds one of `list` as whole words.
pub(in crate::gate) fn has_any<'a>(words: &str, list: &[&'a str]) -> Option<&'a str> {
    let padded = format!(" {words} ");
    list.iter().find(|w| padded.contains(&format!(" {w} "))).copied()
}

/// The digits of a currency's minor unit, by ISO 4217 (2 unless listed).
fn minor_digits(code: &str) -> usize {
    let code = code.to_ascii_lowercase();
    if NO_MINOR_UNIT.contains(&code.as_str()) {
        0
    } else if THREE_DECIMALS.contains(&code.as_str()) {
        3
    } else {
        2
    }
}

/// `1999` in cents (2 digits) → `19.99`; `99900000` with none → itself. A
/// value already written with a decimal point is kept.
fn to_major(value: &str, digits: usize) -> String {
    let plain: String = value.chars().filter(|c| c.is_ascii_digit() || *c == '.' || *c == '-').collect();
    if digits == 0 || plain.contains('.') {
        return plain;
    }
    let (sign, number) = plain.strip_prefix('-').map_or(("", plain.as_str()), |n| ("-", n));
    let number = format!("{number:0>width$}", width = digits + 1);
    let (major, minor) = number.split_at(number.len() - digits);
    let minor = minor.trim_end_matches('0');
    if minor.is_empty() { format!("{sign}{major}") } else { format!("{sign}{major}.{minor}") }
}

/// How many characters a piece of a request may have to be joined with
/// another ([`WireRequest::pieces`]); longer ones are searched alone.
const PIECE_CHARS: usize = 80;
/// How many pieces of one request are joined.
const PIECES_PER_REQUEST: usize = 16;
/// How many pieces a watch keeps of what went to one other site.
const PIECES_KEPT: usize = 32;

/// What one watch let go to each other site than its page's, as pieces
/// (host labels, path segments, fragments, field values): a value split
/// over two requests (half in an EventSource's address, half in an
/// image's) is found in the pieces joined.
#[derive(Debug, Default)]
pub struct SentElsewhere {
    sites: std::collections::HashMap<String, std::collections::VecDeque<String>>,
}

impl SentElsewhere {
    /// Set `request.joined` (each piece sent to its site before followed by
    /// each of its own, and its own pieces two by two, one a line) when it
    /// goes to another site than `page_url`'s, and keep its pieces.
    pub fn join(&mut self, request: &mut WireRequest, page_url: Option<&str>) {
        if page_url.is_some_and(|p| same_site(p, &request.url)) {
            return;
        }
        self.join_any(request);
    }

    /// The same for a socket's message, to whatever site (a value split
    /// over two messages on the page's own socket is found joined too).
    pub fn join_message(&mut self, request: &mut WireRequest) {
        self.join_any(request);
    }

    fn join_any(&mut self, request: &mut WireRequest) {
        let Some(site) = site_key(&request.url) else { return };
        let now = request.pieces();
        let before = self.sites.entry(site).or_default();
        let mut joined = String::new();
        for a in before.iter().chain(now.iter()) {
            for b in &now {
                if !std::ptr::eq(a, b) {
                    joined.push_str(a);
                    joined.push_str(b);
                    joined.push('\n');
                }
            }
        }
        request.joined = joined;
        before.extend(now);
        while before.len() > PIECES_KEPT {
            before.pop_front();
        }
    }
}

/// The site of a URL: its registrable domain, or its host when the public
/// suffix list has none (an IP address, `localhost`).
fn site_key(url: &str) -> Option<String> {
    let host = Url::parse(url).ok()?.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let is_ip = host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[');
    let domain = (!is_ip).then(|| psl::domain_str(&host)).flatten().map(str::to_owned);
    Some(domain.unwrap_or(host))
}

fn body_fields(content_type: &str, body: &str) -> Vec<WireField> {
    if body.is_empty() {
        return Vec::new();
    }
    let kind = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if kind == "application/x-www-form-urlencoded" {
        return url::form_urlencoded::parse(body.as_bytes())
            .map(|(k, v)| WireField { name: k.into_owned(), value: v.into_owned(), file: false })
            .collect();
    }
    if kind == "multipart/form-data"
        && let Some(boundary) = multer::parse_boundary(content_type).ok()
    {
        return multipart_fields(body, &boundary);
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(body) {
        let mut out = Vec::new();
        flatten("", &json, &mut out);
        return out;
    }
    if kind.is_empty() || kind == "text/plain" {
        // A beacon's text may still be a form.
        let pairs: Vec<WireField> = url::form_urlencoded::parse(body.as_bytes())
            .map(|(k, v)| WireField { name: k.into_owned(), value: v.into_owned(), file: false })
            .collect();
        if !pairs.is_empty() && pairs.iter().all(|f| !f.value.is_empty() && !f.name.contains(' ')) {
            return pairs;
        }
    }
    vec![WireField { name: String::new(), value: body.chars().take(4 * VALUE_SHOWN).collect(), file: false }]
}

/// A multipart body's parts: names and text values, file parts by file
/// name. (The body is complete here: Chromium hands it whole.)
fn multipart_fields(body: &str, boundary: &str) -> Vec<WireField> {
    let delimiter = format!("--{boundary}");
    let mut out = Vec::new();
    for part in body.split(&delimiter).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let Some((head, value)) = part.split_once("\r\n\r\n") else { continue };
        let disposition = head.lines().find(|l| l.to_ascii_lowercase().starts_with("content-disposition"));
        let Some(disposition) = disposition else { continue };
        let param = |key: &str| {
            disposition.split(';').map(str::trim).find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim().eq_ignore_ascii_case(key)).then(|| v.trim().trim_matches('"').to_owned())
            })
        };
        let Some(name) = param("name") else { continue };
        let value = value.strip_suffix("\r\n").unwrap_or(value);
        match param("filename") {
            Some(file) => out.push(WireField { name, value: file, file: true }),
            None => out.push(WireField { name, value: value.to_owned(), file: false }),
        }
    }
    out
}

fn flatten(path: &str, value: &serde_json::Value, out: &mut Vec<WireField>) {
    use serde_json::Value as V;
    let join = |k: &str| if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") };
    match value {
        V::Object(map) => map.iter().for_each(|(k, v)| flatten(&join(k), v, out)),
        V::Array(items) => items.iter().enumerate().for_each(|(i, v)| flatten(&join(&i.to_string()), v, out)),
        V::String(s) => out.push(WireField { name: path.to_owned(), value: s.clone(), file: false }),
        V::Null => out.push(WireField { name: path.to_owned(), value: String::new(), file: false }),
        other => out.push(WireField { name: path.to_owned(), value: other.to_string(), file: false }),
    }
}

/// `items.0.price` → `price`, folded.
pub(in crate::gate) fn last_name(name: &str) -> String {
    let name = name.trim_start_matches('?');
    let last = name.rsplit(['.', '[', ']']).find(|p| !p.is_empty() && p.parse::<usize>().is_err()).unwrap_or(name);
    normalise(last)
}

/// Folded, `_`/`-`/camelCase as spaces: `grandTotal` → `grand total`.
pub(in crate::gate) fn normalise(name: &str) -> String {
    words(name, true).iter().map(|w| w.folded.clone()).collect::<Vec<_>>().join(" ")
}

pub(in crate::gate) fn looks_numeric(value: &str) -> bool {
    let digits = value.chars().filter(char::is_ascii_digit).count();
    digits > 0 && value.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | ' ' | '₫' | '$' | '-'))
}
