//! `shopping_prepare_checkout`: up to the payment step, never past it
//! without the user.
//!
//! 1. Open the product page, choose the variant (a click on the option's
//!    label), set the quantity, click "Thêm vào giỏ" / "Add to cart" (found
//!    with `browser_find`; the gate grades it like any click).
//! 2. Open the checkout page the shop then links to ("Thanh toán",
//!    "Checkout": read from the link and opened with `browser_navigate`, a
//!    navigation; paying is a later, confirmed step). A CAPTCHA or one-time
//!    code there goes to the user (`human_solve_challenge`).
//! 3. Fill the delivery address: from the profile (`address_ref` a profile
//!    key such as `shopping.address`; without `address_ref`, the address
//!    the profile holds, found by its parts' keys: [`profile_address`]; read
//!    with `user_profile_get`;
//!    sensitive values such as the phone stay `{{profile...}}` placeholders
//!    that `browser_type` fills only after the gate asked the user) or from
//!    a JSON file in Halley's file store (its id, or the `file://` path of
//!    a file stored with `files_store`). A part the user declines stays
//!    empty; the rest is still filled.
//! 4. Apply the coupon, read the cost breakdown from the page (items,
//!    shipping, discount, tax, total: the rules alone, never a model's
//!    reading of what will be charged) and stop: `checkout_ready`.
//! 5. Only with `place_order: true`: click "Đặt hàng" / "Place order" /
//!    "Pay", which the gate grades PAYMENT and asks the user about; declined,
//!    nothing is sent and the result says `needs_confirmation`.
//!
//! A product page with no "Add to cart" but a "Mua ngay" / "Buy now" sells
//! at once: the page in front is the checkout. Its breakdown (price ×
//! quantity, shipping, discount, total; the parts it does not show named in
//! `missing`) is the result, `checkout_ready` with only the payment left,
//! and `place_order` presses "Mua ngay" (asked, with the amount). A cart
//! with no checkout link also gets the product page's breakdown.

use std::collections::BTreeMap;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::shopping_compare::{choose_variant, money_of};
use super::shopping_specs::{Wanted, read_fields};
use super::{Skill, parse, to_output};
use crate::builtin::files::{FilesGetOutput, StoredFile, resolve_file_ref};
use crate::builtin::profile::UserProfileGetOutput;
use crate::error::{Error, ErrorCode, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::{Money, SkillStatus};
use crate::tools::catalogue::page_view::BrowserFindOutput;
use crate::tools::catalogue::robustness::BrowserDetectStateOutput;
use crate::tools::catalogue::safety::{ChallengeOutcome, HumanSolveChallengeOutput};
use crate::tools::catalogue::shopping::{CostBreakdown, ShoppingPrepareCheckoutArgs, ShoppingPrepareCheckoutOutput};

/// Labels of the buttons this skill looks for, Vietnamese first.
const ADD_TO_CART: [&str; 4] = ["thêm vào giỏ", "add to cart", "add to bag", "add to basket"];
const TO_CHECKOUT: [&str; 5] = ["thanh toán", "checkout", "check out", "xem giỏ hàng", "view cart"];
const APPLY_COUPON: [&str; 3] = ["áp dụng", "apply", "sử dụng"];
const PLACE_ORDER: [&str; 5] = ["đặt hàng", "place order", "pay now", "pay", "thanh toán"];
/// A product page that sells at once, with no cart or checkout page before
/// the payment.
const BUY_NOW: [&str; 3] = ["mua ngay", "buy now", "buy it now"];

/// The address parts a checkout form asks for: (part, the names a form
/// field or an address key may have, the field's `autocomplete` tokens).
const ADDRESS_PARTS: &[(&str, &[&str], &[&str])] = &[
    ("full_name", &["full_name", "fullname", "name", "ho_ten", "hoten", "recipient", "nguoi_nhan"], &["name"]),
    ("phone", &["phone", "tel", "telephone", "mobile", "so_dien_thoai", "sdt", "dien_thoai"], &["tel"]),
    ("email", &["email", "e_mail"], &["email"]),
    (
        "street",
        &["street", "address", "address1", "address_line1", "dia_chi", "so_nha"],
        &["street-address", "address-line1"],
    ),
    ("ward", &["ward", "phuong", "phuong_xa", "xa"], &["address-level3"]),
    ("district", &["district", "quan", "quan_huyen", "huyen"], &[]),
    ("city", &["city", "province", "tinh", "tinh_thanh", "thanh_pho", "town"], &["address-level1", "address-level2"]),
    ("postcode", &["postcode", "postal_code", "zip", "zip_code", "ma_buu_chinh"], &["postal-code"]),
];

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: ShoppingPrepareCheckoutArgs = parse("shopping_prepare_checkout", args)?;
        to_output(&checkout(skill, &args).await?)
    })
}

