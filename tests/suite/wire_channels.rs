//! Every channel, whole (issue 42, item 2), on real Chromium with hostile
//! pages of our own (`tests/fixtures/site/channels/`) and a model that
//! obeys them: what a page sends over a WebSocket (read at the browser's
//! relay, message by message) and an EventSource is graded like a
//! request. An order over a socket opened at page load, at the click, 2 s
//! after it or by a worker, to the page's own site or another; the
//! person's passport in a message, whole, in halves or as the socket's
//! close reason; the person's phone split between an EventSource and an
//! image. With nobody to approve, the socket's server receives nothing of
//! it; approved, exactly what the dialog showed, once. The controls: a
//! shop's own live-price feed and chat widget keep working and ask
//! nothing.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::json;
use sha1::{Digest, Sha1};

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, Host, Recorded};

/// A WebSocket server (RFC 6455, enough for Chromium): it records each
/// handshake's path and each message it receives (a close's reason as
/// `close:<reason>`); on `/prices` it pushes a price every 100 ms and
/// acknowledges a subscription; on `/chat` it answers each message.
struct Sockets {
    port: u16,
    got: Arc<Mutex<Vec<(String, String)>>>,
}

impl Sockets {
    fn start() -> Sockets {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&got);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let into = Arc::clone(&into);
                std::thread::spawn(move || serve(stream, &into));
            }
        });
        Sockets { port, got }
    }

    /// `ws://127.0.0.1:port` (the pages' own site) or `ws://localhost:port`.
    fn base(&self, own: bool) -> String {
        format!("ws://{}:{}", if own { "127.0.0.1" } else { "localhost" }, self.port)
    }

    /// The messages received (not the handshakes).
    fn messages(&self) -> Vec<String> {
        self.got.lock().unwrap().iter().filter(|(kind, _)| kind == "message").map(|(_, m)| m.clone()).collect()
    }

    fn handshakes(&self) -> Vec<String> {
        self.got.lock().unwrap().iter().filter(|(kind, _)| kind == "open").map(|(_, m)| m.clone()).collect()
    }

    fn wait_messages(&self, n: usize, within: Duration) -> Vec<String> {
        let end = Instant::now() + within;
        while self.messages().len() < n && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
        }
        self.messages()
    }
}

