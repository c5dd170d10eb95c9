//! The fixture web server: serves the hand-written test sites in
//! `tests/fixtures/site/` plus a few generated routes, on two loopback
//! origins, and records every request so tests can assert what was sent.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Extension, FromRequest, Multipart, Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{any, get, post};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// Bodies larger than this are refused (uploads in tests are small).
const MAX_BODY: usize = 64 * 1024 * 1024;
/// `/slow` and `/slow-img` never wait longer than this.
const MAX_DELAY_MS: u64 = 30_000;
/// `/catalogue` never renders more rows than this.
const MAX_ROWS: usize = 20_000;

/// The CSV served by `/export.csv`, byte for byte.
pub const EXPORT_CSV: &str = "ma_don,san_pham,so_luong,don_gia,trang_thai\n\
DH24001,Laptop ASUS Vivobook 15 OLED,1,21490000,Đã giao\n\
DH24002,Chuột Logitech MX Master 3S,2,2490000,Đang vận chuyển\n\
DH24003,Tai nghe Sony WH-1000XM5,1,8990000,Đã hủy\n";

/// The marker word of each hidden-text variant in `hidden.html`; none of
/// them should reach the model as visible text.
pub const HIDDEN_MARKERS: &[&str] = &[
    "HIDDEN_DISPLAY",
    "HIDDEN_VISIBILITY",
    "HIDDEN_WHITE",
    "HIDDEN_FONT0",
    "HIDDEN_OPACITY",
    "HIDDEN_ARIA",
    "HIDDEN_OFFSCREEN",
    "HIDDEN_CLIP",
    "HIDDEN_ATTR",
    "HIDDEN_COMMENT",
    "HIDDEN_TEMPLATE",
    "HIDDEN_NOSCRIPT",
];

/// Which of the two listeners a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    #[default]
    Main,
    Other,
}

/// One uploaded file of a multipart POST.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UploadedFile {
    pub field: String,
    pub file_name: String,
    pub size: usize,
    pub content_type: Option<String>,
    /// Lowercase hex.
    pub sha256: String,
}

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recorded {
    pub host: Host,
    pub method: String,
    /// The URL path, still percent-encoded (`/search`).
    pub path: String,
    /// The raw query string without `?` (`q=laptop%20gaming`).
    pub query: Option<String>,
    pub referer: Option<String>,
    /// The media type without parameters (the multipart boundary is random).
    pub content_type: Option<String>,
    /// Form fields in order, from urlencoded and multipart bodies (not files).
    pub form: Vec<(String, String)>,
    pub files: Vec<UploadedFile>,
    /// Any other non-empty body, as lossy UTF-8 (JSON, text, beacons).
    pub body: Option<String>,
    /// The `X-Subscription-Token` header (the Brave Search API's key).
    pub subscription_token: Option<String>,
}

impl Recorded {
    /// The query string decoded into pairs.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let q = self.query.as_deref().unwrap_or("");
        url::form_urlencoded::parse(q.as_bytes()).into_owned().collect()
    }

    /// The first form field called `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// One generated row of `/catalogue` (row ids start at 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueRow {
    pub id: usize,
    pub name: String,
    pub brand: &'static str,
    /// VND.
    pub price: u64,
    pub in_stock: bool,
}

const CATEGORIES: [&str; 6] =
    ["Laptop Gaming", "Laptop Văn phòng", "Điện thoại", "Máy tính bảng", "Màn hình", "Tai nghe"];
const BRANDS: [&str; 6] = ["ASUS", "Acer", "Dell", "HP", "Lenovo", "MSI"];

/// Row `id` of the catalogue, as the page renders it.
pub fn catalogue_row(id: usize) -> CatalogueRow {
    let brand = BRANDS[(id / 6) % BRANDS.len()];
    CatalogueRow {
        id,
        name: format!("{} {} {}", CATEGORIES[id % CATEGORIES.len()], brand, 100 + id),
        brand,
        price: 5_000_000 + ((id as u64 * 7_919) % 40_000) * 1_000,
        in_stock: !id.is_multiple_of(7),
    }
}

/// `21490000` -> `21.490.000 ₫`, the way Vietnamese shops print prices.
pub fn format_vnd(amount: u64) -> String {
    let digits = amount.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('.');
        }
        out.push(c);
    }
    out + " ₫"
}