/// The result when the checkout stops early.
fn stopped(skill: &Skill<'_>, status: SkillStatus, why: String, filled: Vec<String>) -> ShoppingPrepareCheckoutOutput {
    skill.note(why);
    ShoppingPrepareCheckoutOutput {
        checkout_ready: false,
        final_cost_breakdown: None,
        status,
        order_placed: false,
        address_filled: filled,
        notes: skill.notes(),
    }
}

async fn checkout(skill: &Skill<'_>, args: &ShoppingPrepareCheckoutArgs) -> Result<ShoppingPrepareCheckoutOutput> {
    let option = &args.selected_option;
    // The address first: a bad reference is the caller's error, before
    // anything is put in a cart.
    let address = match &args.address_ref {
        Some(reference) => address(skill, reference).await?,
        None => profile_address(skill).await?,
    };
    skill.data::<Value>("browser_navigate", json!({"url": option.url})).await?;
    if let Some(variant) = &option.variant
        && !choose_variant(skill, &option.url, variant).await
    {
        let why = format!("the variant `{variant}` is not on the page: nothing was added to the cart");
        return Ok(stopped(skill, SkillStatus::Failed, why, Vec::new()));
    }
    if option.quantity > 1 {
        let typed = skill
            .call(
                "browser_type",
                json!({"selector": "input[name='quantity'],input[name='qty'],input[type='number']",
                    "text": option.quantity.to_string(), "clear_first": true}),
            )
            .await;
        if let Some(e) = typed.error {
            let why =
                format!("the quantity could not be set ([{}] {}): nothing was added to the cart", e.code, e.message);
            return Ok(stopped(skill, SkillStatus::Failed, why, Vec::new()));
        }
    }
    let Some(add) = find_control(skill, &ADD_TO_CART, false).await else {
        // A shop that sells from the product page at once ("Mua ngay"):
        // the page in front is the checkout.
        if let Some(buy) = find_control(skill, &BUY_NOW, false).await {
            return buy_now(skill, args, buy).await;
        }
        let why = "no \"Thêm vào giỏ\" / \"Add to cart\" or \"Mua ngay\" / \"Buy now\" button on the page".to_owned();
        return Ok(stopped(skill, SkillStatus::Failed, why, Vec::new()));
    };
    let added = skill.call("browser_click", json!({"ref": add.element})).await;
    if let Some(e) = added.error {
        let status = if e.code == ErrorCode::Denied { SkillStatus::NeedsConfirmation } else { SkillStatus::Failed };
        let why = format!("adding to the cart did not happen ([{}] {})", e.code, e.message);
        return Ok(stopped(skill, status, why, Vec::new()));
    }
    let Some(to_checkout) = find_control(skill, &TO_CHECKOUT, true).await.and_then(|c| c.href) else {
        // What it costs is still what the page in front shows.
        let breakdown = product_breakdown(skill, option).await?;
        let why = "added to the cart, but the page links to no checkout (\"Thanh toán\" / \"Checkout\"): the cost \
                   is the product page's"
            .to_owned();
        let mut out = stopped(skill, SkillStatus::Partial, why, Vec::new());
        out.final_cost_breakdown = breakdown;
        return Ok(out);
    };
    let checkout_url = absolute(&to_checkout, &option.url);
    skill.data::<Value>("browser_navigate", json!({"url": checkout_url})).await?;
    if let Some(why) = hand_over_challenge(skill, args.challenge_timeout_ms).await {
        return Ok(stopped(skill, SkillStatus::NeedsUser, why, Vec::new()));
    }
    let (filled, declined) = fill_address(skill, &address).await;
    if let Some(code) = &args.coupon_code {
        apply_coupon(skill, code).await;
    }
    let breakdown = breakdown(skill).await?;
    let complete = !filled.is_empty() && declined.is_empty();
    let checkout_ready = complete && breakdown.is_some();
    let mut status = if checkout_ready { SkillStatus::Ok } else { SkillStatus::Partial };
    if !declined.is_empty() {
        status = SkillStatus::NeedsConfirmation;
    }
    let mut order_placed = false;
    if args.place_order && checkout_ready {
        match find_control(skill, &PLACE_ORDER, false).await {
            None => {
                skill.note("no \"Đặt hàng\" / \"Place order\" button on the checkout page: the order was not placed");
                status = SkillStatus::Partial;
            }
            Some(place) => match place_order(skill, &place).await {
                Ok(()) => order_placed = true,
                Err(not) => status = not,
            },
        }
    } else if args.place_order {
        skill.note("the order was not placed: the checkout is not ready");
    } else if checkout_ready {
        skill.note(
            "stopped before payment: nothing was ordered or paid (call again with place_order: true to place it; \
             Halley asks you first)",
        );
    }
    Ok(ShoppingPrepareCheckoutOutput {
        checkout_ready,
        final_cost_breakdown: breakdown,
        status,
        order_placed,
        address_filled: filled,
        notes: skill.notes(),
    })
}