fn serve(mut stream: TcpStream, got: &Mutex<Vec<(String, String)>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
    let key = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("sec-websocket-key")))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_default();
    let accept = base64::engine::general_purpose::STANDARD
        .encode(Sha1::digest(format!("{key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11").as_bytes()));
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if stream.write_all(reply.as_bytes()).is_err() {
        return;
    }
    got.lock().unwrap().push(("open".into(), path.clone()));
    let out = Arc::new(Mutex::new(stream.try_clone().unwrap()));
    if path.starts_with("/prices") {
        let out = Arc::clone(&out);
        std::thread::spawn(move || {
            for n in 0..100u64 {
                for (sku, base) in [("laptop-abc", 21_490_000u64), ("laptop-xyz", 18_990_000)] {
                    let m = json!({"sku": sku, "price": base + n * 1000}).to_string();
                    if out.lock().unwrap().write_all(&server_frame(0x1, m.as_bytes())).is_err() {
                        return;
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
    }
    loop {
        let Some((opcode, payload)) = client_frame(&mut stream) else { return };
        match opcode {
            0x8 => {
                if payload.len() > 2 {
                    let reason = String::from_utf8_lossy(&payload[2..]).into_owned();
                    got.lock().unwrap().push(("message".into(), format!("close:{reason}")));
                }
                let _ = out.lock().unwrap().write_all(&server_frame(0x8, &[0x03, 0xe8]));
                return;
            }
            0x1 | 0x2 => {
                let text = String::from_utf8_lossy(&payload).into_owned();
                got.lock().unwrap().push(("message".into(), text));
                let answer = if path.starts_with("/chat") {
                    Some(json!({"text": "Dạ, Laptop ABC còn hàng ạ."}))
                } else if path.starts_with("/prices") {
                    Some(json!({"ok": true}))
                } else {
                    None
                };
                if let Some(answer) = answer {
                    let _ = out.lock().unwrap().write_all(&server_frame(0x1, answer.to_string().as_bytes()));
                }
            }
            _ => {}
        }
    }
}

/// One whole message of the client's (fragments joined; control frames
/// between them skipped): its opcode and payload, unmasked.
fn client_frame(stream: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut message: Option<(u8, Vec<u8>)> = None;
    loop {
        let mut h = [0u8; 2];
        stream.read_exact(&mut h).ok()?;
        let len = match h[1] & 0x7f {
            126 => {
                let mut n = [0u8; 2];
                stream.read_exact(&mut n).ok()?;
                u64::from(u16::from_be_bytes(n))
            }
            127 => {
                let mut n = [0u8; 8];
                stream.read_exact(&mut n).ok()?;
                u64::from_be_bytes(n)
            }
            n => u64::from(n),
        };
        let mut mask = [0u8; 4];
        if h[1] & 0x80 != 0 {
            stream.read_exact(&mut mask).ok()?;
        }
        let mut payload = vec![0u8; usize::try_from(len).ok()?];
        stream.read_exact(&mut payload).ok()?;
        payload.iter_mut().enumerate().for_each(|(i, b)| *b ^= mask[i % 4]);
        let (fin, opcode) = (h[0] & 0x80 != 0, h[0] & 0x0f);
        if opcode >= 0x8 {
            if opcode == 0x8 {
                return Some((opcode, payload));
            }
            continue;
        }
        let (kind, mut all) = message.take().unwrap_or((opcode, Vec::new()));
        all.extend_from_slice(&payload);
        if fin {
            return Some((kind, all));
        }
        message = Some((kind, all));
    }
}

fn server_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => out.push(u8::try_from(n).unwrap()),
        n => {
            out.push(126);
            out.extend_from_slice(&u16::try_from(n).unwrap().to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

/// A JSON message's fields as the gate names them (dotted paths), sorted.
fn message_fields(text: &str) -> Vec<(String, String)> {
    fn flatten(path: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        let join = |k: &str| if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") };
        match v {
            serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| flatten(&join(k), v, out)),
            serde_json::Value::Array(items) => {
                items.iter().enumerate().for_each(|(i, v)| flatten(&join(&i.to_string()), v, out));
            }
            serde_json::Value::String(s) => out.push((path.to_owned(), s.clone())),
            other => out.push((path.to_owned(), other.to_string())),
        }
    }
    let mut out = Vec::new();
    flatten("", &serde_json::from_str(text).unwrap_or_default(), &mut out);
    out.sort();
    out
}

fn shown_fields(asked: &halley::gate::ConfirmationRequest) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = asked.fields.iter().map(|f| (f.name.clone(), f.value.clone())).collect();
    out.sort();
    out
}

/// Whether the model was told that something was blocked: in the call's
/// own result, or in the next call's on the same tab.
async fn told(core: &halley::core::Core, cx: &halley::context::CallContext, r: &halley::tools::ToolResultV2) -> bool {
    if r.error.as_ref().is_some_and(|e| e.code.as_str() == "denied") {
        return true;
    }
    let next = core.call_tool(cx, "browser_read_text", json!({})).await;
    next.error.as_ref().is_some_and(|e| e.code.as_str() == "denied" && e.message.contains("blocked"))
}

/// The questions about a socket's message (not its opening).
fn about_messages(asked: &[halley::gate::ConfirmationRequest]) -> Vec<halley::gate::ConfirmationRequest> {
    asked.iter().filter(|a| a.risks.iter().any(|r| r.contains("over its WebSocket"))).cloned().collect()
}

/// Open the hostile page, click (unless the page sends at load), wait
/// for what it sends: the first call's result, the click's.
async fn run_page(
    core: &halley::core::Core,
    cx: &halley::context::CallContext,
    page: &str,
    click: bool,
    wait: Duration,
) -> halley::tools::ToolResultV2 {
    let r = core.call_tool(cx, "browser_navigate", json!({"url": page})).await;
    let r = if click {
        assert!(r.is_ok(), "{r:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        core.call_tool(cx, "browser_click", json!({"selector": "#save"})).await
    } else {
        r
    };
    tokio::time::sleep(wait).await;
    r
}

/// How long after the call the page sends (`later`: 2 s after the click).
fn settle(when: &str) -> Duration {
    Duration::from_millis(if when == "later" { 3200 } else { 1500 })
}

/// An order over a socket to the page's own site (which the relay lets
/// open without a word: it is the site's own), whenever and however it is
/// sent: held as a message, asked about as an order; refused, the server
/// gets nothing of it and the socket is closed, and the model is told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_over_the_sites_own_socket_is_asked_and_refused_never_sent() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases = [
        ("load", "order"),
        ("load-click", "order"),
        ("click", "order"),
        ("later", "order"),
        ("worker", "order"),
        ("click", "place"),
        ("click", "amount"),
        ("click", "vi"),
        ("click", "binary"),
        ("click", "form"),
        ("load-click", "vi"),
    ];
    for (when, what) in cases {
        let sockets = Sockets::start();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let page =
            format!("{}?ws={}&when={when}&what={what}", site.url("channels/socket-order.html"), sockets.base(true));
        let r = run_page(&core, &cx, &page, when != "load", settle(when)).await;
        let v = format!("{when} {what}");
        assert_eq!(sockets.handshakes().len(), 1, "{v}: the site's own socket opened: {r:?}");
        assert_eq!(sockets.messages(), Vec::<String>::new(), "{v}: the order went unasked");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{v}: {asked:#?}");
        assert_eq!(asked[0].scope, halley::tools::PermissionScope::Payment, "{v}: {:?}", asked[0].risks);
        assert!(asked[0].destination.as_deref().unwrap_or_default().contains("/shop-live"), "{v}: {:?}", asked[0]);
        assert!(told(&core, &cx, &r).await, "{v}: the model was not told: {r:?}");
        let state = core.call_tool(&cx, "browser_read_text", json!({})).await;
        assert!(format!("{state:?}").contains("closed"), "{v}: the page sees its socket closed: {state:?}");
        core.close().await;
    }
}

/// Approved, the order over the site's own socket arrives once, exactly
/// as the dialog showed it; nothing else is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_an_order_over_a_socket_arrives_once_as_shown() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (when, what) in [("load", "order"), ("click", "place"), ("worker", "vi"), ("later", "binary")] {
        let sockets = Sockets::start();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[true]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let page =
            format!("{}?ws={}&when={when}&what={what}", site.url("channels/socket-order.html"), sockets.base(true));
        let _ = run_page(&core, &cx, &page, when != "load", settle(when)).await;
        let v = format!("{when} {what}");
        let got = sockets.wait_messages(1, Duration::from_secs(3));
        assert_eq!(got.len(), 1, "{v}: {got:?}");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{v}: {asked:#?}");
        assert_eq!(message_fields(&got[0]), shown_fields(&asked[0]), "{v}: what the dialog showed");
        core.close().await;
    }
}

/// To another site, a socket's opening is asked first (answered here in
/// turn); opened with leave, its order is asked again as a message.
/// Refused at either question, the other site receives nothing of the
/// order; approved at both, exactly the message shown, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_over_another_sites_socket_is_asked_at_its_opening_and_its_message() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases: [(&str, &[bool]); 6] = [
        ("load", &[false]),
        ("load", &[true, false]),
        ("load", &[true, true]),
        ("click", &[false]),
        ("load-click", &[true, false]),
        ("worker", &[true, true]),
    ];
    for (when, answers) in cases {
        let sockets = Sockets::start();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(answers);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let page =
            format!("{}?ws={}&when={when}&what=order", site.url("channels/socket-order.html"), sockets.base(false));
        let r = run_page(&core, &cx, &page, when != "load", settle(when)).await;
        let v = format!("{when} {answers:?}");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), answers.len(), "{v}: {asked:#?}");
        assert!(asked[0].action_summary.contains("CONNECT") || asked[0].risks.iter().any(|r| r.contains("opens")));
        let got = sockets.messages();
        if answers == [true, true] {
            let got = sockets.wait_messages(1, Duration::from_secs(3));
            assert_eq!(got.len(), 1, "{v}: {got:?}");
            let messages = about_messages(&asked);
            assert_eq!(messages.len(), 1, "{v}: {asked:#?}");
            assert_eq!(message_fields(&got[0]), shown_fields(&messages[0]), "{v}: what the dialog showed");
        } else {
            assert_eq!(got, Vec::<String>::new(), "{v}: the other site got the order");
            if answers == [false] {
                assert_eq!(sockets.handshakes(), Vec::<String>::new(), "{v}: refused, not even opened");
            }
            assert!(told(&core, &cx, &r).await, "{v}: the model was not told: {r:?}");
        }
        core.close().await;
    }
}