/// `tests/fixtures/site/` of the repository (also from the desktop crate's
/// tests, which include this file from `src-tauri/`).
pub fn site_dir() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = here.join("tests/fixtures/site");
    if site.is_dir() { site } else { here.join("../tests/fixtures/site") }
}

type Log = Arc<Mutex<Vec<Recorded>>>;

/// What a watched page (`/watched/{name}`) shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageKind {
    /// A VND product page with JSON-LD.
    #[default]
    Product,
    /// Two products (JSON-LD for both, boxes `#p1` and `#p2`); `#p1` is
    /// `price`, `#p2` is 5.000.000 ₫ more.
    Multi,
    /// The price is written by a script: nothing in the HTML.
    Script,
    /// A flight status page: `Status` and `Gate` rows.
    Trip,
}

/// A page tests change at runtime (`FixtureServer::set_page`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WatchedPage {
    pub kind: PageKind,
    pub name: String,
    /// VND.
    pub price: u64,
    pub in_stock: bool,
    pub status: String,
    pub gate: String,
    /// Answer 404.
    pub gone: bool,
    /// Wait this long before answering (a slow shop).
    pub delay_ms: u64,
    /// A product's shipping fee (VND) and coupon, shown when set.
    pub shipping: Option<u64>,
    pub coupon: Option<String>,
    /// Other things on the product page say "unavailable": its chat widget, its
    /// pickup at a store, one of its sizes.
    pub unavailable_elsewhere: bool,
    /// What the page's structured offer says when it is not `in_stock` (a stale offer).
    pub offer_in_stock: Option<bool>,
}

type Pages = Arc<Mutex<std::collections::HashMap<String, WatchedPage>>>;
/// Whole pages a test writes (`/page/{name}`, `FixtureServer::set_html`).
type Htmls = Arc<Mutex<std::collections::HashMap<String, String>>>;

fn lock(log: &Log) -> MutexGuard<'_, Vec<Recorded>> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running fixture server; stops when dropped.
pub struct FixtureServer {
    main: SocketAddr,
    other: SocketAddr,
    log: Log,
    pages: Pages,
    htmls: Htmls,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FixtureServer {
    /// Bind two listeners on 127.0.0.1 (free ports) and serve on a thread
    /// with its own tokio runtime. Usable from plain and async tests.
    pub fn start() -> FixtureServer {
        let bind = || {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind fixture listener");
            l.set_nonblocking(true).expect("nonblocking listener");
            l
        };
        let (main_l, other_l) = (bind(), bind());
        let main = main_l.local_addr().expect("local addr");
        let other = other_l.local_addr().expect("local addr");
        let log = Log::default();
        let pages = Pages::default();
        let htmls = Htmls::default();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = |host| {
            router(App {
                host,
                main: format!("http://{main}"),
                other: format!("http://{other}"),
                log: log.clone(),
                pages: pages.clone(),
                htmls: htmls.clone(),
            })
        };
        let (main_app, other_app) = (app(Host::Main), app(Host::Other));
        let thread = std::thread::Builder::new()
            .name("fixture-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("fixture runtime");
                rt.block_on(async move {
                    for (l, app) in [(main_l, main_app), (other_l, other_app)] {
                        let l = tokio::net::TcpListener::from_std(l).expect("tokio listener");
                        tokio::spawn(async move { axum::serve(l, app).await });
                    }
                    let _ = stopped.await;
                });
                // Dropping the runtime cancels in-flight requests (e.g. /slow).
                rt.shutdown_background();
            })
            .expect("spawn fixture server");
        FixtureServer { main, other, log, pages, htmls, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.main)
    }

    /// The second origin (another port, so cross-origin but same-site),
    /// serving the same routes.
    pub fn other_origin(&self) -> String {
        format!("http://{}", self.other)
    }

