//! The keyword tables of the effective scope: what a button, a link or a
//! form says it does, in English and Vietnamese.
//!
//! To extend: add a line `Phrase::new("phrase", EFFECT, "meaning in English")`
//! to the right table. Write Vietnamese with its accents ("hủy đơn"): it is
//! matched tone-aware on accented page text and folded on unaccented text
//! (ids, URLs: `huy-don`). Matching is by whole words, case-insensitive, so
//! "book" never matches "Facebook" nor "post" "postcode"; a multi-word
//! phrase also matches its run-together form (`placeorder`). When found
//! phrases overlap, the longest wins ("hủy đặt phòng" over "đặt phòng" and
//! "hủy"), which is what NEUTRAL lines are for: they only hide a shorter
//! phrase ("thêm vào giỏ" is not "mua", "đăng nhập" is not "đăng"). When
//! several phrases are found, the highest scope wins.

use crate::tools::PermissionScope;

/// What a found phrase does to the effective scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::gate) enum Effect {
    /// Raises the scope to at least this.
    Raise(PermissionScope),
    /// Raises nothing; only hides the shorter phrases inside it.
    Neutral,
    /// A bare "cancel" / "hủy": DESTRUCTIVE when it submits a form; a
    /// control that submits nothing closes a dialog or a panel, which is
    /// not destructive. ("Hủy đặt chỗ", "cancel order" are in the tables.)
    BareCancel,
    /// A bare "send" / "gửi": PUBLISH when it sends a message (no form, or
    /// a form with a comment / message field), else SUBMIT (sending an
    /// application is submitting a form).
    BareSend,
}

/// One phrase and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::gate) struct Phrase {
    pub text: &'static str,
    pub effect: Effect,
    /// What it means, in English, for the reasons shown to the user.
    pub meaning: &'static str,
}

impl Phrase {
    pub const fn new(text: &'static str, effect: Effect, meaning: &'static str) -> Phrase {
        Phrase { text, effect, meaning }
    }
}

const SUBMIT: Effect = Effect::Raise(PermissionScope::Submit);
const PUBLISH: Effect = Effect::Raise(PermissionScope::Publish);
const PAYMENT: Effect = Effect::Raise(PermissionScope::Payment);
const DESTRUCTIVE: Effect = Effect::Raise(PermissionScope::Destructive);
const NEUTRAL: Effect = Effect::Neutral;