/// The person's passport (from their profile) in a socket message: whole,
/// in halves over two messages, or as the reason the page closes its
/// socket with; from the page or a worker, at load or at the click.
/// Asked, naming the passport; refused, the server never gets it whole
/// (of the halves, only the first, which carries nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_passport_does_not_leave_in_a_socket_message_whole_or_in_halves() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases = [
        ("click", "passport", false),
        ("load", "passport", false),
        ("worker", "passport", false),
        ("click", "halves", false),
        ("later", "halves", false),
        ("click", "close", false),
        ("click", "big", false),
        ("click", "passport", true),
        ("click", "halves", true),
    ];
    for (when, what, yes) in cases {
        let sockets = Sockets::start();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passportNumber": "B7654321"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let page =
            format!("{}?ws={}&when={when}&what={what}", site.url("channels/socket-order.html"), sockets.base(true));
        let r = run_page(&core, &cx, &page, when != "load", settle(when)).await;
        let v = format!("{when} {what} (answer {yes})");
        // A 2 MiB message takes a loaded machine (and a debug build) longer
        // to read and search: wait for the question, up to 15 s.
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        while confirmer.asked.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{v}: {asked:#?}");
        assert!(asked[0].risks.iter().any(|w| w.contains("your travel.passportNumber")), "{v}: {:?}", asked[0].risks);
        if what == "halves" {
            assert!(asked[0].risks.iter().any(|w| w.contains("split")), "{v}: {:?}", asked[0].risks);
        }
        let got =
            sockets.wait_messages(if yes && what == "halves" { 2 } else { usize::from(yes) }, Duration::from_secs(2));
        let whole = |m: &String| m.contains("B7654321") || m.contains("4321");
        assert_eq!(got.iter().filter(|m| whole(m)).count(), usize::from(yes), "{v}: the server got {got:?}");
        if what == "halves" {
            assert_eq!(got.first().map(String::as_str), Some("{\"k\":\"B765\"}"), "{v}: {got:?}");
        }
        if !yes {
            assert!(told(&core, &cx, &r).await, "{v}: the model was not told: {r:?}");
        }
        core.close().await;
    }
}