/// Click the button that pays (the gate grades it PAYMENT and asks):
/// `Err(status)` with a note when the order was not placed.
async fn place_order(skill: &Skill<'_>, button: &Control) -> std::result::Result<(), SkillStatus> {
    let clicked = skill.call("browser_click", json!({"ref": button.element})).await;
    match clicked.error {
        None => Ok(()),
        Some(e) if e.code == ErrorCode::Denied => {
            skill.note(format!("the order was not placed: {}", e.message));
            Err(SkillStatus::NeedsConfirmation)
        }
        Some(e) => {
            skill.note(format!("placing the order failed: [{}] {}", e.code, e.message));
            Err(SkillStatus::Partial)
        }
    }
}

/// The parts of a breakdown the page does not show, by name.
fn missing(parts: [(&str, &Option<Money>); 3]) -> Vec<String> {
    parts.into_iter().filter(|(_, m)| m.is_none()).map(|(k, _)| k.to_owned()).collect()
}

/// A control found on the page: its ref, and its link when it is one.
struct Control {
    element: String,
    href: Option<String>,
}

/// The first button (or, with `link`, link) whose label is one of
/// `labels`, tried in order with `browser_find`.
async fn find_control(skill: &Skill<'_>, labels: &[&str], link: bool) -> Option<Control> {
    for label in labels {
        let Ok(found) = skill.data::<BrowserFindOutput>("browser_find", json!({"query": label})).await else {
            continue;
        };
        let folded = crate::vocab::text::fold(label);
        for m in found.matches {
            let Some(element) = m.element_ref else { continue };
            // `[e12] button "Thêm vào giỏ"`, `Đã thêm. [e7] link "Thanh toán" → /checkout`
            let tag = format!("[{element}] ");
            let Some(at) = m.line.find(&tag) else { continue };
            let line = &m.line[at..];
            let kind = line.split_whitespace().nth(1).unwrap_or_default();
            let named = line.split('"').nth(1).map(crate::vocab::text::fold).unwrap_or_default();
            if !has_phrase(&named, &folded) {
                continue;
            }
            if link && kind == "link" {
                let href = line.rsplit_once(" → ").map(|(_, h)| h.trim_end_matches(" *new*").trim().to_owned());
                return Some(Control { element, href });
            }
            if !link && kind == "button" {
                return Some(Control { element, href: None });
            }
        }
    }
    None
}

/// Whether `phrase` stands in `text` as whole words ("pay" is in "Pay
/// now", not in "PayPal").
fn has_phrase(text: &str, phrase: &str) -> bool {
    let words = |t: &str| {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect::<Vec<_>>()
    };
    let (text, phrase) = (words(text), words(phrase));
    !phrase.is_empty() && text.windows(phrase.len()).any(|w| w == phrase.as_slice())
}

/// A link as the snapshot shows it (`/path?q`, `host/path`, a full URL)
/// made absolute against `base`.
fn absolute(href: &str, base: &str) -> String {
    let Ok(base) = url::Url::parse(base) else { return href.to_owned() };
    if href.starts_with('/') || href.contains("://") {
        return base.join(href).map_or_else(|_| href.to_owned(), |u| u.to_string());
    }
    format!("{}://{href}", base.scheme())
}