/// What an activated control (button, link, Enter in a field) says it does,
/// read from its label, text, value, ids and classes, its link and its form.
pub(in crate::gate) static ACTIONS: &[Phrase] = &[
    // PAYMENT: costs money. "Subscribe" usually does.
    Phrase::new("pay", PAYMENT, "pay"),
    Phrase::new("pay now", PAYMENT, "pay now"),
    Phrase::new("paypal", PAYMENT, "pay with PayPal"),
    Phrase::new("buy", PAYMENT, "buy"),
    Phrase::new("buy now", PAYMENT, "buy now"),
    Phrase::new("checkout", PAYMENT, "check out"),
    Phrase::new("check out", PAYMENT, "check out"),
    Phrase::new("proceed to checkout", PAYMENT, "check out"),
    Phrase::new("place order", PAYMENT, "place an order"),
    Phrase::new("place your order", PAYMENT, "place an order"),
    Phrase::new("order now", PAYMENT, "order"),
    Phrase::new("complete order", PAYMENT, "place an order"),
    Phrase::new("pre-order", PAYMENT, "pre-order"),
    Phrase::new("purchase", PAYMENT, "buy"),
    Phrase::new("complete purchase", PAYMENT, "buy"),
    Phrase::new("book", PAYMENT, "book"),
    Phrase::new("book now", PAYMENT, "book now"),
    Phrase::new("confirm booking", PAYMENT, "book"),
    Phrase::new("complete booking", PAYMENT, "book"),
    Phrase::new("reserve", PAYMENT, "reserve"),
    Phrase::new("subscribe", PAYMENT, "subscribe (usually paid)"),
    Phrase::new("confirm payment", PAYMENT, "pay"),
    Phrase::new("add payment", PAYMENT, "add a payment method"),
    Phrase::new("proceed to payment", PAYMENT, "pay"),
    Phrase::new("donate", PAYMENT, "donate"),
    Phrase::new("top up", PAYMENT, "top up"),
    Phrase::new("upgrade", PAYMENT, "upgrade (usually paid)"),
    Phrase::new("renew", PAYMENT, "renew (usually paid)"),
    Phrase::new("send money", PAYMENT, "send money"),
    Phrase::new("transfer money", PAYMENT, "transfer money"),
    Phrase::new("thanh toán", PAYMENT, "pay"),
    Phrase::new("thanh toán ngay", PAYMENT, "pay now"),
    Phrase::new("trả tiền", PAYMENT, "pay"),
    Phrase::new("trả góp", PAYMENT, "pay in instalments"),
    Phrase::new("mua", PAYMENT, "buy"),
    Phrase::new("mua ngay", PAYMENT, "buy"),
    Phrase::new("mua hàng", PAYMENT, "buy"),
    Phrase::new("đặt mua", PAYMENT, "order"),
    Phrase::new("đặt hàng", PAYMENT, "place an order"),
    Phrase::new("chốt đơn", PAYMENT, "place an order"),
    Phrase::new("đặt vé", PAYMENT, "book a ticket"),
    Phrase::new("đặt phòng", PAYMENT, "book a room"),
    Phrase::new("đặt chỗ", PAYMENT, "book a seat"),
    Phrase::new("đặt bàn", PAYMENT, "book a table"),
    Phrase::new("đặt tour", PAYMENT, "book a tour"),
    Phrase::new("đặt ngay", PAYMENT, "book now"),
    Phrase::new("nạp tiền", PAYMENT, "top up"),
    Phrase::new("chuyển tiền", PAYMENT, "send money"),
    Phrase::new("chuyển khoản", PAYMENT, "make a bank transfer"),
    Phrase::new("gia hạn", PAYMENT, "renew (usually paid)"),
    Phrase::new("nâng cấp", PAYMENT, "upgrade (usually paid)"),
    Phrase::new("quyên góp", PAYMENT, "donate"),
    // PUBLISH: public posts, comments, messages.
    Phrase::new("post", PUBLISH, "post"),
    Phrase::new("post comment", PUBLISH, "post a comment"),
    Phrase::new("publish", PUBLISH, "publish"),
    Phrase::new("comment", PUBLISH, "comment"),
    Phrase::new("tweet", PUBLISH, "tweet"),
    Phrase::new("retweet", PUBLISH, "repost"),
    Phrase::new("repost", PUBLISH, "repost"),
    Phrase::new("share", PUBLISH, "share"),
    Phrase::new("reply", PUBLISH, "reply"),
    Phrase::new("submit review", PUBLISH, "post a review"),
    Phrase::new("post review", PUBLISH, "post a review"),
    Phrase::new("upload video", PUBLISH, "publish a video"),
    Phrase::new("go live", PUBLISH, "go live"),
    Phrase::new("send message", PUBLISH, "send a message"),
    Phrase::new("đăng", PUBLISH, "post"),
    Phrase::new("đăng bài", PUBLISH, "post"),
    Phrase::new("đăng tin", PUBLISH, "post a listing"),
    Phrase::new("đăng ảnh", PUBLISH, "post a photo"),
    Phrase::new("đăng video", PUBLISH, "post a video"),
    Phrase::new("xuất bản", PUBLISH, "publish"),
    Phrase::new("bình luận", PUBLISH, "comment"),
    Phrase::new("gửi bình luận", PUBLISH, "post a comment"),
    Phrase::new("gửi đánh giá", PUBLISH, "post a review"),
    Phrase::new("gửi tin nhắn", PUBLISH, "send a message"),
    Phrase::new("chia sẻ", PUBLISH, "share"),
    Phrase::new("phản hồi", PUBLISH, "reply"),
    Phrase::new("trả lời", PUBLISH, "reply"),
    Phrase::new("phát trực tiếp", PUBLISH, "go live"),
    // SUBMIT: sending a form or an application (not public).
    Phrase::new("submit", SUBMIT, "submit"),
    Phrase::new("send application", SUBMIT, "send an application"),
    Phrase::new("send request", SUBMIT, "send a request"),
    Phrase::new("nộp", SUBMIT, "hand in"),
    Phrase::new("nộp hồ sơ", SUBMIT, "send an application"),
    Phrase::new("nộp đơn", SUBMIT, "send an application"),
    Phrase::new("gửi hồ sơ", SUBMIT, "send an application"),
    Phrase::new("gửi đơn", SUBMIT, "send an application"),
    Phrase::new("gửi yêu cầu", SUBMIT, "send a request"),
    Phrase::new("gửi thông tin", SUBMIT, "send details"),
    Phrase::new("send", Effect::BareSend, "send"),
    Phrase::new("gửi", Effect::BareSend, "send"),
    // DESTRUCTIVE: deletes, cancels, hard to undo.
    Phrase::new("delete", DESTRUCTIVE, "delete"),
    Phrase::new("permanently delete", DESTRUCTIVE, "delete for good"),
    Phrase::new("remove", DESTRUCTIVE, "remove"),
    Phrase::new("discard", DESTRUCTIVE, "discard"),
    Phrase::new("cancel booking", DESTRUCTIVE, "cancel a booking"),
    Phrase::new("cancel reservation", DESTRUCTIVE, "cancel a booking"),
    Phrase::new("cancel order", DESTRUCTIVE, "cancel an order"),
    Phrase::new("cancel subscription", DESTRUCTIVE, "cancel a subscription"),
    Phrase::new("cancel membership", DESTRUCTIVE, "cancel a membership"),
    Phrase::new("cancel plan", DESTRUCTIVE, "cancel a plan"),
    Phrase::new("cancel trip", DESTRUCTIVE, "cancel a trip"),
    Phrase::new("cancel flight", DESTRUCTIVE, "cancel a flight"),
    Phrase::new("unsubscribe", DESTRUCTIVE, "unsubscribe"),
    Phrase::new("close account", DESTRUCTIVE, "close an account"),
    Phrase::new("deactivate", DESTRUCTIVE, "deactivate"),
    Phrase::new("empty cart", DESTRUCTIVE, "empty the cart"),
    Phrase::new("empty trash", DESTRUCTIVE, "empty the trash"),
    Phrase::new("revoke", DESTRUCTIVE, "revoke"),
    Phrase::new("uninstall", DESTRUCTIVE, "uninstall"),
    Phrase::new("hide comment", DESTRUCTIVE, "hide a comment"),
    Phrase::new("block user", DESTRUCTIVE, "block someone"),
    Phrase::new("block account", DESTRUCTIVE, "block someone"),
    Phrase::new("xóa", DESTRUCTIVE, "delete"),
    Phrase::new("ẩn bình luận", DESTRUCTIVE, "hide a comment"),
    Phrase::new("chặn", DESTRUCTIVE, "block someone"),
    Phrase::new("chặn người dùng", DESTRUCTIVE, "block someone"),
    Phrase::new("xóa vĩnh viễn", DESTRUCTIVE, "delete for good"),
    Phrase::new("xóa tài khoản", DESTRUCTIVE, "delete the account"),
    Phrase::new("hủy đơn", DESTRUCTIVE, "cancel an order"),
    Phrase::new("hủy đơn hàng", DESTRUCTIVE, "cancel an order"),
    Phrase::new("hủy vé", DESTRUCTIVE, "cancel a ticket"),
    Phrase::new("hủy đặt chỗ", DESTRUCTIVE, "cancel a booking"),
    Phrase::new("hủy đặt phòng", DESTRUCTIVE, "cancel a room booking"),
    Phrase::new("hủy đặt vé", DESTRUCTIVE, "cancel a ticket booking"),
    Phrase::new("hủy đặt bàn", DESTRUCTIVE, "cancel a table booking"),
    Phrase::new("hủy chuyến", DESTRUCTIVE, "cancel a trip"),
    Phrase::new("hủy gói", DESTRUCTIVE, "cancel a plan"),
    Phrase::new("hủy đăng ký", DESTRUCTIVE, "unsubscribe"),
    Phrase::new("bỏ đăng ký", DESTRUCTIVE, "unsubscribe"),
    Phrase::new("gỡ", DESTRUCTIVE, "remove"),
    Phrase::new("gỡ bỏ", DESTRUCTIVE, "remove"),
    Phrase::new("vô hiệu hóa", DESTRUCTIVE, "deactivate"),
    Phrase::new("khóa tài khoản", DESTRUCTIVE, "lock the account"),
    Phrase::new("đóng tài khoản", DESTRUCTIVE, "close the account"),
    Phrase::new("cancel", Effect::BareCancel, "cancel"),
    Phrase::new("hủy", Effect::BareCancel, "cancel"),
    Phrase::new("hủy bỏ", Effect::BareCancel, "cancel"),
    // NEUTRAL: hide a shorter phrase that would mislead.
    Phrase::new("add to cart", NEUTRAL, "add to the cart"),
    Phrase::new("add to bag", NEUTRAL, "add to the cart"),
    Phrase::new("add to basket", NEUTRAL, "add to the cart"),
    Phrase::new("thêm vào giỏ", NEUTRAL, "add to the cart"),
    Phrase::new("thêm vào giỏ hàng", NEUTRAL, "add to the cart"),
    Phrase::new("cho vào giỏ", NEUTRAL, "add to the cart"),
    Phrase::new("mua sắm", NEUTRAL, "shopping"),
    Phrase::new("mua kèm", NEUTRAL, "bought together"),
    Phrase::new("đăng nhập", NEUTRAL, "log in"),
    Phrase::new("đăng xuất", NEUTRAL, "log out"),
    Phrase::new("đăng ký", NEUTRAL, "sign up"),
    Phrase::new("gửi xe", NEUTRAL, "parking"),
    Phrase::new("e-book", NEUTRAL, "e-book"),
    Phrase::new("post code", NEUTRAL, "postcode"),
    Phrase::new("post office", NEUTRAL, "post office"),
    Phrase::new("remove filter", NEUTRAL, "clear a filter"),
    Phrase::new("remove filters", NEUTRAL, "clear filters"),
    Phrase::new("xóa bộ lọc", NEUTRAL, "clear filters"),
    Phrase::new("xóa lọc", NEUTRAL, "clear filters"),
];