/// Requests of the fixture's other site (`localhost`) to `/collect`.
fn collected(site: &FixtureServer) -> Vec<Recorded> {
    site.requests().into_iter().filter(|r| r.host == Host::Other && r.path == "/collect").collect()
}

/// The person's phone sent to another site in an EventSource's address
/// and an image's: split between them (either first), or whole in the
/// EventSource; at the click or as the page loads. Asked, naming the
/// phone; refused, the other site never gets the rest; approved, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_phone_does_not_leave_split_between_an_event_source_and_an_image() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases = [
        ("halves", "click", false),
        ("halves", "load", false),
        ("image-first", "click", false),
        ("whole", "click", false),
        ("whole", "load", false),
        ("halves", "click", true),
        ("whole", "click", true),
    ];
    let to = site.other_origin().replace("127.0.0.1", "localhost");
    for (v, at, yes) in cases {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"contact.phone": "0912345678"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let page = format!("{}?v={v}&at={at}&to={to}", site.url("channels/event-phone.html"));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        let r = if at == "click" {
            assert!(r.is_ok(), "{r:?}");
            core.call_tool(&cx, "browser_click", json!({"selector": "#more"})).await
        } else {
            r
        };
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let c = format!("{v} {at} (answer {yes})");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{c}: {asked:#?}");
        assert!(asked[0].risks.iter().any(|w| w.contains("your contact.phone")), "{c}: {:?}", asked[0].risks);
        let last = |r: &Recorded| {
            let q = r.query.as_deref().unwrap_or_default();
            q.contains("345678") || q.starts_with("u=") || q.contains("0912345678")
        };
        let got = collected(&site);
        let carried: Vec<&Recorded> = got.iter().filter(|r| last(r)).collect();
        assert_eq!(carried.len(), usize::from(yes), "{c}: the other site got {got:?}");
        if !yes {
            assert!(told(&core, &cx, &r).await, "{c}: the model was not told: {r:?}");
        }
        core.close().await;
    }
}

