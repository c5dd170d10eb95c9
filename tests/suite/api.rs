//! The local API over real loopback HTTP: what a program on this machine
//! can do with the token, and every hostile request refused before it
//! reaches the host (nothing written, no gate decision).

use std::sync::Arc;
use std::time::Duration;

use halley::DataDir;
use halley::api::{self, Server};
use halley::core::BrowserSettings;
use halley::host::Host;
use halley::protocol::{Op, Settings};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::model_server::{ModelServer, Turn};

pub(crate) const TOKEN: &str = "hly_test_token_0123456789abcdef";

pub(crate) struct Served {
    pub host: Arc<Host>,
    pub server: Server,
    _dir: Option<tempfile::TempDir>,
}

/// A host on a data dir of its own, serving the API.
pub(crate) async fn served() -> Served {
    let dir = tempfile::tempdir().unwrap();
    let served = served_in(dir.path().join("data")).await;
    Served { _dir: Some(dir), ..served }
}

/// A host on `data`, serving the API (headless browser, [`TOKEN`]).
pub(crate) async fn served_in(data: std::path::PathBuf) -> Served {
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(data), browser).await.unwrap();
    let server = api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await.unwrap();
    Served { host, server, _dir: None }
}

/// One raw HTTP/1.1 exchange (every header exactly as written): status and body.
async fn raw(server: &Server, head: &str, body: &[u8]) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let mut request = head.replace('\n', "\r\n");
    if !body.is_empty() {
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    // A refused request may be answered before its whole body is read.
    let _ = stream.write_all(body).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::String(body.to_owned())))
}

fn head(method: &str, path: &str, server: &Server, extra: &str) -> String {
    format!("{method} {path} HTTP/1.1\nHost: 127.0.0.1:{}\n{extra}", server.addr().port())
}

const AUTH: &str = "Authorization: Bearer hly_test_token_0123456789abcdef\n";
const JSON: &str = "Content-Type: application/json\n";

/// `halley api token --rotate`, run while another process serves the API
/// (the desktop app, `halley serve`), takes effect there without a restart:
/// the new token is accepted and the old one refused from the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_rotated_by_another_process_takes_effect_in_the_running_api() {
    if !crate::common::in_session() {
        eprintln!("skipped: the API token lives in the keyring (scripts/with-session.sh)");
        return;
    }
    let h = crate::common::Halley::new();
    let dir = DataDir::at(h.data_dir());
    let secrets = halley::secrets::SecretStore::os().unwrap();
    let old = halley::secrets::token::get_or_create(&secrets, &dir).await.unwrap().expose().to_owned();
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(dir.clone(), browser).await.unwrap();
    let mut server = api::serve(Arc::clone(&host), 0, old.clone()).await.unwrap();
    server.follow_keyring(dir);
    let status = |token: String| {
        let server = &server;
        async move {
            let call = head("GET", "/api/v1/tools", server, &format!("Authorization: Bearer {token}\n"));
            raw(server, &call, b"").await.0
        }
    };
    assert_eq!(status(old.clone()).await, 200);
    let rotated = h.run(&["api", "token", "--rotate"]);
    assert_eq!(rotated.code, 0, "{}", rotated.stderr);
    let new = rotated.stdout.trim().to_owned();
    assert!(new.starts_with("hly_") && new != old, "{new}");
    // At the very next request: the new token in, the old one out.
    assert_eq!(status(new.clone()).await, 200, "the new token is refused");
    assert_eq!(status(old).await, 401, "the old token still works after a rotation");
    assert_eq!(status(new).await, 200);
    server.stop().await;
    host.close().await;
    let _ = secrets.delete(&format!("api-token:{}", DataDir::at(h.data_dir()).install_id())).await;
}