/// A CAPTCHA or a one-time code on the page goes to the user; `Some(why)`
/// when it is still there afterwards.
async fn hand_over_challenge(skill: &Skill<'_>, timeout_ms: Option<u32>) -> Option<String> {
    let state = skill.data::<BrowserDetectStateOutput>("browser_detect_state", json!({})).await.ok()?;
    let challenge = state.challenge?;
    let kind = serde_json::to_value(challenge).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let mut args = json!({"challenge_type": kind, "page_hint": "checkout"});
    if let Some(ms) = timeout_ms {
        args["timeout_ms"] = json!(ms);
    }
    let kind = match kind.as_str() {
        "captcha" => "a CAPTCHA",
        "otp" => "a one-time code",
        "2fa" => "a 2FA prompt",
        "login" => "a sign-in",
        _ => "a challenge",
    };
    match skill.data::<HumanSolveChallengeOutput>("human_solve_challenge", args).await {
        Ok(HumanSolveChallengeOutput { outcome: ChallengeOutcome::Resolved }) => {
            skill.note(format!("the checkout asked for {kind}: handed to you, and solved"));
            None
        }
        Ok(other) => Some(format!(
            "the checkout asks for {kind}, which only you can answer; it was not solved ({:?}): stopped before the \
             address",
            other.outcome
        )),
        Err(e) => Some(format!("the checkout asks for {kind}; handing it over failed: [{}] {}", e.code(), e.message())),
    }
}

/// The address to fill: part → value (sensitive profile values as
/// placeholders).
/// The address part a key names (its last dotted part, folded), if any.
fn address_part(key: &str) -> Option<&'static str> {
    let last = key.rsplit('.').next().unwrap_or(key);
    let folded = crate::vocab::text::fold_key(last);
    ADDRESS_PARTS.iter().find(|(_, names, _)| names.contains(&folded.as_str())).map(|(part, _, _)| *part)
}

/// Words of a profile key's prefix that say it holds a delivery address.
const ADDRESS_PREFIX_WORDS: &[&str] =
    &["address", "delivery", "shipping", "ship", "dia_chi", "giao_hang", "nhan_hang", "home", "nha"];