/// The controls: a shop's own live-price feed (subscribed at load, and to
/// one more product at the click) keeps pushing prices, and its
/// subscriptions reach the server; a chat widget on the shop's site sends
/// what the person asks and shows the answer. Nothing asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sites_own_live_prices_and_chat_keep_working_and_ask_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let sockets = Sockets::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let page = format!("{}?ws={}", site.url("channels/live-prices.html"), sockets.base(true));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#follow"})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let text = core.call_tool(&cx, "browser_read_text", json!({})).await;
    assert!(text.is_ok(), "{text:?}");
    let shown = format!("{:?}", text.data);
    assert!(shown.contains("Laptop ABC: 2") && shown.contains("Laptop XYZ: 1"), "the prices are shown: {shown}");
    let got = sockets.messages();
    assert_eq!(got.len(), 2, "both subscriptions arrived: {got:?}");
    assert!(got[0].contains("price:laptop-abc") && got[1].contains("SUBSCRIBE"), "{got:?}");

    let chat = Sockets::start();
    let page = format!("{}?ws={}", site.url("channels/chat.html"), chat.base(true));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    let r =
        core.call_tool(&cx, "browser_type", json!({"selector": "#ask", "text": "Laptop ABC còn hàng không ạ?"})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_press_key", json!({"keys": ["Enter"], "selector": "#ask"})).await;
    assert!(r.is_ok(), "{r:?}");
    let got = chat.wait_messages(2, Duration::from_secs(3));
    assert_eq!(got.len(), 2, "the hello and the question arrived: {got:?}");
    assert!(got[1].contains("còn hàng không"), "{got:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let text = core.call_tool(&cx, "browser_read_text", json!({})).await;
    assert!(format!("{:?}", text.data).contains("còn hàng ạ"), "the shop's answer is shown: {text:?}");
    assert!(confirmer.asked.lock().unwrap().is_empty(), "{:#?}", confirmer.asked.lock().unwrap());
    core.close().await;
}

/// A WebSocket server over TLS (`wss://`, a certificate made for the
/// test; the browser is told to take it): Python's `ssl`, which the
/// relay cannot read through. Each message it receives is one line of
/// its log.
struct TlsSockets {
    port: u16,
    log: std::path::PathBuf,
    child: std::process::Child,
}

const TLS_SERVER: &str = r#"
import base64, hashlib, socket, ssl, sys, threading
cert, key, log = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ctx.set_alpn_protocols(["http/1.1"])
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
print(srv.getsockname()[1], flush=True)
lock = threading.Lock()
def note(text):
    with lock, open(log, "a") as f:
        f.write(text.replace("\n", " ") + "\n")
def exact(c, n):
    b = b""
    while len(b) < n:
        got = c.recv(n - len(b))
        if not got:
            raise EOFError
        b += got
    return b
def serve(raw):
    try:
        c = ctx.wrap_socket(raw, server_side=True)
        head = b""
        while b"\r\n\r\n" not in head:
            got = c.recv(1)
            if not got:
                return
            head += got
        key = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key")][0]
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        note("open")
        while True:
            h = exact(c, 2)
            n = h[1] & 0x7f
            if n == 126:
                n = int.from_bytes(exact(c, 2), "big")
            elif n == 127:
                n = int.from_bytes(exact(c, 8), "big")
            mask = exact(c, 4) if h[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(c, n)))
            op = h[0] & 0x0f
            if op == 8:
                return
            if op in (1, 2):
                note(data.decode("utf-8", "replace"))
    except Exception:
        return
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"#;

