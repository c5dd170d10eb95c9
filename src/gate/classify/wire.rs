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
//! - to any site, a total or amount (`amount_cents`, `charge_minor`,
//!   PayPal's `amount.value` too) with a currency or with items: an order
//!   in all but name, PAYMENT (a cart's own update is not: its path says
//!   cart and nothing confirms it);
//! - a cart confirmed (`/api/cart/confirm`, `/gio-hang/xac-nhan`): PAYMENT;
//! - a read (GET) whose address names an order or a payment and carries
//!   what makes one (a quantity, an amount, a confirmation:
//!   `/order?qty=50&confirm=1`): graded like a POST ([`read_acts`]);
//! - the user's sensitive values anywhere in it (its address and host
//!   name, its fragment, its headers with the Referer, its body, or split
//!   over several requests to one other site: [`SentElsewhere`]): at least
//!   SUBMIT, naming the key and the destination.
//!
//! Between actions, what a page sends to another site is graded by what it
//! does only ([`classify_third_party`]): its field names are a third
//! party's business (an analytics batch names "message" and "order").

use super::super::action::SecretValue;
use super::super::exfil::find_secrets;
use super::super::request::{AmountKind, WireRequest, amount_field, has_any, last_name, looks_numeric, normalise};
use super::Classification;
use super::phrases::{ACTIONS, CARD_FIELDS, Effect, Phrase};
use super::words::{find, words};
use crate::tools::PermissionScope::{self, Destructive, Payment, Publish, Submit, WriteNonDestructive};
use crate::vocab::origin::{origin_in, same_site};
use url::Url;

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

/// Path words of a cart: what is sent there is kept, not ordered.
const CART_WORDS: &[&str] = &["cart", "basket", "bag", "wishlist", "gio hang"];

/// Words that commit what was gathered: a cart confirmed is an order.
const COMMIT_WORDS: &[&str] = &[
    "confirm",
    "confirmation",
    "checkout",
    "submit",
    "place",
    "complete",
    "finalize",
    "finalise",
    "commit",
    "purchase",
    "buy",
    "pay",
    "order",
    "xac nhan",
    "hoan tat",
    "dat hang",
    "thanh toan",
    "chot don",
    "mua",
];

/// Query or field names whose value says what to do (`?action=confirm`).
const VERB_FIELDS: &[&str] = &["action", "step", "do", "cmd", "op", "intent", "mode", "task", "hanh dong"];

/// Field names that make an order of what an address names: how many, how
/// much, which item.
const ORDER_PARAMS: &[&str] = &[
    "qty",
    "quantity",
    "so luong",
    "soluong",
    "sl",
    "amount",
    "total",
    "items",
    "sku",
    "product id",
    "item id",
    "variant id",
    "ma sp",
];

/// Whether a read (GET, HEAD) acts: its address names an order or a
/// payment (`/order`, `/checkout`, `/thanh-toan`) or confirms something,
/// and its query carries what makes an order (a quantity, an amount, an
/// item) or a confirmation (`/order?qty=50&confirm=1`,
/// `/checkout/confirm?token=…`). Graded like a POST (PAYMENT), and held
/// to be graded on the page's own site too. An ordinary load (a page, an
/// image, `/orders?page=2`, `/checkout?step=2`, a search for "order") is
/// not one.
pub fn read_acts(url: &str) -> Option<(PermissionScope, String)> {
    let u = Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let pairs: Vec<(String, String)> = u.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    if pairs.is_empty() {
        return None;
    }
    let pays = |text: &str| {
        phrases_in(text).into_iter().find(|p| matches!(p.effect, Effect::Raise(Payment))).map(|p| p.meaning)
    };
    let named = pays(u.path()).or_else(|| pairs.iter().find_map(|(k, _)| pays(k)));
    let path = normalise(u.path());
    let confirms = has_any(&path, READ_COMMITS)
        .or_else(|| pairs.iter().find_map(|(k, _)| has_any(&normalise(k), READ_COMMITS)))
        .or_else(|| {
            pairs
                .iter()
                .filter(|(k, _)| VERB_FIELDS.contains(&normalise(k).as_str()))
                .find_map(|(_, v)| has_any(&normalise(v), COMMIT_WORDS))
        });
    let param = pairs.iter().find(|(k, v)| !v.is_empty() && ORDER_PARAMS.contains(&last_name(k).as_str()));
    let why = match (named, confirms, param) {
        (Some(what), Some(word), _) => format!("a read that confirms {what} (\"{word}\")"),
        (Some(what), None, Some((k, v))) => format!("a read that makes {what} ({k}={})", short(v)),
        (None, Some(word), Some((k, v))) => format!("a read that confirms (\"{word}\") with {k}={}", short(v)),
        _ => return None,
    };
    Some((Payment, why))
}

