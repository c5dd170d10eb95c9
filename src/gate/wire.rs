//! The gate at the wire: a request a page really sends while an agent
//! action runs, graded from what it is — method, destination, the words of
//! its path, the fields of its body (form, JSON, multipart, text), amounts
//! in it and the user's values in it — not from what the button that
//! caused it said. An approval binds to one request ([`WireRequest::binding`]):
//! what leaves must be what the dialog showed.
//!
//! The floor is WRITE_NON_DESTRUCTIVE (a site's own telemetry, an
//! add-to-cart: nothing to ask). Raised by:
//! - DELETE, or `_method=delete`: DESTRUCTIVE;
//! - the words of the path, the query's and the body's field names, and
//!   short field values, against the control phrases (`classify/phrases.rs`)
//!   and [`ENDPOINT_WORDS`] (`/order`, `/checkout`, `/api/posts`...);
//! - a card number field: PAYMENT;
//! - to the page's own site, a total or amount with a currency or with
//!   items (an order in all but name): PAYMENT;
//! - the user's sensitive values anywhere in it: at least SUBMIT, naming
//!   the key and the destination.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use super::action::{FieldFacts, FormFacts, SecretValue};
use super::classify::Classification;
use super::classify::phrases::{ACTIONS, CARD_FIELDS, Effect, Phrase};
use super::classify::words::{find, words};
use super::exfil::find_secrets;
use crate::tools::PermissionScope::{self, Destructive, Payment, Publish, Submit, WriteNonDestructive};
use crate::vocab::origin::{origin_in, same_site};

/// How many characters of a field's value are kept (the dialog shows them;
/// the binding hashes the whole body).
const VALUE_SHOWN: usize = 200;

/// A field value of at most this many words is read for phrases ("buy",
/// "place_order"); longer ones are content (a comment, a product name).
const VALUE_WORDS: usize = 3;

/// Single words that name what an endpoint does, as APIs write them. The
/// control phrases cover labels; these cover paths and field names.
pub(in crate::gate) static ENDPOINT_WORDS: &[Phrase] = &[
    Phrase::new("order", Effect::Raise(Payment), "an order"),
    Phrase::new("orders", Effect::Raise(Payment), "an order"),
    Phrase::new("payment", Effect::Raise(Payment), "a payment"),
    Phrase::new("payments", Effect::Raise(Payment), "a payment"),
    Phrase::new("charge", Effect::Raise(Payment), "a charge"),
    Phrase::new("transaction", Effect::Raise(Payment), "a transaction"),
    Phrase::new("booking", Effect::Raise(Payment), "a booking"),
    Phrase::new("bookings", Effect::Raise(Payment), "a booking"),
    Phrase::new("reservation", Effect::Raise(Payment), "a reservation"),
    Phrase::new("don hang", Effect::Raise(Payment), "an order"),
    Phrase::new("dat hang", Effect::Raise(Payment), "an order"),
    Phrase::new("thanh toan", Effect::Raise(Payment), "a payment"),
    Phrase::new("posts", Effect::Raise(Publish), "a post"),
    Phrase::new("comment", Effect::Raise(Publish), "a comment"),
    Phrase::new("comments", Effect::Raise(Publish), "a comment"),
    Phrase::new("review", Effect::Raise(Publish), "a review"),
    Phrase::new("reviews", Effect::Raise(Publish), "a review"),
    Phrase::new("message", Effect::Raise(Publish), "a message"),
    Phrase::new("messages", Effect::Raise(Publish), "a message"),
    Phrase::new("application", Effect::Raise(Submit), "an application"),
    Phrase::new("apply", Effect::Raise(Submit), "an application"),
    Phrase::new("register", Effect::Raise(Submit), "a registration"),
    Phrase::new("signup", Effect::Raise(Submit), "a sign-up"),
    Phrase::new("remove", Effect::Raise(Destructive), "a removal"),
    Phrase::new("destroy", Effect::Raise(Destructive), "a deletion"),
];

/// Field names that hold the amount of an order (a unit price is not one:
/// an add-to-cart sends that).
const AMOUNT_FIELDS: &[&str] = &["total", "amount", "grand total", "sum", "tong tien", "thanh tien", "so tien"];

/// Path words of a cart: what is sent there is kept, not ordered.
const CART_WORDS: &[&str] = &["cart", "basket", "bag", "wishlist", "gio hang"];

/// Field names and values that say which currency.
const CURRENCY_WORDS: &[&str] = &["currency", "vnd", "usd", "eur", "₫", "tien te"];