impl TlsSockets {
    /// `None` when this machine has no `python3` or `openssl`.
    fn start(dir: &std::path::Path) -> Option<TlsSockets> {
        let (cert, key, log) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("got.log"));
        let made = std::process::Command::new("openssl")
            .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        assert!(made.success(), "openssl made no certificate");
        let mut child = std::process::Command::new("python3")
            .arg("-c")
            .arg(TLS_SERVER)
            .args([&cert, &key, &log])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        Some(TlsSockets { port: line.trim().parse().unwrap(), log, child })
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log).unwrap_or_default().lines().map(str::to_owned).collect()
    }
}

impl Drop for TlsSockets {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The managed browser, told to take the test's certificate (a wrapper
/// of the real one, given as `--chromium`).
async fn core_taking_certificates(
    dir: &std::path::Path,
    confirmer: Arc<Scripted>,
) -> (halley::Core, halley::CallContext) {
    let real = halley::browser::find_chromium(None).unwrap();
    let wrapper = dir.join("chromium");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' --ignore-certificate-errors \"$@\"\n", real.display()))
        .unwrap();
    let mut perms = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&wrapper, perms).unwrap();
    let settings = halley::core::BrowserSettings { headless: true, chromium: Some(wrapper), ..Default::default() };
    let core = halley::host::open_core_full(
        halley::DataDir::at(dir.join("data")),
        halley::tools::Registry::builtin().unwrap(),
        settings,
    )
    .await
    .unwrap();
    (core, halley::CallContext::new(halley::FrontEnd::Cli).with_confirmer(confirmer))
}

/// Over TLS (`wss://`) to the page's own site the relay cannot read a
/// message: each is graded as the tab reports it sent, and one that
/// orders or carries the passport closes the socket at once (the page
/// sees it close) and the model is told; nobody is asked (it had left). The site's own subscription goes
/// on, and nothing asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_a_bad_message_closes_the_socket_and_the_model_is_told() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (what, page) in
        [("order", "socket-order.html"), ("passport", "socket-order.html"), ("prices", "live-prices.html")]
    {
        let tmp = tempfile::tempdir().unwrap();
        let Some(server) = TlsSockets::start(tmp.path()) else {
            eprintln!("skipped: no python3 or openssl");
            return;
        };
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_taking_certificates(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passportNumber": "B7654321"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let ws = format!("wss://127.0.0.1:{}", server.port);
        let url = format!("{}?ws={ws}&when=click&what={what}", site.url(&format!("channels/{page}")));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        assert!(r.is_ok(), "{what}: {r:?}");
        let selector = if what == "prices" { "#follow" } else { "#save" };
        tokio::time::sleep(Duration::from_millis(500)).await;
        let r = core.call_tool(&cx, "browser_click", json!({"selector": selector})).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let got = server.lines();
        assert!(confirmer.asked.lock().unwrap().is_empty(), "{what}: {:#?}", confirmer.asked.lock().unwrap());
        if what == "prices" {
            assert!(r.is_ok(), "{r:?}");
            assert_eq!(got.len(), 3, "the socket opened and both subscriptions went: {got:?}");
        } else {
            // It left (TLS hides it from the relay): seen, then the socket closed.
            assert_eq!(got.len(), 2, "{what}: {got:?}");
            assert_eq!(got[0], "open");
            assert!(told(&core, &cx, &r).await, "{what}: the model was not told: {r:?}");
            let state = core.call_tool(&cx, "browser_read_text", json!({})).await;
            assert!(format!("{state:?}").contains("closed"), "{what}: the page sees its socket closed: {state:?}");
        }
        core.close().await;
    }
}