/// Words that confirm, as a read's address writes them (a read naming an
/// order or payment is not one by that word alone: `/orders?page=2`).
const READ_COMMITS: &[&str] = &[
    "confirm",
    "confirmation",
    "confirmed",
    "submit",
    "place",
    "complete",
    "finalize",
    "finalise",
    "commit",
    "process",
    "xac nhan",
    "hoan tat",
];

fn short(value: &str) -> String {
    value.chars().take(40).collect()
}

/// How a request is read: whole (the action's own page, its frames), or
/// only for what it does (between actions, to another site: a third
/// party's field names say nothing of the user's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Whole,
    WhatItDoes,
    /// A WebSocket's message: what it does, and the words of its fields
    /// that order or pay (`{"type": "order"}`); not those that publish or
    /// subscribe, which is what a chat widget and a live-price feed say
    /// ([`SOCKET_VERBS`]).
    Message,
}

/// The verbs of a socket's own protocols (pub/sub feeds), not the
/// person's paid subscription that the label "Subscribe" may be.
const SOCKET_VERBS: &[&str] = &["subscribe", "unsubscribe", "resubscribe"];

/// Grade `request`, sent from a page at `page_url`.
pub fn classify_request(request: &WireRequest, page_url: Option<&str>, secrets: &[SecretValue]) -> Classification {
    grade(request, page_url, secrets, Reading::Whole)
}

/// Grade `request` by what it does only: what another site than the
/// page's receives between actions. An order or a payment in all but
/// name (an amount with a currency or items, a card, a cart confirmed, a
/// payment API's address, a read that orders), a DELETE, the user's
/// values; not the words of its field names (an analytics batch's
/// "message" and "order").
pub fn classify_third_party(request: &WireRequest, page_url: Option<&str>, secrets: &[SecretValue]) -> Classification {
    grade(request, page_url, secrets, Reading::WhatItDoes)
}

/// Grade a message a page sends over a WebSocket to `request.url` (its
/// body is the message): by what it does, and by the words of its fields
/// that order or pay ([`Reading::Message`]); the user's values in it, or
/// split over its messages, as in any request.
pub fn classify_message(request: &WireRequest, page_url: Option<&str>, secrets: &[SecretValue]) -> Classification {
    grade(request, page_url, secrets, Reading::Message)
}