/// No `address_ref`: the address the whole profile holds. Its keys are
/// grouped by their prefix (`shopping.delivery.phone` is `phone` of
/// `shopping.delivery`; a bare `phone` is of the profile's top); the group
/// chosen is the one whose prefix names an address (`delivery`, `shipping`,
/// `địa chỉ`...), then the one with the most address parts, then the first
/// by name. A street or a city is needed: a name and a phone alone are not
/// an address. The choice is noted in the result.
async fn profile_address(skill: &Skill<'_>) -> Result<BTreeMap<&'static str, String>> {
    let profile: UserProfileGetOutput = skill.data("user_profile_get", json!({})).await?;
    let mut groups: BTreeMap<String, BTreeMap<&'static str, String>> = BTreeMap::new();
    for (key, value) in &profile.values {
        let Some(part) = address_part(key) else { continue };
        let Some(text) = value_text(value) else { continue };
        let prefix = key.rsplit_once('.').map_or("", |(p, _)| p).to_owned();
        groups.entry(prefix).or_default().entry(part).or_insert(text);
    }
    let names_address = |prefix: &str| {
        prefix.split('.').any(|p| {
            let folded = crate::vocab::text::fold_key(p);
            ADDRESS_PREFIX_WORDS.iter().any(|w| folded == *w || folded.split('_').any(|x| x == *w))
        })
    };
    let best =
        groups.into_iter().filter(|(_, parts)| parts.contains_key("street") || parts.contains_key("city")).max_by(
            |(a, pa), (b, pb)| (names_address(a), pa.len()).cmp(&(names_address(b), pb.len())).then_with(|| b.cmp(a)),
        );
    let Some((prefix, parts)) = best else {
        return Err(Error::invalid_arguments(
            "no delivery address in your profile: save one (e.g. `halley profile set shopping.delivery.full_name \
             \"Nguyễn An\"`, `.phone`, `.street`, `.city`) or give `address_ref` (a profile key or a stored JSON \
             file's id)",
        ));
    };
    let named: Vec<&str> = parts.keys().copied().collect();
    let from = if prefix.is_empty() { "the top of your profile".to_owned() } else { format!("`{prefix}`") };
    skill.note(format!("the delivery address from your profile: {from} ({})", named.join(", ")));
    Ok(parts)
}

/// A profile or file value as the text to type: a string or a number.
fn value_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

async fn address(skill: &Skill<'_>, reference: &str) -> Result<BTreeMap<&'static str, String>> {
    let values: BTreeMap<String, Value> = if is_file_ref(reference) {
        let file = stored_file(skill, reference).await?;
        let path = resolve_file_ref(&file.reference)?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::invalid_arguments(format!("the address file {} cannot be read: {e}", file.id)))?;
        let parsed: Value = serde_json::from_str(&text)
            .map_err(|e| Error::invalid_arguments(format!("the address file {} is not JSON: {e}", file.id)))?;
        let Value::Object(map) = parsed else {
            return Err(Error::invalid_arguments(format!(
                "the address file {} must be a JSON object such as {{\"full_name\": ..., \"phone\": ..., \"street\": ..., \
                 \"city\": ...}}",
                file.id
            )));
        };
        map.into_iter().collect()
    } else {
        let profile: UserProfileGetOutput = skill.data("user_profile_get", json!({"keys": [reference]})).await?;
        if !profile.missing.is_empty() {
            return Err(Error::invalid_arguments(format!(
                "no address under the profile key `{reference}`: save one (e.g. `halley profile set \
                 {reference}.full_name \"Nguyễn An\"`, `.phone`, `.street`, `.city`) or give a stored JSON file's id"
            )));
        }
        profile.values
    };
    let mut parts = BTreeMap::new();
    for (key, value) in values {
        let (Some(part), Some(text)) = (address_part(&key), value_text(&value)) else { continue };
        parts.entry(part).or_insert(text);
    }
    if parts.is_empty() {
        let known: Vec<&str> = ADDRESS_PARTS.iter().map(|(p, _, _)| *p).collect();
        return Err(Error::invalid_arguments(format!(
            "`{reference}` holds no address part Halley knows ({})",
            known.join(", ")
        )));
    }
    Ok(parts)
}

fn is_file_ref(reference: &str) -> bool {
    reference.starts_with("file_") || reference.starts_with("file-") || reference.starts_with("file://")
}

/// The stored file `reference` names: its id, or a `file://` path whose
/// content was stored with `files_store` (only Halley's stored files are
/// read: a skill never reads an arbitrary file into a web page).
async fn stored_file(skill: &Skill<'_>, reference: &str) -> Result<StoredFile> {
    if !reference.starts_with("file://") {
        let got: FilesGetOutput = skill.data("files_get", json!({"id": reference})).await?;
        return got.files.into_iter().next().ok_or_else(|| {
            Error::invalid_arguments(format!("no stored file `{reference}` (see `halley tools call files_get`)"))
        });
    }
    let path = resolve_file_ref(reference)?;
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::invalid_arguments(format!("the address file {} cannot be read: {e}", path.display())))?;
    let sha = hex::encode(Sha256::digest(&bytes));
    let got: FilesGetOutput = skill.data("files_get", json!({"limit": 1000})).await?;
    got.files.into_iter().find(|f| f.sha256 == sha).ok_or_else(|| {
        Error::invalid_arguments(format!(
            "{reference} is not in Halley's file store; store it first (`halley tools call files_store '{{\"file_path\": \
             \"{reference}\", \"tags\": [\"address\"]}}'`) so Halley may use it"
        ))
    })
}

/// Types each address part into its field. Returns the parts filled and
/// those the user declined.
async fn fill_address(skill: &Skill<'_>, address: &BTreeMap<&'static str, String>) -> (Vec<String>, Vec<String>) {
    let (mut filled, mut declined) = (Vec::new(), Vec::new());
    for (part, names, autocomplete) in ADDRESS_PARTS {
        let Some(value) = address.get(part) else { continue };
        let mut selectors: Vec<String> = autocomplete.iter().map(|a| format!("[autocomplete='{a}']")).collect();
        for name in *names {
            selectors.push(format!("input[name='{name}']"));
            selectors.push(format!("textarea[name='{name}']"));
        }
        let typed = skill
            .call("browser_type", json!({"selector": selectors.join(","), "text": value, "clear_first": true}))
            .await;
        match typed.error {
            None => filled.push((*part).to_owned()),
            Some(e) if e.code == ErrorCode::Denied => {
                skill.note(format!("{part}: not filled, you declined ({})", e.message));
                declined.push((*part).to_owned());
            }
            Some(e) => skill.note(format!("{part}: no field for it on the checkout page ([{}] {})", e.code, e.message)),
        }
    }
    (filled, declined)
}