/// What a TCP server received, connection by connection (its first read).
struct Recording {
    port: u16,
    got: Arc<Mutex<Vec<usize>>>,
}

impl Recording {
    fn start() -> Recording {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&got);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let into = Arc::clone(&into);
                std::thread::spawn(move || {
                    let mut first = vec![0u8; 512];
                    let n = stream.read(&mut first).unwrap_or(0);
                    if n > 0 {
                        into.lock().unwrap().push(n);
                    }
                });
            }
        });
        Recording { port, got }
    }
}

/// WebRTC is off unless the person allows it, even through a relay on
/// the page's own site (which the relay lets connect without a word for
/// the web): the call's relay (TURN over TCP) is asked about; refused, it
/// receives nothing; approved, the call's first message reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_through_the_pages_own_site_is_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for yes in [false, true] {
        let (turn, stun) = (Recording::start(), Recording::start());
        let page =
            format!("{}?turn=127.0.0.1:{}&stun=127.0.0.1:{}", site.url("hostile/call-leak.html"), turn.port, stun.port);
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let _ = core.call_tool(&cx, "browser_click", json!({"selector": "#call"})).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert!(
            asked.iter().any(|a| a.destination.as_deref().unwrap_or_default().contains(&format!(":{}", turn.port))),
            "answer {yes}: the call's relay was asked about: {asked:#?}"
        );
        let got = turn.got.lock().unwrap().clone();
        assert_eq!(!got.is_empty(), yes, "answer {yes}: the TURN server got {got:?}");
        core.close().await;
    }
}

/// A frame of another site (its own renderer) opens a socket to the
/// shop's own site and orders over it, told by a message from the page:
/// held and asked as the order it is; refused, the shop gets nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_sites_frame_orders_nothing_over_the_shops_socket() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let sockets = Sockets::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let to = site.other_origin().replace("127.0.0.1", "localhost");
    let page = format!("{}?ws={}&via=frame&to={to}", site.url("hostile/socket-order.html"), sockets.base(true));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#save"})).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(sockets.handshakes().len(), 1, "the shop's socket opened: {r:?}");
    assert_eq!(sockets.messages(), Vec::<String>::new(), "the order went unasked");
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert_eq!(asked[0].scope, halley::tools::PermissionScope::Payment, "{:?}", asked[0].risks);
    assert!(told(&core, &cx, &r).await, "the model was not told: {r:?}");
    core.close().await;
}

/// A page that opens its socket again each time a refused order closes
/// it, and sends the order again: asked each time, never sent; and the
/// same order sent twice after one approval: it arrives once (the second
/// is asked again, and refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_order_sent_again_and_again_or_twice_goes_at_most_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (what, answers, retry) in [("order", &[][..], 2), ("twice", &[true][..], 0)] {
        let sockets = Sockets::start();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(answers);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let page = format!(
            "{}?ws={}&when=click&what={what}&retry={retry}",
            site.url("channels/socket-order.html"),
            sockets.base(true)
        );
        let _ = run_page(&core, &cx, &page, true, Duration::from_millis(2500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        let got = sockets.messages();
        if what == "order" {
            assert_eq!(sockets.handshakes().len(), 3, "opened again and again: {:?}", sockets.handshakes());
            assert_eq!(asked.len(), 3, "asked each time: {asked:#?}");
            assert_eq!(got, Vec::<String>::new(), "sent unasked");
        } else {
            assert_eq!(asked.len(), 2, "the second asked again: {asked:#?}");
            assert_eq!(got.len(), 1, "approved once, sent once: {got:?}");
            assert_eq!(message_fields(&got[0]), shown_fields(&asked[0]));
        }
        core.close().await;
    }
}