/// Form fields that make a form a payment form (matched on the field's
/// name and label).
pub(in crate::gate) static CARD_FIELDS: &[Phrase] = &[
    Phrase::new("card number", PAYMENT, "a card number"),
    Phrase::new("cc number", PAYMENT, "a card number"),
    Phrase::new("credit card", PAYMENT, "a card number"),
    Phrase::new("cvv", PAYMENT, "a card security code"),
    Phrase::new("cvc", PAYMENT, "a card security code"),
    Phrase::new("số thẻ", PAYMENT, "a card number"),
];

/// Form fields that make a bare "send" / "gửi" a message (PUBLISH).
pub(in crate::gate) static MESSAGE_FIELDS: &[Phrase] = &[
    Phrase::new("comment", PUBLISH, "a comment"),
    Phrase::new("message", PUBLISH, "a message"),
    Phrase::new("content", PUBLISH, "a message"),
    Phrase::new("body", PUBLISH, "a message"),
    Phrase::new("review", PUBLISH, "a review"),
    Phrase::new("reply", PUBLISH, "a reply"),
    Phrase::new("post", PUBLISH, "a post"),
    Phrase::new("bình luận", PUBLISH, "a comment"),
    Phrase::new("nội dung", PUBLISH, "a message"),
    Phrase::new("tin nhắn", PUBLISH, "a message"),
    Phrase::new("lời nhắn", PUBLISH, "a message"),
    Phrase::new("đánh giá", PUBLISH, "a review"),
    Phrase::new("phản hồi", PUBLISH, "a reply"),
    Phrase::new("trả lời", PUBLISH, "a reply"),
    Phrase::new("ý kiến", PUBLISH, "a comment"),
];