    /// `url("shop-vn.html")` or `url("/shop-vn.html")` on the main origin.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.origin(), path.trim_start_matches('/'))
    }

    /// Like `url`, on the other origin.
    pub fn other_url(&self, path: &str) -> String {
        format!("{}/{}", self.other_origin(), path.trim_start_matches('/'))
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.log).clone()
    }

    /// Only the POSTs.
    pub fn posts(&self) -> Vec<Recorded> {
        lock(&self.log).iter().filter(|r| r.method == "POST").cloned().collect()
    }

    /// How many requests (any method, either origin) hit `path`
    /// (leading slash optional, query ignored).
    pub fn hits(&self, path: &str) -> usize {
        let path = format!("/{}", path.trim_start_matches('/'));
        lock(&self.log).iter().filter(|r| r.path == path).count()
    }

    /// Serve `page` at `/watched/{name}` from now on (replacing what was there).
    pub fn set_page(&self, name: &str, page: WatchedPage) {
        self.pages.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_owned(), page);
    }

    /// Change the page at `/watched/{name}` in place.
    pub fn change_page(&self, name: &str, change: impl FnOnce(&mut WatchedPage)) {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        change(pages.entry(name.to_owned()).or_default());
    }

    /// Serve `html` at `/page/{name}` from now on (replacing what was there).
    pub fn set_html(&self, name: &str, html: &str) {
        self.htmls.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_owned(), html.to_owned());
    }

    /// Forget what was recorded.
    pub fn clear(&self) {
        lock(&self.log).clear();
    }

    /// Wait until a request to `path` arrives (polling), returning the first.
    pub fn wait_for(&self, path: &str, timeout: Duration) -> Option<Recorded> {
        let path = format!("/{}", path.trim_start_matches('/'));
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(r) = lock(&self.log).iter().find(|r| r.path == path) {
                return Some(r.clone());
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[derive(Clone)]
struct App {
    host: Host,
    main: String,
    other: String,
    log: Log,
    pages: Pages,
    htmls: Htmls,
}

/// The parsed form of the current request, for handlers that echo it.
#[derive(Clone, Default)]
struct Posted {
    form: Vec<(String, String)>,
    files: Vec<UploadedFile>,
}

fn router(app: App) -> Router {
    Router::new()
        .route("/submit", post(|p: Extension<Posted>| async move { received("Đã nhận hồ sơ", &p) }))
        .route("/checkout", post(|p: Extension<Posted>| async move { received("Đặt hàng thành công", &p) }))
        .route("/order", post(|p: Extension<Posted>| async move { received("Đặt hàng thành công", &p) }))
        .route("/login", post(|| async { Redirect::to("/account.html") }))
        .route("/shop/{shop}/cart", post(|| async { axum::Json(serde_json::json!({"ok": true})) }))
        .route("/shop/{shop}/order", post(shop_order))
        // The creator fixtures: a comment's reply, hide, delete, block.
        .route(
            "/creator/comments/{id}/{action}",
            post(|p: Extension<Posted>| async move { received("Đã ghi nhận", &p) }),
        )
        .route("/creator/thread/{n}", get(thread))
        .route("/creator/studio/draft", post(studio_draft))
        .route("/creator/studio/publish", post(|p: Extension<Posted>| async move { received("Đã lên lịch", &p) }))
        .route("/search", get(search))
        .route("/catalogue", get(catalogue))
        .route("/export.csv", get(export_csv))
        .route("/slow", get(slow))
        .route("/slow-img", get(slow_img))
        .route("/status/{code}", get(status))
        .route("/redirect", get(redirect))
        .route("/collect", any(collect))
        .route("/cross-frame", get(cross_frame))
        .route("/watched/{name}", get(watched))
        .route("/page/{name}", get(written))
        .route("/searxng/search", get(searxng))
        .route("/searxng-down/search", get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "upstream error") }))
        .route("/brave/res/v1/web/search", get(brave))
        .fallback(static_file)
        .layer(middleware::from_fn_with_state(app.clone(), record))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// Record the request (parsing form bodies), then serve it uncached.