/// Field names that hold the items of an order.
const ITEM_FIELDS: &[&str] =
    &["items", "item", "cart", "line items", "products", "product", "sku", "qty", "quantity", "so luong"];

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
    /// The URL, as sent.
    pub url: String,
    /// The body's fields, then the query's.
    pub fields: Vec<WireField>,
    /// The body as sent (bounded), for the exfiltration checks.
    #[serde(skip)]
    pub body: String,
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
        WireRequest { method: method.to_ascii_uppercase(), url: url.to_owned(), fields, body: body.to_owned() }
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

    /// A total found in the fields (`21490000 VND`), for the dialog.
    pub fn amount(&self) -> Option<String> {
        let total = self.fields.iter().find(|f| is_amount_field(&f.name) && looks_numeric(&f.value))?;
        let currency = self
            .fields
            .iter()
            .find(|f| last_name(&f.name) == "currency")
            .map(|f| format!(" {}", f.value))
            .unwrap_or_default();
        Some(format!("{}{currency}", total.value))
    }
}

/// Grade `request`, sent from a page at `page_url`.
pub fn classify_request(request: &WireRequest, page_url: Option<&str>, secrets: &[SecretValue]) -> Classification {
    let mut out = Classification { scope: WriteNonDestructive, reasons: Vec::new(), deny: None };
    let to = origin_in(&request.url, page_url).unwrap_or_else(|| request.url.clone());
    let sends = format!("the page sends {} {}", request.method, short_url(&request.url));
    let raise = |out: &mut Classification, scope: PermissionScope, reason: String| {
        out.scope = out.scope.max(scope);
        if !out.reasons.contains(&reason) {
            out.reasons.push(reason);
        }
    };
    raise(&mut out, WriteNonDestructive, format!("{sends}: WRITE_NON_DESTRUCTIVE at least"));
    if request.method == "CONNECT" {
        // Seen by the browser's relay: a connection to a new site that no
        // request of the page explains.
        let what = match Url::parse(&request.url).map(|u| u.scheme().to_owned()).unwrap_or_default().as_str() {
            "ws" | "wss" => "a WebSocket",
            "turn" | "turns" => "a call (WebRTC) through a relay",
            _ => "a connection that is not a web request",
        };
        raise(&mut out, Submit, format!("the page opens {what} to {to}: what it sends there cannot be seen: SUBMIT"));
        carried(&mut out, request, &to, secrets, &sends);
        return out;
    }
    if request.reads_only() {
        // A GET changes nothing by itself (a pixel's path may well say
        // "order"); what it can do is carry the user's data away.
        carried(&mut out, request, &to, secrets, &sends);
        return out;
    }
    if request.method == "DELETE" {
        raise(&mut out, Destructive, format!("{sends}: a DELETE request is DESTRUCTIVE"));
    }
    // The path's words.
    let path = Url::parse(&request.url).map(|u| u.path().to_owned()).unwrap_or_default();
    for p in phrases_in(&path) {
        if let Effect::Raise(scope) = p.effect {
            raise(&mut out, scope, format!("{sends}: its address says \"{}\" ({}): {scope}", p.text, p.meaning));
        }
    }
    for field in &request.fields {
        let name = field.name.trim_start_matches('?');
        for p in phrases_in(name) {
            if let Effect::Raise(scope) = p.effect {
                raise(&mut out, scope, format!("{sends}: its field \"{name}\" says {}: {scope}", p.meaning));
            }
        }
        if words(&field.value, true).len() <= VALUE_WORDS {
            for p in phrases_in(&field.value) {
                if let Effect::Raise(scope) = p.effect {
                    let value: String = field.value.chars().take(40).collect();
                    raise(&mut out, scope, format!("{sends}: it sends {name}=\"{value}\" ({}): {scope}", p.meaning));
                }
            }
        }
        if let Some(p) = find(&words(name, true), CARD_FIELDS).first() {
            raise(&mut out, Payment, format!("{sends}: it sends {} (\"{name}\"): PAYMENT", p.meaning));
        }
        if name.eq_ignore_ascii_case("_method") && field.value.eq_ignore_ascii_case("delete") {
            raise(&mut out, Destructive, format!("{sends}: a DELETE request (_method=delete): DESTRUCTIVE"));
        }
    }
    let own_site = page_url.is_some_and(|p| same_site(p, &request.url));
    let path_words = normalise(&path);
    let to_cart = CART_WORDS.iter().any(|w| format!(" {path_words} ").contains(&format!(" {w} ")));
    if own_site
        && !to_cart
        && let Some(total) = request.fields.iter().find(|f| is_amount_field(&f.name) && looks_numeric(&f.value))
    {
        let currency = request.fields.iter().any(|f| {
            CURRENCY_WORDS.contains(&last_name(&f.name).as_str())
                || CURRENCY_WORDS.contains(&crate::vocab::text::fold(f.value.trim()).as_str())
        });
        let items = request.fields.iter().any(|f| {
            let name = f.name.trim_start_matches('?').to_lowercase();
            name.split(['.', '[', ']']).any(|part| ITEM_FIELDS.contains(&normalise(part).as_str()))
        });
        if currency || items {
            let name = total.name.trim_start_matches('?');
            raise(
                &mut out,
                Payment,
                format!(
                    "{sends}: it sends an amount ({name}={}) with {}: an order, PAYMENT",
                    total.value,
                    if items { "items" } else { "a currency" }
                ),
            );
        }
    }
    carried(&mut out, request, &to, secrets, &sends);
    out
}