/// Text fields for a one-time code or a CAPTCHA answer, when the page facts
/// did not already flag them (matched on label, id and name).
pub(in crate::gate) static CHALLENGE_FIELDS: &[Phrase] = &[
    Phrase::new("otp", NEUTRAL, "a one-time code"),
    Phrase::new("one time code", NEUTRAL, "a one-time code"),
    Phrase::new("one time password", NEUTRAL, "a one-time code"),
    Phrase::new("2fa", NEUTRAL, "a two-factor code"),
    Phrase::new("two factor", NEUTRAL, "a two-factor code"),
    Phrase::new("verification code", NEUTRAL, "a verification code"),
    Phrase::new("authentication code", NEUTRAL, "a verification code"),
    Phrase::new("captcha", NEUTRAL, "a CAPTCHA answer"),
    Phrase::new("recaptcha", NEUTRAL, "a CAPTCHA answer"),
    Phrase::new("hcaptcha", NEUTRAL, "a CAPTCHA answer"),
    Phrase::new("mã xác thực", NEUTRAL, "a verification code"),
    Phrase::new("mã xác minh", NEUTRAL, "a verification code"),
    Phrase::new("mã xác nhận", NEUTRAL, "a verification code"),
];

/// Hosts that serve CAPTCHA widgets in frames (a subdomain counts).
/// Google's reCAPTCHA lives under `google.com/recaptcha`, checked apart.
pub(in crate::gate) static CAPTCHA_HOSTS: &[&str] =
    &["recaptcha.net", "hcaptcha.com", "challenges.cloudflare.com", "arkoselabs.com", "funcaptcha.com", "geetest.com"];

/// Query parameters whose value names the action a URL performs
/// (`?action=delete`); other query values (search terms) are not read.
pub(in crate::gate) static ACTION_PARAMS: &[&str] = &["action", "act", "do", "op", "cmd", "method", "_method", "task"];