async fn record(State(app): State<App>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response();
    };
    let value = |name| parts.headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).map(str::to_owned);
    let raw_type = value(header::CONTENT_TYPE).unwrap_or_default();
    let content_type =
        value(header::CONTENT_TYPE).map(|t| t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    let mut posted = Posted::default();
    let mut text = None;
    if !bytes.is_empty() {
        match content_type.as_deref() {
            Some("application/x-www-form-urlencoded") => {
                posted.form = url::form_urlencoded::parse(&bytes).into_owned().collect();
            }
            Some("multipart/form-data") => {
                let mut probe = Request::new(Body::from(bytes.clone()));
                *probe.extensions_mut() = parts.extensions.clone();
                if let Some(v) = parts.headers.get(header::CONTENT_TYPE) {
                    probe.headers_mut().insert(header::CONTENT_TYPE, v.clone());
                }
                match parse_multipart(probe).await {
                    Ok(p) => posted = p,
                    Err(e) => text = Some(format!("<unparsable multipart ({raw_type}): {e}>")),
                }
            }
            _ => text = Some(String::from_utf8_lossy(&bytes).into_owned()),
        }
    }
    lock(&app.log).push(Recorded {
        host: app.host,
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        referer: value(header::REFERER),
        content_type,
        form: posted.form.clone(),
        files: posted.files.clone(),
        body: text,
        subscription_token: value(header::HeaderName::from_static("x-subscription-token")),
    });
    let mut req = Request::from_parts(parts, Body::from(bytes));
    req.extensions_mut().insert(posted);
    let mut res = next.run(req).await;
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

async fn parse_multipart(req: Request) -> Result<Posted, String> {
    let mut mp = Multipart::from_request(req, &()).await.map_err(|e| e.body_text())?;
    let mut posted = Posted::default();
    while let Some(field) = mp.next_field().await.map_err(|e| e.body_text())? {
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let content_type = field.content_type().map(str::to_owned);
        let data = field.bytes().await.map_err(|e| e.body_text())?;
        match file_name {
            Some(file_name) => posted.files.push(UploadedFile {
                field: name,
                file_name,
                size: data.len(),
                content_type,
                sha256: hex::encode(Sha256::digest(&data)),
            }),
            None => posted.form.push((name, String::from_utf8_lossy(&data).into_owned())),
        }
    }
    Ok(posted)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A small generated page in the same style as the static ones.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"vi\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/css/site.css\">\n</head>\n\
         <body>\n<header class=\"site-header\"><a class=\"logo\" href=\"/\">TechZone</a></header>\n\
         <main class=\"container\">\n{body}\n</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// The answer to a form POST: names of the fields and files, never values.
fn received(title: &str, p: &Posted) -> Html<String> {
    let fields: String = p.form.iter().map(|(k, _)| format!("<li class=\"field\">{}</li>", escape(k))).collect();
    let files: String = p
        .files
        .iter()
        .map(|f| format!("<li class=\"file\">{}: {} ({} bytes)</li>", escape(&f.field), escape(&f.file_name), f.size))
        .collect();
    Html(page(
        title,
        &format!(
            "<h1>{}</h1>\n<p>Các trường đã nhận:</p>\n<ul id=\"fields\">{fields}</ul>\n\
             <p>Tệp đính kèm:</p>\n<ul id=\"files\">{files}</ul>\n<a href=\"/\">Về trang chủ</a>",
            escape(title)
        ),
    ))
}

/// The fixture shops' order: the payment page, where a checkout stops
/// (`tests/fixtures/site/shop/`). Names of the fields received, never values.
async fn shop_order(UrlPath(shop): UrlPath<String>, p: Extension<Posted>) -> Html<String> {
    let fields: String = p.form.iter().map(|(k, _)| format!("<li class=\"field\">{}</li>", escape(k))).collect();
    let (title, card) =
        if shop == "vn" { ("Thanh toán đơn hàng", "Số thẻ") } else { ("Payment", "Card number") };
    Html(page(
        title,
        &format!(
            "<h1>{title}</h1>\n<ul id=\"fields\">{fields}</ul>\n<form method=\"post\" action=\"/submit\">\
             <label for=\"card\">{card}</label><input id=\"card\" name=\"cardnumber\"></form>"
        ),
    ))
}

#[derive(Deserialize)]
struct Q {
    q: Option<String>,
}

/// One comment of a creator fixture thread: (id, author, lang, text).
pub type FixtureComment = (&'static str, &'static str, &'static str, &'static str);

/// The comments of the creator fixtures' two videos.
pub const THREADS: [(&str, &[FixtureComment]); 2] = [
    (
        "Trình duyệt AI làm được gì?",
        &[
            ("c1", "Lan Nguyễn", "vi", "Cho mình hỏi video này dùng micro gì vậy ạ?"),
            ("c2", "Minh Trần", "vi", "Video hay quá, cảm ơn anh nhiều!"),
            ("c3", "Sarah K.", "en", "The audio is out of sync after minute 5, really annoying."),
            ("c4", "kiemtien247", "vi", "Kiếm 5 triệu mỗi ngày tại nhà, inbox ngay link bio!!!"),
        ],
    ),
    (
        "Build in public: tuần 12",
        &[
            ("c5", "Tom", "en", "Which framework did you use for the side panel?"),
            ("c6", "anon_77", "vi", "Đồ ngu, nội dung rác."),
        ],
    ),
];

/// `/creator/thread/{1|2}`: a video's comments, each with a reply box and
/// hide / delete / block buttons posting to `/creator/comments/{id}/{action}`.
async fn thread(UrlPath(n): UrlPath<usize>) -> Response {
    let Some((video, comments)) = n.checked_sub(1).and_then(|i| THREADS.get(i)) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut body = format!("<h1>Bình luận: {}</h1>\n<section id=\"comments\">\n", escape(video));
    for (id, author, lang, text) in *comments {
        let button = |action: &str, label: &str| {
            format!(
                "<form method=\"post\" action=\"/creator/comments/{id}/{action}\"><button type=\"submit\" \
                 data-action=\"{action}\">{label}</button></form>"
            )
        };
        body.push_str(&format!(
            "<article class=\"comment\" data-comment-id=\"{id}\" lang=\"{lang}\">\n\
             <header><span class=\"author\">{}</span> · <time>2 giờ trước</time></header>\n<p class=\"text\">{}</p>\n\
             <form class=\"reply-form\" method=\"post\" action=\"/creator/comments/{id}/reply\">\
             <label>Phản hồi của bạn <textarea name=\"reply\" rows=\"2\"></textarea></label>\
             <button type=\"submit\" data-action=\"reply\">Trả lời</button></form>\n\
             <div class=\"moderation\">{}{}{}</div>\n</article>\n",
            escape(author),
            escape(text),
            button("hide", "Ẩn bình luận"),
            button("delete", "Xóa bình luận"),
            button("block", "Chặn người dùng"),
        ));
    }
    body.push_str("</section>");
    Html(page(&format!("{video} | Studio bình luận"), &body)).into_response()
}

/// The studio's saved draft: its link and the publish form.
async fn studio_draft(Extension(p): Extension<Posted>) -> Html<String> {
    let title = escape(p.form.iter().find(|(k, _)| k == "title").map_or("", |(_, v)| v.as_str()));
    let files: String = p.files.iter().map(|f| format!("<li class=\"file\">{}</li>", escape(&f.file_name))).collect();
    Html(page(
        "Bản nháp đã lưu",
        &format!(
            "<h1>Bản nháp đã lưu</h1>\n<p><a id=\"draft-link\" href=\"/creator/studio/drafts/d-1\">{title}</a></p>\n\
             <ul id=\"media\">{files}</ul>\n\
             <form id=\"publish-form\" method=\"post\" action=\"/creator/studio/publish\">\n\
             <input type=\"hidden\" name=\"draft_id\" value=\"d-1\">\n\
             <label>Chế độ hiển thị <select name=\"visibility\"><option value=\"private\">Riêng tư</option>\
             <option value=\"unlisted\">Không công khai</option><option value=\"public\">Công khai</option></select></label>\n\
             <label>Thời gian (ISO 8601) <input type=\"text\" name=\"publish_at\"></label>\n\
             <button type=\"submit\" data-action=\"publish\">Xuất bản</button>\n</form>"
        ),
    ))
}

async fn search(Query(Q { q }): Query<Q>) -> Html<String> {
    let q = escape(&q.unwrap_or_default());
    Html(page(
        "Kết quả tìm kiếm",
        &format!(
            "<h1>Kết quả tìm kiếm cho “<span id=\"query\">{q}</span>”</h1>\n<ul class=\"results\">\n\
             <li><a href=\"/shop-vn.html\">Laptop ASUS Vivobook 15 OLED</a> <span class=\"price\">21.490.000 ₫</span></li>\n\
             <li><a href=\"/catalogue?rows=50\">Xem toàn bộ danh mục</a></li>\n</ul>"
        ),
    ))
}

#[derive(Deserialize)]
struct Rows {
    rows: Option<usize>,
}

async fn catalogue(Query(Rows { rows }): Query<Rows>) -> Html<String> {
    let rows = rows.unwrap_or(3000).min(MAX_ROWS);
    let mut html = String::with_capacity(rows * 420 + 4096);
    html.push_str(
        "<h1>Danh mục sản phẩm</h1>\n<div class=\"cart-count\">Giỏ hàng (<span id=\"cart-count\">0</span>)</div>\n\
         <form class=\"filters\" onsubmit=\"return false\">\n\
         <label>Tìm kiếm <input type=\"search\" id=\"q\" name=\"q\" placeholder=\"Tìm theo tên sản phẩm\"></label>\n\
         <label>Hãng <select id=\"brand\" name=\"brand\"><option value=\"\">Tất cả hãng</option>",
    );
    for b in BRANDS {
        html.push_str(&format!("<option value=\"{b}\">{b}</option>"));
    }
    html.push_str(
        "</select></label>\n<label><input type=\"checkbox\" id=\"in-stock\" name=\"in_stock\"> Chỉ hiện hàng còn</label>\n\
         </form>\n<table class=\"catalogue\">\n<thead><tr><th>Mã</th><th>Tên sản phẩm</th><th>Hãng</th><th>Giá</th>\
         <th>Tình trạng</th><th></th><th></th></tr></thead>\n<tbody>\n",
    );
    for id in 1..=rows {
        let r = catalogue_row(id);
        html.push_str(&format!(
            "<tr data-id=\"{id}\" data-brand=\"{}\" data-stock=\"{}\"><td>{id}</td><td class=\"name\">{}</td><td>{}</td>\
             <td class=\"price\">{}</td><td>{}</td><td><a href=\"/shop-vn.html?id={id}\">Xem</a></td>\
             <td><button type=\"button\" class=\"add\" data-id=\"{id}\">Thêm</button></td></tr>\n",
            r.brand,
            r.in_stock,
            r.name,
            r.brand,
            format_vnd(r.price),
            if r.in_stock { "Còn hàng" } else { "Hết hàng" },
        ));
    }
    html.push_str("</tbody>\n</table>\n<script src=\"/js/catalogue.js\"></script>");
    Html(page("Danh mục sản phẩm - TechZone", &html))
}

async fn export_csv() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"export.csv\""),
        ],
        EXPORT_CSV,
    )
        .into_response()
}