/// A watch made over the API reaches the panel and the tray as
/// `Event::Watches`, as one made from the panel does (the API's call is
/// the same op).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_made_over_the_api_reaches_the_panel() {
    let s = served().await;
    let site = crate::common::fixtures::FixtureServer::start();
    site.set_page(
        "api-made",
        crate::common::fixtures::WatchedPage {
            name: "Tai nghe W7".into(),
            price: 2_490_000,
            in_stock: true,
            ..Default::default()
        },
    );
    let mut events = s.host.subscribe();
    let body = json!({"args": {"target": {"url": site.url("watched/api-made")}, "label": "Tai nghe W7",
                               "frequency": "1h", "trigger_rules": [{"op": "<", "value": "2.000.000 ₫"}]}});
    let call = head("POST", "/api/v1/tools/watch_create/call", &s.server, &format!("{AUTH}{JSON}"));
    let (status, answer) = raw(&s.server, &call, body.to_string().as_bytes()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "ok", "{answer}");
    let told = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(halley::protocol::Event::Watches { .. }) = events.recv().await {
                return;
            }
        }
    })
    .await;
    assert!(told.is_ok(), "no Watches event after the API's watch_create");
    s.host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_are_refused_and_nothing_is_done() {
    let s = served().await;
    let port = s.server.addr().port();
    let set = br#"{"args":{"set":{"shopping.budget_vnd":1}}}"#;
    let call = "/api/v1/tools/user_profile_set/call";
    let cases: Vec<(&str, String, Vec<u8>, u16, &str)> = vec![
        ("no token", head("POST", call, &s.server, JSON), set.to_vec(), 401, "unauthorized"),
        (
            "a wrong token",
            head("POST", call, &s.server, &format!("Authorization: Bearer nope\n{JSON}")),
            set.to_vec(),
            401,
            "unauthorized",
        ),
        (
            "Host: evil.example",
            format!("POST {call} HTTP/1.1\nHost: evil.example\n{AUTH}{JSON}"),
            set.to_vec(),
            403,
            "forbidden_host",
        ),
        (
            "a rebinding name on our port",
            format!("POST {call} HTTP/1.1\nHost: evil.example:{port}\n{AUTH}{JSON}"),
            set.to_vec(),
            403,
            "forbidden_host",
        ),
        ("an empty Host", format!("POST {call} HTTP/1.1\nHost: \n{AUTH}{JSON}"), set.to_vec(), 403, "forbidden_host"),
        (
            "Origin: http://evil.example",
            head("POST", call, &s.server, &format!("Origin: http://evil.example\n{AUTH}{JSON}")),
            set.to_vec(),
            403,
            "forbidden_origin",
        ),
        (
            "Origin: null",
            head("POST", call, &s.server, &format!("Origin: null\n{AUTH}{JSON}")),
            set.to_vec(),
            403,
            "forbidden_origin",
        ),
        (
            "a CORS preflight",
            head(
                "OPTIONS",
                call,
                &s.server,
                "Access-Control-Request-Method: POST\nAccess-Control-Request-Headers: authorization\n",
            ),
            Vec::new(),
            403,
            "forbidden_origin",
        ),
        (
            "a non-JSON body",
            head("POST", call, &s.server, &format!("{AUTH}Content-Type: text/plain\n")),
            set.to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "a 10 MB body",
            head("POST", call, &s.server, &format!("{AUTH}{JSON}")),
            {
                let mut big = br#"{"args":{"set":{"shopping.note":""#.to_vec();
                big.extend(std::iter::repeat_n(b'x', 10 * 1024 * 1024));
                big.extend(br#""}}}"#);
                big
            },
            413,
            "payload_too_large",
        ),
        (
            "bad JSON",
            head("POST", call, &s.server, &format!("{AUTH}{JSON}")),
            b"{\"args\":".to_vec(),
            400,
            "invalid_arguments",
        ),
        (
            "an unknown field",
            head("POST", call, &s.server, &format!("{AUTH}{JSON}")),
            br#"{"args":{},"sudo":true}"#.to_vec(),
            400,
            "invalid_arguments",
        ),
    ];
    for (what, head, body, status, code) in cases {
        let (got, answer) = raw(&s.server, &head, &body).await;
        assert_eq!((got, answer["error"]["code"].as_str()), (status, Some(code)), "{what}: {answer}");
        assert!(answer["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{what}: {answer}");
    }
    // Nothing reached the gate or the profile.
    let store = s.host.core().store();
    assert_eq!(store.audit_log().recent(100).await.unwrap().len(), 0);
    assert_eq!(store.profile().list_prefix("shopping").await.unwrap(), vec![]);
    s.server.stop().await;
    s.host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_with_the_token_lists_and_calls_tools_and_reads_the_openapi_document() {
    let s = served().await;
    let (status, tools) = raw(&s.server, &head("GET", "/api/v1/tools", &s.server, AUTH), b"").await;
    assert_eq!(status, 200);
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"browser_navigate") && names.contains(&"user_profile_get"), "{names:?}");

    // A read-only call goes through the gate (an audit row) and answers the tool's result.
    let body = br#"{"args":{"keys":["shopping.budget_vnd"]}}"#;
    let (status, result) =
        raw(&s.server, &head("POST", "/api/v1/tools/user_profile_get/call", &s.server, &format!("{AUTH}{JSON}")), body)
            .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["status"], json!("ok"), "{result}");
    let audit = s.host.core().store().audit_log().recent(10).await.unwrap();
    assert_eq!(audit.len(), 1);

    // Bad arguments are the tool's error, with a code; an unknown tool is one too.
    let (status, bad) = raw(
        &s.server,
        &head("POST", "/api/v1/tools/user_profile_get/call", &s.server, &format!("{AUTH}{JSON}")),
        br#"{"args":{"keys":"no"}}"#,
    )
    .await;
    assert_eq!(
        (status, bad["status"].clone(), bad["error"]["code"].clone()),
        (200, json!("error"), json!("invalid_arguments"))
    );
    let (_, unknown) =
        raw(&s.server, &head("POST", "/api/v1/tools/no_such_tool/call", &s.server, &format!("{AUTH}{JSON}")), b"{}")
            .await;
    assert_eq!(
        (unknown["status"].clone(), unknown["error"]["code"].clone()),
        (json!("error"), json!("unknown_tool")),
        "{unknown}"
    );

    let (status, doc) = raw(&s.server, &head("GET", "/api/v1/openapi.json", &s.server, AUTH), b"").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], json!("3.1.0"));
    assert!(doc["paths"]["/api/v1/runs"]["post"]["requestBody"].is_object());

    let (status, missing) = raw(&s.server, &head("GET", "/api/v2/nothing", &s.server, AUTH), b"").await;
    assert_eq!((status, missing["error"]["code"].clone()), (404, json!("not_found")));
    s.server.stop().await;
    s.host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_over_the_api_streams_its_events_until_it_ends() {
    let s = served().await;
    let model = ModelServer::start(vec![Turn::text("Xin chào từ Halley.")]);
    let settings = Settings { base_url: Some(model.base_url()), model: Some("m".into()), ..Settings::default() };
    s.host.handle(Op::SaveSettings { settings }).await.unwrap();

    let body = json!({"text": "chào", "stream": true}).to_string();
    let (status, stream) =
        raw(&s.server, &head("POST", "/api/v1/runs", &s.server, &format!("{AUTH}{JSON}")), body.as_bytes()).await;
    assert_eq!(status, 200);
    let text = stream.as_str().unwrap_or_default().to_owned();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    assert!(!text.contains("event:"), "events carry no names: {text}");
    let last = events.last().expect("events");
    assert_eq!(last["type"], json!("run_ended"), "{events:?}");
    assert_eq!(last["answer"], json!("Xin chào từ Halley."));
    assert!(events.iter().any(|e| e["type"] == json!("agent")), "{events:?}");

    // The run is recorded as the API's.
    let runs = s.host.core().store().runs().list(10).await.unwrap();
    assert_eq!(runs.len(), 1);

    // A run that is not going on has no event stream.
    let (status, gone) = raw(&s.server, &head("GET", "/api/v1/runs/run-x/events", &s.server, AUTH), b"").await;
    assert_eq!((status, gone["error"]["code"].clone()), (404, json!("not_found")));
    s.server.stop().await;
    s.host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_in_use_is_an_error_naming_who_holds_it() {
    let s = served().await;
    let port = s.server.addr().port();
    let err = api::serve(Arc::clone(&s.host), port, TOKEN.to_owned()).await.unwrap_err();
    assert!(err.message().contains(&format!("port {port}")), "{}", err.message());
    assert!(err.message().contains(&format!("pid {}", std::process::id())), "{}", err.message());
    s.server.stop().await;
    s.host.close().await;
}

/// The panel's Local API section: `ApiInfo` shows the served address and
/// the keyring's token; `RotateApiToken` replaces it in the keyring and the
/// running API refuses the old token (401) and accepts the new one (200) at
/// once, over real HTTP, without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotating_the_token_from_the_panel_takes_effect_at_once() {
    use halley::protocol::Reply;
    if std::env::var_os("HALLEY_TEST_SESSION").is_none() {
        eprintln!("skipped: needs the test session's keyring (scripts/with-session.sh)");
        return;
    }
    let info = |reply: Reply| match reply {
        Reply::ApiInfo { address, token } => (address, token),
        other => panic!("not ApiInfo: {other:?}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(dir.path().join("data")), browser).await.unwrap();
    let (address, first) = info(host.handle(Op::ApiInfo).await.unwrap());
    assert_eq!(address, None, "no API served yet");
    assert!(first.starts_with("hly_") && first.len() > 60, "{first}");
    assert_eq!(info(host.handle(Op::ApiInfo).await.unwrap()).1, first, "made once, then kept in the keyring");

    let server = api::serve(Arc::clone(&host), 0, first.clone()).await.unwrap();
    let port = server.addr().port();
    let tools = |token: &str| {
        let head = format!("GET /api/v1/tools HTTP/1.1\nHost: 127.0.0.1:{port}\nAuthorization: Bearer {token}\n");
        let server = &server;
        async move { raw(server, &head, b"").await.0 }
    };
    assert_eq!(
        info(host.handle(Op::ApiInfo).await.unwrap()),
        (Some(format!("http://127.0.0.1:{port}")), first.clone())
    );
    assert_eq!(tools(&first).await, 200);

    let (address, second) = info(host.handle(Op::RotateApiToken).await.unwrap());
    assert_eq!(address, Some(format!("http://127.0.0.1:{port}")));
    assert_ne!(second, first);
    assert_eq!(tools(&first).await, 401, "the old token is refused at once");
    assert_eq!(tools(&second).await, 200, "the new token is accepted at once");
    assert_eq!(info(host.handle(Op::ApiInfo).await.unwrap()).1, second, "the keyring holds the new token");

    server.stop().await;
    assert_eq!(info(host.handle(Op::ApiInfo).await.unwrap()).0, None, "a stopped API has no address");
    host.close().await;
}

/// `halley api token` makes the token once (the keyring keeps it),
/// `--rotate` replaces it; `halley serve` answers with it, refuses the old
/// one, exits 143 on SIGTERM, and a second `serve` on the same port exits 2
/// naming the first.
#[test]
fn halley_serve_uses_the_token_from_the_keyring_and_reports_a_taken_port() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    if std::env::var_os("HALLEY_TEST_SESSION").is_none() {
        eprintln!("skipped: needs the test session's keyring (scripts/with-session.sh)");
        return;
    }
    let h = crate::common::Halley::new();
    let first = h.run(&["api", "token"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let again = h.run(&["api", "token"]);
    assert_eq!(first.stdout, again.stdout);
    let rotated = h.run(&["api", "token", "--rotate"]);
    assert_eq!(rotated.code, 0);
    assert_ne!(rotated.stdout, first.stdout);
    let token = rotated.stdout.trim().to_owned();
    assert!(token.starts_with("hly_") && token.len() > 60, "{token}");

    let mut serve = Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["--headless", "serve", "--port", "0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(serve.stderr.take().unwrap()).lines();
    let addr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.split("http://").nth(1).map(|a| a.split_whitespace().next().unwrap_or_default().to_owned()))
        .expect("the address line");
    let get = |token: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        use std::io::{Read, Write};
        write!(
            s,
            "GET /api/v1/tools HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out.split_whitespace().nth(1).unwrap_or_default().to_owned()
    };
    assert_eq!(get(&token), "200");
    assert_eq!(get(first.stdout.trim()), "401");

    let port = addr.rsplit(':').next().unwrap().to_owned();
    let taken = h.run(&["serve", "--port", &port]);
    assert_eq!(taken.code, 2, "{}", taken.stderr);
    assert!(
        taken.stderr.contains(&format!("port {port}")) && taken.stderr.contains(&format!("pid {}", serve.id())),
        "{}",
        taken.stderr
    );

    let status = Command::new("kill").args(["-TERM", &serve.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let code = loop {
        if let Some(s) = serve.try_wait().unwrap() {
            break s.code();
        }
        assert!(std::time::Instant::now() < deadline, "halley serve did not exit on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code, Some(143));
}

/// A web page in the managed Chromium that knows the address and even the
/// token cannot use the API: every way a page can send a request is
/// refused (a preflight, a simple POST, no-cors, a beacon), nothing is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_in_the_managed_browser_cannot_use_the_api() {
    if !crate::common::browser::have_browser() {
        return;
    }
    let s = served().await;
    let site = crate::common::fixtures::FixtureServer::start();
    let fragment = json!({"base": format!("http://127.0.0.1:{}", s.server.addr().port()), "token": TOKEN}).to_string();
    let url = format!(
        "{}#{}",
        site.url("api-probe.html"),
        url::form_urlencoded::byte_serialize(fragment.as_bytes()).collect::<String>().replace('+', "%20")
    );
    let nav = s.host.handle(Op::CallTool { name: "browser_navigate".into(), args: json!({"url": url}) }).await.unwrap();
    assert!(format!("{nav:?}").contains("Ok"), "{nav:?}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let text = loop {
        let read = s.host.handle(Op::CallTool { name: "browser_read_text".into(), args: json!({}) }).await.unwrap();
        let text = format!("{read:?}");
        if text.contains("done") || std::time::Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(text.contains("done"), "{text}");
    for line in ["json_with_token: failed", "text_plain: failed", "read_tools: failed"] {
        assert!(text.contains(line), "{line} in {text}");
    }
    // no-cors and the beacon cannot read the answer; what matters is that nothing was done.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let store = s.host.core().store();
    assert_eq!(store.profile().list_prefix("shopping").await.unwrap(), vec![]);
    let audited: Vec<Option<String>> =
        store.audit_log().recent(100).await.unwrap().into_iter().map(|r| r.tool).collect();
    assert!(!audited.iter().any(|t| t.as_deref() == Some("user_profile_set")), "{audited:?}");
    s.server.stop().await;
    s.host.close().await;
}

/// The registration request of the user's document, sent with curl exactly
/// as written: the stored schema has `query` required and `category`
/// optional, the source is kept; it is listed, replaced by name, survives a
/// restart with its approval setting, and deleted. A bad source is a 400
/// that names the problem.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_tool_registered_from_python_source_is_stored_listed_updated_and_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::at(dir.path().join("data"));
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(data.clone(), browser.clone()).await.unwrap();
    let server = api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await.unwrap();
    let base = format!("http://127.0.0.1:{}", server.addr().port());
    let seed = r#"{"name": "query_local_db",
      "description": "Query the client app's local database for articles.",
      "sourceCode": "def query_local_db(query: str, category: str = None):\n    \"\"\"\n    Search articles in the local DB.\n\n    Args:\n        query (str): Search keyword.\n        category (str): Article category (optional).\n    \"\"\"\n    return \"WAITING_FOR_CLIENT_EXECUTION\"",
      "defaultRequiresApproval": true}"#;
    let curl = move |method: &str, path: &str, body: Option<&str>| {
        let mut cmd = std::process::Command::new("curl");
        cmd.args(["-sS", "-X", method, "-w", "\n%{http_code}", "-H", &format!("Authorization: Bearer {TOKEN}")]);
        if let Some(b) = body {
            cmd.args(["-H", "Content-Type: application/json", "--data-binary", b]);
        }
        let out = cmd.arg(format!("{base}{path}")).output().expect("curl");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (body, code) = text.rsplit_once('\n').unwrap_or((&text, "0"));
        (
            code.parse::<u16>().unwrap_or(0),
            serde_json::from_str::<Value>(body).unwrap_or(Value::String(body.to_owned())),
        )
    };
    let path = "/api/letta/agents/tools";
    let (status, tool) = tokio::task::spawn_blocking({
        let curl = curl.clone();
        move || curl("POST", path, Some(seed))
    })
    .await
    .unwrap();
    assert_eq!(status, 201, "{tool}");
    assert_eq!(tool["json_schema"]["required"], json!(["query"]));
    assert_eq!(tool["json_schema"]["properties"]["category"]["type"], json!("string"));
    assert_eq!(tool["json_schema"]["properties"]["query"]["description"], json!("Search keyword."));
    assert_eq!(tool["description"], json!("Query the client app's local database for articles."));
    assert_eq!(tool["default_requires_approval"], json!(true));
    assert!(tool["source_code"].as_str().unwrap().starts_with("def query_local_db("));
    // Offered to the model: its calls go to the client that registered it.
    assert_eq!(tool["status"], json!("available"));

    let c = curl.clone();
    let (status, listed) = tokio::task::spawn_blocking(move || c("GET", path, None)).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(listed["tools"].as_array().unwrap().len(), 1);

    // Replaced by name: a new parameter, no approval.
    let update = json!({"name": "query_local_db", "description": "", "defaultRequiresApproval": false,
        "sourceCode": "def query_local_db(query: str, limit: int = 10):\n    \"\"\"Search articles.\n\n    Args:\n        query: Keyword.\n        limit: At most this many.\n    \"\"\"\n"}).to_string();
    let c = curl.clone();
    let (status, tool) = tokio::task::spawn_blocking(move || c("POST", path, Some(&update))).await.unwrap();
    assert_eq!(status, 200, "{tool}");
    assert_eq!(tool["description"], json!("Search articles."));
    assert_eq!(tool["json_schema"]["properties"]["limit"]["type"], json!("integer"));
    assert_eq!(tool["default_requires_approval"], json!(false));

    // Bad sources: a 400 naming the problem, nothing stored.
    for (source, want) in [
        ("def other(q: str):\n    \"\"\"Q.\n\n    Args:\n        q: Q.\n    \"\"\"\n", "defines `def other`"),
        ("def bad_one(q):\n    \"\"\"Q.\n\n    Args:\n        q: Q.\n    \"\"\"\n", "no type hint"),
        ("def bad_one(q: str):\n    return 1\n", "no docstring"),
        ("def bad_one(q: str:\n", "syntax error"),
    ] {
        let body = json!({"name": "bad_one", "sourceCode": source}).to_string();
        let c = curl.clone();
        let (status, err) = tokio::task::spawn_blocking(move || c("POST", path, Some(&body))).await.unwrap();
        assert_eq!((status, err["error"]["code"].clone()), (400, json!("invalid_arguments")), "{err}");
        assert!(err["error"]["message"].as_str().unwrap().contains(want), "{err}");
    }
    let body = json!({"name": "x", "source_code": "def x(): pass"}).to_string();
    let c = curl.clone();
    let (status, err) = tokio::task::spawn_blocking(move || c("POST", path, Some(&body))).await.unwrap();
    assert_eq!(status, 400, "the snake_case spelling is not this endpoint's: {err}");

    // After a restart: still there, its approval as registered.
    server.stop().await;
    host.close().await;
    let host = Host::open(data, browser).await.unwrap();
    let spec = host.core().registry().get("query_local_db").cloned().expect("registered after a restart");
    assert!(!spec.requires_confirmation);
    assert_eq!(spec.parameters["required"], json!(["query"]));
    let server = api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await.unwrap();
    let base = format!("http://127.0.0.1:{}", server.addr().port());
    let del = std::process::Command::new("curl")
        .args([
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-X",
            "DELETE",
            "-H",
            &format!("Authorization: Bearer {TOKEN}"),
        ])
        .arg(format!("{base}{path}/query_local_db"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&del.stdout), "200");
    assert!(host.core().registry().get("query_local_db").is_none());
    server.stop().await;
    host.close().await;
}