/// The user's values in the request's URL or body: at least SUBMIT.
fn carried(out: &mut Classification, request: &WireRequest, to: &str, secrets: &[SecretValue], sends: &str) {
    let haystack = format!("{}\n{}", request.url, request.body);
    for s in find_secrets(&haystack, secrets) {
        let reason = format!("{sends}: it carries your {} to {to}: SUBMIT", s.key);
        out.scope = out.scope.max(Submit);
        if !out.reasons.contains(&reason) {
            out.reasons.push(reason);
        }
    }
}

/// The user's values less those the user gave the page's own site in
/// this action (typed into its field, approved): the page sending them
/// home is what was approved; sending them anywhere else is not.
pub fn not_given(
    secrets: &[SecretValue],
    given: &[String],
    destination: &str,
    page_url: Option<&str>,
) -> Vec<SecretValue> {
    let home = page_url.is_some_and(|p| same_site(p, destination));
    secrets.iter().filter(|s| !(home && given.contains(&s.key))).cloned().collect()
}

/// The control phrases and endpoint words in `text` (camelCase, `_`, `-`
/// and `/` separate words).
fn phrases_in(text: &str) -> Vec<&'static Phrase> {
    let w = words(text, true);
    let mut found = find(&w, ACTIONS);
    found.extend(find(&w, ENDPOINT_WORDS));
    found
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
fn last_name(name: &str) -> String {
    let name = name.trim_start_matches('?');
    let last = name.rsplit(['.', '[', ']']).find(|p| !p.is_empty() && p.parse::<usize>().is_err()).unwrap_or(name);
    normalise(last)
}

/// Folded, `_`/`-`/camelCase as spaces: `grandTotal` → `grand total`.
fn normalise(name: &str) -> String {
    words(name, true).iter().map(|w| w.folded.clone()).collect::<Vec<_>>().join(" ")
}

fn is_amount_field(name: &str) -> bool {
    AMOUNT_FIELDS.contains(&last_name(name).as_str())
}

fn looks_numeric(value: &str) -> bool {
    let digits = value.chars().filter(char::is_ascii_digit).count();
    digits > 0 && value.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | ' ' | '₫' | '$' | '-'))
}