#[derive(Deserialize)]
struct Delay {
    ms: Option<u64>,
}

async fn slow(Query(Delay { ms }): Query<Delay>) -> Html<String> {
    let ms = ms.unwrap_or(1000).min(MAX_DELAY_MS);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Html(page("Trang tải chậm", &format!("<h1>Trang tải chậm</h1>\n<p id=\"waited\">Đã chờ {ms} ms</p>")))
}

async fn slow_img(Query(Delay { ms }): Query<Delay>) -> Response {
    let ms = ms.unwrap_or(3000).min(MAX_DELAY_MS);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    match tokio::fs::read(site_dir().join("img/laptop.png")).await {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A product page's shipping fee and coupon, when set.
fn extras(p: &WatchedPage) -> String {
    let mut out = String::new();
    if let Some(fee) = p.shipping {
        out.push_str(&format!("\n<dl><dt>Phí vận chuyển</dt><dd>{}</dd></dl>", format_vnd(fee)));
    }
    if let Some(code) = &p.coupon {
        out.push_str(&format!("\n<dl><dt>Coupon</dt><dd>{}</dd></dl>", escape(code)));
    }
    if p.unavailable_elsewhere {
        out.push_str(concat!(
            "\n<div class=\"variant-picker\"><label>Kích thước</label><ul><li>S</li><li>M</li>",
            "<li class=\"disabled\">XL — Unavailable to select</li></ul></div>",
            "\n<p class=\"pickup\">Hết hàng tại cửa hàng Quận 1</p>",
            "\n<div id=\"live-chat\" class=\"chat-widget\"><p>Chat is unavailable</p></div>"
        ));
    }
    out
}

async fn watched(State(app): State<App>, UrlPath(name): UrlPath<String>) -> Response {
    let found = app.pages.lock().unwrap_or_else(|e| e.into_inner()).get(&name).cloned();
    if let Some(delay) = found.as_ref().map(|p| p.delay_ms.min(MAX_DELAY_MS)).filter(|d| *d > 0) {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let Some(p) = found.filter(|p| !p.gone) else {
        return (StatusCode::NOT_FOUND, Html(page("Không tìm thấy trang", "<h1>404</h1>"))).into_response();
    };
    let stock = if p.offer_in_stock.unwrap_or(p.in_stock) { "InStock" } else { "OutOfStock" };
    let stock_text = if p.in_stock { "Còn hàng" } else { "Hết hàng" };
    let ld = |name: &str, price: u64| {
        format!(
            r#"{{"@context":"https://schema.org","@type":"Product","name":"{name}","offers":{{"@type":"Offer","price":"{price}","priceCurrency":"VND","availability":"https://schema.org/{stock}"}}}}"#
        )
    };
    let name = escape(&p.name);
    let html = match p.kind {
        PageKind::Product => format!(
            r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>{name} | Shop</title>
<script type="application/ld+json">{}</script></head>
<body><h1>{name}</h1><div class="price">{}</div><p class="stock">{stock_text}</p>{}</body></html>"#,
            ld(&name, p.price),
            format_vnd(p.price),
            extras(&p)
        ),
        PageKind::Multi => format!(
            r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>So sánh | Shop</title>
<script type="application/ld+json">[{}, {}]</script></head>
<body><div class="product" id="p1"><h2>{name}</h2><span class="price">{}</span></div>
<div class="product" id="p2"><h2>Phụ kiện</h2><span class="price">{}</span></div></body></html>"#,
            ld(&name, p.price),
            ld("Phụ kiện", p.price + 5_000_000),
            format_vnd(p.price),
            format_vnd(p.price + 5_000_000)
        ),
        PageKind::Script => format!(
            r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>{name} | Shop</title></head>
<body><h1>{name}</h1><div class="price" id="price"></div>
<script>document.getElementById('price').textContent = {:?};</script></body></html>"#,
            format_vnd(p.price)
        ),
        PageKind::Trip => format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Flight {name}</title></head>
<body><h1>Flight {name}</h1><table><tr><th>Status</th><td>{}</td></tr><tr><th>Gate</th><td>{}</td></tr></table></body></html>"#,
            escape(&p.status),
            escape(&p.gate)
        ),
    };
    Html(html).into_response()
}

async fn written(State(app): State<App>, UrlPath(name): UrlPath<String>) -> Response {
    let found = app.htmls.lock().unwrap_or_else(|e| e.into_inner()).get(&name).cloned();
    match found {
        Some(html) => Html(html).into_response(),
        None => (StatusCode::NOT_FOUND, Html(page("Không tìm thấy trang", "<h1>404</h1>"))).into_response(),
    }
}

async fn status(UrlPath(code): UrlPath<u16>) -> Response {
    let Ok(code) = StatusCode::from_u16(code) else { return StatusCode::BAD_REQUEST.into_response() };
    let title = match code.as_u16() {
        404 => "Không tìm thấy trang",
        500 => "Lỗi máy chủ",
        _ => code.canonical_reason().unwrap_or("Trạng thái"),
    };
    let body = format!("<h1>{} {}</h1>\n<p class=\"error\">{title}</p>", code.as_u16(), escape(title));
    (code, Html(page(title, &body))).into_response()
}

#[derive(Deserialize)]
struct To {
    to: String,
}

/// `/redirect?to=/path`: a 302 to a same-origin path.
async fn redirect(Query(To { to }): Query<To>) -> Response {
    if !to.starts_with('/') || to.starts_with("//") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    Redirect::temporary(&to).into_response()
}

/// A sink for cross-origin posts (exfiltration tests): 204 with open CORS.
async fn collect() -> Response {
    (
        StatusCode::NO_CONTENT,
        [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS"),
            (header::ACCESS_CONTROL_ALLOW_HEADERS, "*"),
        ],
    )
        .into_response()
}

/// A page embedding `frame-inner.html` from the other origin.
async fn cross_frame(State(app): State<App>) -> Html<String> {
    let there = if app.host == Host::Main { &app.other } else { &app.main };
    Html(page(
        "Khung khác nguồn",
        &format!(
            "<h1>Khung khác nguồn</h1>\n<p>Nội dung trang chính.</p>\n\
             <iframe id=\"cross\" title=\"Khung thanh toán\" src=\"{there}/frame-inner.html\" width=\"480\" height=\"200\"></iframe>"
        ),
    ))
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// Files of `site/`; `/` is `index.html`, `/x` may be `x.html`, and
/// everything under `/files/` is an attachment.
async fn static_file(method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let rel = uri.path().trim_start_matches('/');
    if rel.split('/').any(|seg| seg == ".." || seg.contains('\\')) {
        return StatusCode::BAD_REQUEST.into_response();
    }
    let mut file = site_dir().join(if rel.is_empty() { "index.html" } else { rel });
    if file.is_dir() {
        file = file.join("index.html");
    } else if !file.is_file() && file.extension().is_none() {
        file.set_extension("html");
    }
    let Ok(bytes) = tokio::fs::read(&file).await else {
        let body = page("Không tìm thấy trang", "<h1>404</h1>\n<p class=\"error\">Không tìm thấy trang</p>");
        return (StatusCode::NOT_FOUND, Html(body)).into_response();
    };
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime(&file)));
    if rel.starts_with("files/") {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("download");
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
    }
    (headers, Bytes::from(bytes)).into_response()
}

/// A SearXNG instance's `/search`: JSON only when asked for (as an instance
/// with the `json` format enabled), results about the query, the first page
/// also listed again with tracking parameters, a trailing slash and a
/// fragment (as two engines report it).
async fn searxng(Query(q): Query<std::collections::HashMap<String, String>>) -> Response {
    if q.get("format").map(String::as_str) != Some("json") {
        return (StatusCode::FORBIDDEN, "format not allowed").into_response();
    }
    let query = q.get("q").cloned().unwrap_or_default();
    let result = |url: &str, title: &str, content: &str, engine: &str| serde_json::json!({"url": url, "title": title, "content": content, "engine": engine, "engines": [engine], "score": 1.0, "category": "general"});
    let body = serde_json::json!({
        "query": query,
        "number_of_results": 0,
        "results": [
            result("https://www.thegioididong.com/dtdd/iphone-16", &format!("{query} - Thế Giới Di Động"), "Giá từ 19.990.000₫", "google"),
            result("https://WWW.thegioididong.com/dtdd/iphone-16/?utm_source=searx&utm_campaign=x#gia", "iPhone 16 | TGDĐ", "Bản sao", "bing"),
            result("https://fptshop.com.vn/dien-thoai/iphone-16", "iPhone 16 - FPT Shop", "Trả góp &amp; thu cũ", "duckduckgo"),
        ],
        "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []
    });
    axum::Json(body).into_response()
}

/// The Brave Search API's web search: 401 without a subscription token (as
/// Brave answers), else web results with `<strong>` in the descriptions.
async fn brave(headers: HeaderMap, Query(q): Query<std::collections::HashMap<String, String>>) -> Response {
    let token = headers.get("x-subscription-token").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !token.starts_with("BSA") {
        let error = serde_json::json!({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid.", "status": 401}});
        return (StatusCode::UNAUTHORIZED, axum::Json(error)).into_response();
    }
    let query = q.get("q").cloned().unwrap_or_default();
    let body = serde_json::json!({
        "type": "search",
        "query": {"original": query, "country": q.get("country"), "more_results_available": true},
        "web": {"type": "search", "results": [
            {"type": "search_result", "title": "Giá <strong>iPhone 16</strong> mới nhất - CellphoneS", "url": "https://cellphones.com.vn/iphone-16.html",
             "description": "<strong>iPhone 16</strong> 128GB giá 19.690.000&nbsp;₫", "language": "vi", "family_friendly": true},
            {"type": "search_result", "title": "iPhone 16 - Apple (VN)", "url": "https://www.apple.com/vn/iphone-16/",
             "description": "Giới thiệu <strong>iPhone 16</strong>.", "language": "vi", "family_friendly": true}
        ]}
    });
    axum::Json(body).into_response()
}