fn grade(request: &WireRequest, page_url: Option<&str>, secrets: &[SecretValue], reading: Reading) -> Classification {
    let mut out = Classification { scope: WriteNonDestructive, reasons: Vec::new(), deny: None };
    let to = origin_in(&request.url, page_url).unwrap_or_else(|| request.url.clone());
    let sends = if request.method == "MESSAGE" {
        format!("the page sends a message over its WebSocket to {}", short_url(&request.url))
    } else {
        format!("the page sends {} {}", request.method, short_url(&request.url))
    };
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
        // "order"), unless its address orders (`/order?qty=50&confirm=1`);
        // what else it can do is carry the user's data away.
        if let Some((scope, why)) = read_acts(&request.url) {
            raise(&mut out, scope, format!("{sends}: {why}: {scope}"));
        }
        carried(&mut out, request, &to, secrets, &sends);
        return out;
    }
    if request.method == "DELETE" {
        raise(&mut out, Destructive, format!("{sends}: a DELETE request is DESTRUCTIVE"));
    }
    // The path's words (to a third party, only those of a payment).
    let path = Url::parse(&request.url).map(|u| u.path().to_owned()).unwrap_or_default();
    for p in phrases_in(&path) {
        if let Effect::Raise(scope) = p.effect
            && (reading == Reading::Whole || scope == Payment)
        {
            raise(&mut out, scope, format!("{sends}: its address says \"{}\" ({}): {scope}", p.text, p.meaning));
        }
    }
    // What a socket's message says counts when it orders or pays.
    let counts = |p: &Phrase, scope: PermissionScope| {
        reading == Reading::Whole || reading == Reading::Message && scope == Payment && !SOCKET_VERBS.contains(&p.text)
    };
    for field in &request.fields {
        let name = field.name.trim_start_matches('?');
        if reading != Reading::WhatItDoes {
            for p in phrases_in(name) {
                if let Effect::Raise(scope) = p.effect
                    && counts(p, scope)
                {
                    raise(&mut out, scope, format!("{sends}: its field \"{name}\" says {}: {scope}", p.meaning));
                }
            }
            if words(&field.value, true).len() <= VALUE_WORDS {
                for p in phrases_in(&field.value) {
                    if let Effect::Raise(scope) = p.effect
                        && counts(p, scope)
                    {
                        let value: String = field.value.chars().take(40).collect();
                        raise(
                            &mut out,
                            scope,
                            format!("{sends}: it sends {name}=\"{value}\" ({}): {scope}", p.meaning),
                        );
                    }
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
    // A cart confirmed is an order, whatever else it is called.
    let path_words = normalise(&path);
    let to_cart = has_any(&path_words, CART_WORDS).is_some();
    let committed = to_cart.then(|| {
        has_any(&path_words, COMMIT_WORDS).or_else(|| {
            request
                .fields
                .iter()
                .filter(|f| VERB_FIELDS.contains(&last_name(&f.name).as_str()))
                .find_map(|f| has_any(&normalise(&f.value), COMMIT_WORDS))
        })
    });
    if let Some(Some(word)) = committed {
        raise(&mut out, Payment, format!("{sends}: it confirms a cart (\"{word}\"): an order, PAYMENT"));
    }
    // An amount with a currency or with items, to any site: an order in
    // all but name (what a cart keeps is not, unless it is confirmed).
    if (!to_cart || matches!(committed, Some(Some(_))))
        && let Some(total) = request.fields.iter().find(|f| {
            amount_field(&f.name).is_some_and(|(kind, _)| kind == AmountKind::Total) && looks_numeric(&f.value)
        })
    {
        let items = request.sends_items();
        if items || request.names_currency() {
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

/// The user's values anywhere in the request (its URL and host name, its
/// headers, its body), or in what it makes joined with what went to the
/// same other site before: at least SUBMIT.
fn carried(out: &mut Classification, request: &WireRequest, to: &str, secrets: &[SecretValue], sends: &str) {
    let found = find_secrets(&request.text(), secrets);
    let mut reasons: Vec<String> =
        found.iter().map(|s| format!("{sends}: it carries your {} to {to}: SUBMIT", s.key)).collect();
    if !request.joined.is_empty() {
        for s in find_secrets(&request.joined, secrets) {
            if !found.iter().any(|f| f.key == s.key) {
                reasons.push(format!(
                    "{sends}: with what the page sent {to} before, it carries your {} (split over requests): SUBMIT",
                    s.key
                ));
            }
        }
    }
    for reason in reasons {
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

fn short_url(url: &str) -> String {
    let shown: String = url.chars().take(100).collect();
    if url.chars().count() > 100 { format!("{shown}…") } else { shown }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::action::{FieldFacts, FormFacts};
    use crate::gate::request::{SentElsewhere, WireField};

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
        // An amount with items is an order wherever it goes: to the page's
        // own site or to another one (a payment API).
        let json = r#"{"items":[{"sku":"A1"}],"total":1}"#;
        let r = WireRequest::parse("POST", "https://evil.com.vn/x", Some("application/json"), Some(json));
        assert_eq!(classify_request(&r, Some("https://shop.com.vn/p"), &[]).scope, Payment);
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

    fn json(url: &str, body: &str) -> Classification {
        graded("POST", url, "application/json", body)
    }

    fn form(url: &str, body: &str) -> Classification {
        graded("POST", url, "application/x-www-form-urlencoded", body)
    }

    #[test]
    fn a_cart_confirmed_is_an_order_whatever_it_is_called() {
        let orders = [
            json("https://shop.vn/api/cart/confirm", r#"{"qty":50}"#),
            json("https://shop.vn/api/cart/confirm", r#"{"items":[{"sku":"X15","qty":50}]}"#),
            json("https://api.shop.vn/v2/basket/complete", r#"{"basketId":"b1"}"#),
            form("https://shop.vn/gio-hang/xac-nhan", "sl=50&ma_sp=X15"),
            form("https://shop.vn/gio-hang/hoan-tat", "so_luong=2"),
            json("https://shop.vn/api/cart", r#"{"action":"confirm","qty":50}"#),
            json("https://shop.vn/api/cart", r#"{"step":"xác nhận","qty":50}"#),
            json("https://shop.vn/api/cart/finalize", r#"{"id":"c1"}"#),
            json("https://shop.vn/bag/commit", r#"{"lines":[{"sku":"A","n":3}]}"#),
            // An amount with a currency to the cart, confirmed.
            json("https://shop.vn/cart/submit", r#"{"total":21490000,"currency":"VND"}"#),
        ];
        for (i, c) in orders.iter().enumerate() {
            assert_eq!(c.scope, Payment, "order {i}: {:?}", c.reasons);
        }
        assert!(orders[0].reasons.iter().any(|r| r.contains("confirms a cart")), "{:?}", orders[0].reasons);
    }

    #[test]
    fn adding_to_a_cart_and_changing_it_ask_nothing() {
        let kept = [
            json("https://shop.vn/cart/add", r#"{"sku":"A1","qty":1}"#),
            json("https://shop.vn/cart/add.js", r#"{"items":[{"id":123,"quantity":1}]}"#),
            json("https://shop.vn/api/cart", r#"{"sku":"A1","name":"Laptop","price":21490000,"qty":1}"#),
            json("https://shop.vn/api/cart/items", r#"{"sku":"A1","qty":2,"currency":"VND","price":21490000}"#),
            form("https://shop.vn/cart/update", "updates[123]=2"),
            form("https://shop.vn/cart/change.js", "id=123&quantity=3"),
            json("https://shop.vn/gio-hang/them", r#"{"items":[{"sku":"A1"}],"total":21490000,"currency":"VND"}"#),
            json("https://shop.vn/api/wishlist", r#"{"product_id":5}"#),
            form("https://shop.vn/them-vao-gio", "id=5&so_luong=1"),
            json("https://shop.vn/api/cart", r#"{"action":"add","qty":1}"#),
        ];
        for (i, c) in kept.iter().enumerate() {
            assert_eq!(c.scope, WriteNonDestructive, "cart change {i}: {:?}", c.reasons);
        }
    }

    #[test]
    fn an_amount_sent_to_another_site_s_payment_api_is_payment() {
        let pays = [
            json("https://pay.example/v1/charges", r#"{"amount":21490000,"currency":"VND","ref":"x"}"#),
            json("https://pay.example/api/v1/x", r#"{"charge_minor":99900000,"currency":"VND"}"#),
            json(
                "https://pay.example/v2/intents",
                r#"{"purchase_units":[{"amount":{"value":"10.00","currency_code":"USD"}}]}"#,
            ),
            form("https://gw.example/pay.html", "vnp_Amount=2149000000&vnp_CurrCode=VND&vnp_TxnRef=1"),
            json("https://gw.example/create", r#"{"amount_cents":1999,"items":[{"sku":"A"}]}"#),
            json("https://gw.example/create", r#"{"tongTien":21490000,"loaiTien":"VND"}"#),
        ];
        for (i, c) in pays.iter().enumerate() {
            assert_eq!(c.scope, Payment, "payment {i}: {:?}", c.reasons);
        }
        // Between actions too (read for what it does only).
        let r = WireRequest::parse(
            "POST",
            "https://pay.example/api/v1/x",
            Some("application/json"),
            Some(r#"{"charge_minor":99900000,"currency":"VND"}"#),
        );
        assert_eq!(classify_third_party(&r, PAGE, &[]).scope, Payment);
        let r = WireRequest::parse("POST", "https://pay.example/v1/payments", Some("application/json"), Some("{}"));
        assert_eq!(classify_third_party(&r, PAGE, &[]).scope, Payment, "a payment API by its address");
    }

    #[test]
    fn analytics_to_another_site_ask_nothing_read_whole_or_for_what_they_do() {
        let third = |url: &str, ct: &str, body: &str| {
            let r = WireRequest::parse("POST", url, Some(ct), Some(body));
            (classify_third_party(&r, PAGE, &[]).scope, classify_request(&r, PAGE, &[]).scope)
        };
        let batch = r#"{"events":[{"message":"gallery_open","order":3,"messageId":"a1","orders":[]}]}"#;
        assert_eq!(third("https://t.example/collect", "application/json", batch).0, WriteNonDestructive);
        let ga = "v=2&en=view_item&ep.currency=VND&epn.value=21490000&pr1=idA1~nmLaptop";
        assert_eq!(third("https://t.example/g/collect", "text/plain", ga), (WriteNonDestructive, WriteNonDestructive));
        let pixel = "id=1&ev=AddToCart&cd[value]=21490000&cd[currency]=VND&cd[content_ids]=A1";
        assert_eq!(third("https://t.example/tr", "text/plain", pixel), (WriteNonDestructive, WriteNonDestructive));
        let ga4 = r#"{"event":"view_item","ecommerce":{"currency":"VND","value":21490000,"items":[{"item_id":"A1","price":21490000}]}}"#;
        assert_eq!(third("https://t.example/e", "application/json", ga4), (WriteNonDestructive, WriteNonDestructive));
    }

    fn read(url: &str) -> Classification {
        classify_request(&WireRequest::parse("GET", url, None, None), PAGE, &[])
    }

    #[test]
    fn a_read_whose_address_orders_is_graded_like_a_post() {
        let orders = [
            "https://shop.vn/order?qty=50&confirm=1",
            "https://shop.vn/checkout/confirm?token=abc",
            "https://shop.vn/dat-hang?so_luong=2&ma_sp=X15",
            "https://shop.vn/thanh-toan/xac-nhan?ma=1",
            "https://shop.vn/x?confirm=1&quantity=3",
            "https://shop.vn/buy?sku=A1&qty=50",
            "https://shop.vn/api/orders/place?id=1",
            "https://shop.vn/cart?action=checkout&qty=1",
            "https://pay.example/payment/complete?amount=21490000",
            "https://shop.vn/don-hang?sl=3",
        ];
        for url in orders {
            assert!(read_acts(url).is_some(), "{url}");
            assert_eq!(read(url).scope, Payment, "{url}");
        }
        let loads = [
            "https://shop.vn/orders?page=2",
            "https://shop.vn/checkout?step=2",
            "https://shop.vn/search?q=order",
            "https://shop.vn/search?q=%C4%91%E1%BA%B7t+h%C3%A0ng",
            "https://shop.vn/product?id=1&qty=1",
            "https://shop.vn/cart/add?id=1&quantity=1",
            "https://shop.vn/images/order.png?v=3",
            "https://shop.vn/order",
            "https://shop.vn/api/order/status?order_id=1",
            "https://shop.vn/thanh-toan?buoc=2",
            "https://shop.vn/p/42?utm_source=x&ref=confirm",
            "https://cdn.example/js/payment.js?v=12",
        ];
        for url in loads {
            assert_eq!(read_acts(url), None, "{url}");
            assert_eq!(read(url).scope, WriteNonDestructive, "{url}");
        }
    }

    #[test]
    fn the_amount_is_read_from_the_request_in_major_units() {
        let amount = |body: &str| {
            WireRequest::parse("POST", "https://pay.example/x", Some("application/json"), Some(body)).amount()
        };
        // VND has no minor unit (ISO 4217): 99,900,000 minor units are 99,900,000 ₫.
        assert_eq!(amount(r#"{"charge_minor":99900000,"currency":"VND"}"#).as_deref(), Some("99900000 VND"));
        assert_eq!(amount(r#"{"amount_cents":1999,"currency":"usd"}"#).as_deref(), Some("19.99 USD"));
        assert_eq!(amount(r#"{"total_minor":12345,"currency":"KWD"}"#).as_deref(), Some("12.345 KWD"));
        assert_eq!(amount(r#"{"price_minor":500,"currency":"EUR"}"#).as_deref(), Some("5 EUR"));
        assert_eq!(amount(r#"{"amountMinor":5000,"currency_code":"JPY"}"#).as_deref(), Some("5000 JPY"));
        assert_eq!(
            amount(r#"{"purchase_units":[{"amount":{"value":"10.00","currency_code":"USD"}}]}"#).as_deref(),
            Some("10.00 USD")
        );
        assert_eq!(amount(r#"{"amount_cents":5}"#).as_deref(), Some("0.05"));
        // "minor" of no named currency: shown as it is, never less.
        assert_eq!(amount(r#"{"charge_minor":99900000}"#).as_deref(), Some("99900000"));
        // A total before a unit price; a unit price when there is nothing else.
        assert_eq!(amount(r#"{"price":100,"total":300,"currency":"VND"}"#).as_deref(), Some("300 VND"));
        assert_eq!(amount(r#"{"tong_tien":"21490000","don_vi":"₫"}"#).as_deref(), Some("21490000 VND"));
        assert_eq!(amount(r#"{"note":"hi"}"#), None);
        let vnp = WireRequest::parse(
            "POST",
            "https://gw.example/pay",
            Some("application/x-www-form-urlencoded"),
            Some("vnp_Amount=2149000000&vnp_CurrCode=VND"),
        );
        assert_eq!(vnp.amount().as_deref(), Some("2149000000 VND"));
    }

    #[test]
    fn the_users_values_are_found_in_every_part_of_a_request() {
        let secrets = vec![SecretValue::profile("travel.passport_no", "B7654321")];
        let leaks = [
            WireRequest::parse("GET", "http://b7654321.localhost/", None, None),
            WireRequest::parse("GET", "https://evil.example/#B7654321", None, None),
            WireRequest::parse("GET", "https://evil.example/p.gif", None, None)
                .with_headers(vec![("X-Trace".into(), "B7654321".into())]),
            WireRequest::parse("GET", "https://evil.example/p.gif", None, None)
                .with_headers(vec![("Referer".into(), "https://shop.vn/p/42?ref=B-765-4321".into())]),
            WireRequest::parse("POST", "https://evil.example/c", Some("text/plain"), Some("x"))
                .with_headers(vec![("Authorization".into(), "Bearer Qjc2NTQzMjE=".into())]),
        ];
        for (i, r) in leaks.iter().enumerate() {
            let c = classify_request(r, PAGE, &secrets);
            assert_eq!(c.scope, Submit, "leak {i}: {:?}", c.reasons);
            assert!(c.reasons.iter().any(|w| w.contains("travel.passport_no")), "leak {i}: {:?}", c.reasons);
        }
        let clean = WireRequest::parse("GET", "https://evil.example/p.gif", None, None)
            .with_headers(vec![("Referer".into(), "https://shop.vn/".into()), ("Accept".into(), "*/*".into())]);
        assert_eq!(classify_request(&clean, PAGE, &secrets).scope, WriteNonDestructive);
    }

    #[test]
    fn a_value_split_over_requests_to_one_other_site_is_found_joined() {
        let secrets = vec![
            SecretValue::profile("travel.passport_no", "B7654321"),
            SecretValue::profile("contact.phone", "0901234567"),
        ];
        let mut sent = SentElsewhere::default();
        let get = |url: &str, sent: &mut SentElsewhere| {
            let mut r = WireRequest::parse("GET", url, None, None);
            sent.join(&mut r, PAGE);
            classify_request(&r, PAGE, &secrets)
        };
        assert_eq!(get("https://evil.example/a?x=B765&t=1", &mut sent).scope, WriteNonDestructive);
        let second = get("https://cdn.evil.example/b.gif?y=4321", &mut sent);
        assert_eq!(second.scope, Submit, "{:?}", second.reasons);
        assert!(second.reasons.iter().any(|r| r.contains("split")), "{:?}", second.reasons);
        // A phone split between an EventSource's path and an image's query.
        assert_eq!(get("https://evil.example/events/0901", &mut sent).scope, WriteNonDestructive);
        assert_eq!(get("https://evil.example/i.gif?q=234567", &mut sent).scope, Submit);
        // Two halves in one request's fields.
        assert_eq!(get("https://other.example/c?a=B765&b=4321", &mut sent).scope, Submit);
        // Halves sent to two different sites, or to the page's own site, are not joined.
        let mut sent = SentElsewhere::default();
        assert_eq!(get("https://one.example/a?x=B765", &mut sent).scope, WriteNonDestructive);
        assert_eq!(get("https://two.example/b?y=4321", &mut sent).scope, WriteNonDestructive);
        assert_eq!(get("https://shop.vn/a?x=0901", &mut sent).scope, WriteNonDestructive);
        assert_eq!(get("https://shop.vn/b?y=234567", &mut sent).scope, WriteNonDestructive);
    }

    #[test]
    fn a_sockets_message_is_graded_by_what_it_does_and_its_order_words() {
        let message = |url: &str, text: &str, secrets: &[SecretValue]| {
            classify_message(&WireRequest::parse("MESSAGE", url, Some("text/plain"), Some(text)), PAGE, secrets)
        };
        let own = "ws://shop.vn/live";
        for order in [
            r#"{"type":"order","sku":"laptop-abc","qty":50}"#,
            r#"{"action":"place_order","items":[{"sku":"A1","qty":50}]}"#,
            r#"{"lenh":"đặt hàng","ma_sp":"A1","so_luong":50}"#,
            r#"{"cmd":"x1","total":1074500000,"currency":"VND"}"#,
            "type=order&sku=A1&qty=50",
        ] {
            let graded = message(own, order, &[]);
            assert_eq!(graded.scope, Payment, "{order}: {:?}", graded.reasons);
            assert!(graded.reasons.iter().any(|r| r.contains("over its WebSocket")), "{:?}", graded.reasons);
        }
        // A chat's message, a feed's subscription: nothing to ask.
        for honest in [
            r#"{"type":"message","text":"Laptop ABC còn hàng không ạ?","visitor":"v-2931"}"#,
            r#"{"op":"subscribe","args":["price:laptop-abc"],"currency":"VND"}"#,
            r#"{"method":"SUBSCRIBE","params":["price:laptop-xyz"],"id":2}"#,
            r#"{"type":"hello","visitor":"v-2931","page":"/p/42"}"#,
        ] {
            let graded = message(own, honest, &[]);
            assert!(graded.scope < Submit, "{honest}: {:?}", graded.reasons);
        }
        // The person's values, whole or in halves over two messages.
        let secrets = vec![SecretValue::profile("travel.passport_no", "B7654321")];
        assert_eq!(message(own, r#"{"id":"B7654321"}"#, &secrets).scope, Submit);
        let mut sent = SentElsewhere::default();
        let mut half = |text: &str| {
            let mut r = WireRequest::parse("MESSAGE", own, Some("text/plain"), Some(text));
            sent.join_message(&mut r);
            classify_message(&r, PAGE, &secrets).scope
        };
        assert_eq!(half(r#"{"k":"B765"}"#), WriteNonDestructive);
        assert_eq!(half(r#"{"k":"4321"}"#), Submit);
    }
}