fn short_url(url: &str) -> String {
    let shown: String = url.chars().take(100).collect();
    if url.chars().count() > 100 { format!("{shown}…") } else { shown }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: Option<&str> = Some("https://shop.vn/p/42");

    fn graded(method: &str, url: &str, ct: &str, body: &str) -> Classification {
        classify_request(&WireRequest::parse(method, url, Some(ct), Some(body)), PAGE, &[])
    }

    #[test]
    fn an_order_posted_by_a_script_is_payment_whatever_the_button_said() {
        let json = r#"{"cart":[{"sku":"A1","qty":1}],"total":21490000}"#;
        assert_eq!(graded("POST", "https://shop.vn/order", "application/json", json).scope, Payment);
        // No word in the address: the amount with items says it.
        assert_eq!(graded("POST", "https://shop.vn/api/v2/x", "application/json", json).scope, Payment);
        let form = "item=A1&qty=50";
        assert_eq!(
            graded("POST", "https://shop.vn/placeOrder", "application/x-www-form-urlencoded", form).scope,
            Payment
        );
        assert_eq!(
            graded("POST", "https://shop.vn/dat-hang", "application/x-www-form-urlencoded", form).scope,
            Payment
        );
    }

    #[test]
    fn telemetry_and_a_cart_are_not_asked_about() {
        let beacon = r#"{"event":"scroll","depth":50,"page":"/p/42"}"#;
        assert_eq!(graded("POST", "https://shop.vn/collect", "text/plain", beacon).scope, WriteNonDestructive);
        let ga = "v=2&en=view_item&ep.currency=VND&epn.value=21490000&pr1=idA1~nmLaptop";
        assert_eq!(graded("POST", "https://analytics.example/g/collect", "text/plain", ga).scope, WriteNonDestructive);
        assert_eq!(
            graded("POST", "https://shop.vn/cart/add", "application/json", r#"{"sku":"A1"}"#).scope,
            WriteNonDestructive
        );
        // An add-to-cart carries a price and a quantity: kept, not ordered.
        let line = r#"{"sku":"A1","name":"Laptop","price":21490000,"qty":1}"#;
        assert_eq!(graded("POST", "https://shop.vn/shop/vn/cart", "application/json", line).scope, WriteNonDestructive);
        let total = r#"{"items":[{"sku":"A1"}],"total":21490000}"#;
        assert_eq!(
            graded("POST", "https://shop.vn/gio-hang/them", "application/json", total).scope,
            WriteNonDestructive
        );
    }

    #[test]
    fn deletes_posts_and_cards() {
        assert_eq!(graded("DELETE", "https://shop.vn/api/address/3", "", "").scope, Destructive);
        assert_eq!(graded("POST", "https://forum.vn/api/posts", "application/json", r#"{"body":"hi"}"#).scope, Publish);
        let card = "cardNumber=4111111111111111&exp=12/29";
        assert_eq!(graded("POST", "https://pay.example/x", "application/x-www-form-urlencoded", card).scope, Payment);
    }

    #[test]
    fn one_site_is_its_host_and_what_lies_inside_it_never_a_shared_suffix() {
        assert!(same_site("https://www.shop.com.vn", "https://api.shop.com.vn"));
        assert!(same_site("https://shop.vn", "https://shop.vn"));
        assert!(!same_site("https://shop.com.vn", "https://evil.com.vn"));
        // So an amount sent to another shop under com.vn is not graded as this shop's order.
        let json = r#"{"items":[{"sku":"A1"}],"total":1}"#;
        let r = WireRequest::parse("POST", "https://evil.com.vn/x", Some("application/json"), Some(json));
        assert_eq!(classify_request(&r, Some("https://shop.com.vn/p"), &[]).scope, WriteNonDestructive);
    }

    #[test]
    fn multipart_fields_and_files_are_read() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"qty\"\r\n\r\n50\r\n--XyZ\r\nContent-Disposition: \
                    form-data; name=\"cv\"; filename=\"cv.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--XyZ--\r\n";
        let r =
            WireRequest::parse("POST", "https://jobs.vn/apply", Some("multipart/form-data; boundary=XyZ"), Some(body));
        assert_eq!(
            r.fields,
            vec![
                WireField { name: "qty".into(), value: "50".into(), file: false },
                WireField { name: "cv".into(), value: "cv.pdf".into(), file: true }
            ]
        );
        assert_eq!(classify_request(&r, PAGE, &[]).scope, Submit);
    }

    #[test]
    fn the_binding_is_the_request_with_its_values() {
        let a = WireRequest::parse(
            "POST",
            "https://shop.vn/order",
            Some("application/x-www-form-urlencoded"),
            Some("qty=1&sku=A"),
        );
        let same = WireRequest::parse(
            "post",
            "https://shop.vn/order#x",
            Some("application/x-www-form-urlencoded"),
            Some("sku=A&qty=1"),
        );
        let more = WireRequest::parse(
            "POST",
            "https://shop.vn/order",
            Some("application/x-www-form-urlencoded"),
            Some("qty=50&sku=A"),
        );
        assert_eq!(a.binding(), same.binding());
        assert_ne!(a.binding(), more.binding());
        let form = FormFacts {
            action: "/order".into(),
            method: "post".into(),
            fields: vec![
                FieldFacts { name: "qty".into(), value: "1".into(), ..FieldFacts::default() },
                FieldFacts { name: "sku".into(), value: "A".into(), ..FieldFacts::default() },
            ],
            ..FormFacts::default()
        };
        assert_eq!(WireRequest::of_form(&form, PAGE, None).map(|r| r.binding()), Some(a.binding()));
        let with_button = WireRequest::parse(
            "POST",
            "https://shop.vn/order",
            Some("application/x-www-form-urlencoded"),
            Some("qty=1&sku=A&action=buy_now"),
        );
        assert_eq!(
            WireRequest::of_form(&form, PAGE, Some(("action", "buy_now"))).map(|r| r.binding()),
            Some(with_button.binding())
        );
    }

    #[test]
    fn the_users_values_in_a_request_are_named() {
        let secrets = vec![SecretValue::profile("contact.phone", "0901234567")];
        let r = WireRequest::parse("POST", "https://evil.example/c", Some("text/plain"), Some("p=0901234567"));
        let c = classify_request(&r, PAGE, &secrets);
        assert_eq!(c.scope, Submit);
        assert!(c.reasons.iter().any(|r| r.contains("contact.phone") && !r.contains("0901234567")), "{:?}", c.reasons);
    }
}