async fn apply_coupon(skill: &Skill<'_>, code: &str) {
    let field = "input[name='coupon'],input[name='coupon_code'],input[name='voucher'],input[name='promo'],\
                 input[name='promo_code'],input[name='discount_code']";
    let typed = skill.call("browser_type", json!({"selector": field, "text": code, "clear_first": true})).await;
    if let Some(e) = typed.error {
        skill.note(format!("the coupon {code} was not applied: no coupon field ([{}] {})", e.code, e.message));
        return;
    }
    match find_control(skill, &APPLY_COUPON, false).await {
        Some(apply) => {
            if let Some(e) = skill.call("browser_click", json!({"ref": apply.element})).await.error {
                skill.note(format!("the coupon {code} was not applied: [{}] {}", e.code, e.message));
            }
        }
        None => skill.note(format!("the coupon {code} was typed, but the page has no \"Áp dụng\" / \"Apply\" button")),
    }
}

/// The product page sells at once ("Mua ngay"): everything up to payment
/// is the variant and the quantity, done; the breakdown is the page's
/// (`product_breakdown`). Only with `place_order` is the button clicked,
/// which the gate grades PAYMENT and asks about, naming the amount. The
/// shop asks for the delivery address after that button, if at all.
async fn buy_now(
    skill: &Skill<'_>,
    args: &ShoppingPrepareCheckoutArgs,
    buy: Control,
) -> Result<ShoppingPrepareCheckoutOutput> {
    let breakdown = product_breakdown(skill, &args.selected_option).await?;
    let checkout_ready = breakdown.is_some();
    let mut status = if checkout_ready { SkillStatus::Ok } else { SkillStatus::Partial };
    let mut order_placed = false;
    if args.place_order && checkout_ready {
        match place_order(skill, &buy).await {
            Ok(()) => order_placed = true,
            Err(not) => status = not,
        }
    } else if args.place_order {
        skill.note("the order was not placed: the page shows no price to check it against");
    } else if checkout_ready {
        skill.note(
            "this shop sells from the product page (\"Mua ngay\" / \"Buy now\"), with no cart or checkout page: \
             stopped before that button, nothing was ordered or paid (call again with place_order: true to press \
             it; Halley asks you first, showing the amount)",
        );
    }
    Ok(ShoppingPrepareCheckoutOutput {
        checkout_ready,
        final_cost_breakdown: breakdown,
        status,
        order_placed,
        address_filled: Vec::new(),
        notes: skill.notes(),
    })
}

/// The cost the product page in front shows: its price times the quantity
/// chosen, the shipping fee, a discount and a total when it shows them (a
/// total it does not show is added up, and named missing), by the rules
/// alone (never a model's reading of what will be charged).
async fn product_breakdown(
    skill: &Skill<'_>,
    option: &crate::tools::catalogue::shopping::SelectedOption,
) -> Result<Option<CostBreakdown>> {
    let wanted = [
        Wanted::new("price", &["Giá", "Giá bán", "Price"]),
        Wanted::new("shipping", &["Phí vận chuyển", "Phí giao hàng", "Shipping", "Shipping fee", "Delivery fee"]),
        Wanted::new("discount", &["Giảm giá", "Khuyến mãi", "Discount", "Coupon"]),
        Wanted::new("tax", &["Thuế", "VAT", "Tax"]),
        Wanted::new("total", &["Tổng cộng", "Tổng tiền", "Thành tiền", "Total", "Order total"]),
        Wanted::new("currency", &["Tiền tệ"]),
    ];
    let mut found = read_fields(skill, &wanted, None).await?;
    // A total is a line the page labels so; the product's own data names
    // its price, which is not an order's total.
    found.retain(|k, r| k != "total" || r.source == "label");
    let amounts: BTreeMap<String, (f64, Option<String>)> =
        found.iter().filter_map(|(k, r)| money_of(&r.text).map(|m| (k.clone(), m))).collect();
    // The product's data gives its price and currency apart (`21490000`, `VND`).
    let named = found
        .get("currency")
        .map(|r| r.text.trim().to_ascii_uppercase())
        .filter(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()));
    let priced = amounts.get("price").cloned().map(|(v, c)| (v, c.or(named)));
    let Some((unit, Some(currency))) = priced else {
        skill.note("the product page shows no price with a currency: no cost breakdown");
        return Ok(None);
    };
    // Another currency than the price's is not this order's.
    let money = |k: &str| {
        amounts
            .get(k)
            .filter(|(_, c)| c.as_ref().is_none_or(|c| *c == currency))
            .map(|(v, _)| Money { amount: v.abs(), currency: currency.clone() })
    };
    let quantity = option.quantity.max(1);
    let items = Money { amount: unit * f64::from(quantity), currency: currency.clone() };
    let (shipping, discount, tax) = (money("shipping"), money("discount").filter(|m| m.amount > 0.0), money("tax"));
    let mut missing = missing([("shipping", &shipping), ("discount", &discount), ("tax", &tax)]);
    let total = match money("total") {
        Some(total) => total,
        None => {
            missing.push("total".to_owned());
            let part = |m: &Option<Money>| m.as_ref().map_or(0.0, |m| m.amount);
            let sum = items.amount + part(&shipping) + part(&tax) - part(&discount);
            skill.note(
                "the page shows no total: it is the items plus the shipping and tax shown, less a discount shown",
            );
            Money { amount: sum, currency: currency.clone() }
        }
    };
    Ok(Some(CostBreakdown {
        items,
        shipping,
        discount,
        tax,
        total,
        unit_price: Some(Money { amount: unit, currency }),
        quantity: Some(quantity),
        variant: option.variant.clone(),
        missing,
    }))
}

/// The cost breakdown the checkout page shows, read by the rules alone.
async fn breakdown(skill: &Skill<'_>) -> Result<Option<CostBreakdown>> {
    let wanted = [
        Wanted::new("items", &["Tạm tính", "Tiền hàng", "Subtotal", "Items"]),
        Wanted::new("shipping", &["Phí vận chuyển", "Phí giao hàng", "Shipping"]),
        Wanted::new("discount", &["Giảm giá", "Khuyến mãi", "Discount", "Coupon"]),
        Wanted::new("tax", &["Thuế", "VAT", "Tax"]),
        Wanted::new("total", &["Tổng cộng", "Tổng tiền", "Thành tiền", "Total", "Order total"]),
    ];
    let found = read_fields(skill, &wanted, None).await?;
    let amounts: BTreeMap<String, (f64, Option<String>)> =
        found.iter().filter_map(|(k, r)| money_of(&r.text).map(|m| (k.clone(), m))).collect();
    let Some(currency) = ["total", "items", "shipping"].iter().find_map(|k| amounts.get(*k)?.1.clone()) else {
        skill.note("the checkout page shows no amount with a currency: no cost breakdown");
        return Ok(None);
    };
    let money = |k: &str| amounts.get(k).map(|(v, _)| Money { amount: v.abs(), currency: currency.clone() });
    let (Some(items), Some(total)) = (money("items"), money("total")) else {
        skill.note("the checkout page shows no subtotal or no total: no cost breakdown");
        return Ok(None);
    };
    let (shipping, discount, tax) = (money("shipping"), money("discount").filter(|m| m.amount > 0.0), money("tax"));
    let missing = missing([("shipping", &shipping), ("discount", &discount), ("tax", &tax)]);
    Ok(Some(CostBreakdown {
        items,
        shipping,
        discount,
        tax,
        total,
        unit_price: None,
        quantity: None,
        variant: None,
        missing,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_matched_as_whole_words() {
        assert!(has_phrase("dat hang ngay", "dat hang"));
        assert!(has_phrase("pay now", "pay"));
        assert!(!has_phrase("paypal", "pay"));
        assert!(!has_phrase("dat", "dat hang"));
    }

    #[test]
    fn snapshot_links_are_made_absolute() {
        let base = "http://127.0.0.1:4000/shop/vn/laptop.html";
        assert_eq!(absolute("/shop/vn/checkout.html?otp=1", base), "http://127.0.0.1:4000/shop/vn/checkout.html?otp=1");
        assert_eq!(absolute("pay.example.vn/checkout", base), "http://pay.example.vn/checkout");
        assert_eq!(absolute("https://x.vn/a", base), "https://x.vn/a");
    }
}
