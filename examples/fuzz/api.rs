//! The Python-source parser of client-tool registration, and the local
//! API's request bodies (and headers) through its real router, in process.
//! A panic, a 5xx, or an error answer without a JSON
//! `{"error":{"code","message"}}` body is a finding.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::FutureExt;
use halley::DataDir;
use halley::core::BrowserSettings;
use halley::host::Host;
use halley::tools::python::parse_function;
use tower::Service;

use crate::kit::{Rng, Tally, bytes_of, mutate, mutate_seed};

const TOKEN: &str = "hly_fuzz_token_0123456789abcdef";

const PY_SEEDS: &[&str] = &[
    "def query_local_db(query: str, category: Optional[str] = None) -> dict:\n    \"\"\"Search the local product database.\n\n    Args:\n        query: What to look for.\n        category: Only this category.\n    \"\"\"\n    return {}\n",
    "from typing import List, Literal\n\n@tool\ndef pick(items: List[int], mode: Literal[\"a\", \"b\"] = \"a\", ratio: float = 0.5, on: bool = True) -> str:\n    '''Pick one.\n\n    Args:\n        items (list): The numbers.\n        mode: Which way.\n        ratio: How much.\n        on: Whether.\n    '''\n    pass\n",
    "def tra_cuu(ma_sp: str, gia: int | None = None, tags: list[str] = [], meta: dict = {}) -> str:\n    \"\"\"Tra cứu sản phẩm theo mã (giá VND).\n\n    Args:\n        ma_sp: Mã sản phẩm.\n        gia: Giá tối đa, ví dụ 19.990.000 ₫.\n        tags: Nhãn.\n        meta: Thêm.\n    \"\"\"\n",
    "async def f(x: int):\n    \"\"\"No.\n\n    Args:\n        x: y\n    \"\"\"\n",
    "class A:\n    def m(self, x: int) -> int:\n        return x\n",
];

const PY_DICT: &[&str] = &[
    "def ",
    "async ",
    "(",
    ")",
    ":",
    "->",
    "\"\"\"",
    "'''",
    "Args:",
    "Returns:",
    "\n",
    "\n    ",
    "\t",
    "Optional[",
    "List[",
    "Dict[str, ",
    "Literal[",
    "]",
    ", ",
    "=",
    "None",
    "*args",
    "**kw",
    "/",
    "@",
    "lambda",
    "\\",
    "#",
    "\u{0}",
    "\u{feff}",
    "ạ",
    "₫",
    "𝔘",
    "[[[[[[[[",
    "((((((((",
    "x: int",
    "str | None",
    "...",
    "'",
    "\"",
    "\r\n",
];

pub fn fuzz_python(n: u64, rng: &mut Rng) -> Tally {
    let seeds = bytes_of(PY_SEEDS);
    let dict = bytes_of(PY_DICT);
    // The name each seed defines (then a wrong one now and then).
    let names = ["query_local_db", "pick", "tra_cuu", "f", "m", ""];
    let mut tally = Tally::new("python parser");
    for _ in 0..n {
        let seed = rng.below(seeds.len());
        let bytes = mutate_seed(rng, &seeds, seed, &dict);
        let source = String::from_utf8_lossy(&bytes);
        let name = if rng.chance(90) { &names[seed] } else { rng.pick(&names) };
        match std::panic::catch_unwind(AssertUnwindSafe(|| parse_function(&source, name))) {
            Ok(Ok(f)) => {
                if !f.parameters.is_object() {
                    tally.finding(format!("a schema that is not an object for {source:?}"));
                }
                tally.count("parsed".into());
            }
            Ok(Err(e)) => {
                let message = e.to_string();
                // The first words say which kind of refusal it was.
                let kind: String = message.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
                tally.count(format!("refused: {kind}"));
            }
            Err(_) => {
                tally.panic(&format!("{source} (name {name:?})"));
            }
        }
    }
    tally
}

/// (method, path, body seeds) of every route that reads a body, plus a few
/// without one.
fn api_routes() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        ("POST", "/api/v1/tools/user_profile_get/call", vec![r#"{"args":{"keys":["shopping.budget_vnd"]}}"#, r#"{}"#]),
        ("POST", "/api/v1/tools/files_list/call", vec![r#"{"args":{}}"#, r#"{"args":{"limit":5}}"#]),
        ("POST", "/api/v1/tools/no_such_tool/call", vec![r#"{"args":{"x":1}}"#]),
        ("POST", "/api/v1/confirmations/abc", vec![r#"{"approved":true,"user_edits":{"a":1},"reason":"ok"}"#]),
        (
            "POST",
            "/api/letta/agents/tools",
            vec![
                r#"{"name":"query_local_db","description":"Tra cứu","sourceCode":"def query_local_db(query: str, category: Optional[str] = None) -> dict:\n    \"\"\"Search.\n\n    Args:\n        query: What.\n        category: Which.\n    \"\"\"\n","defaultRequiresApproval":false}"#,
                r#"{"name":"f","sourceCode":"def f(x: int):\n    \"\"\"F.\n\n    Args:\n        x: X.\n    \"\"\"\n"}"#,
            ],
        ),
        ("POST", "/api/v1/runs/abc/stop", vec![r#"{}"#]),
        ("GET", "/api/v1/tools", vec![""]),
        ("GET", "/api/v1/runs", vec![""]),
        ("GET", "/api/letta/agents/tools", vec![""]),
        ("DELETE", "/api/letta/agents/tools/nope", vec![""]),
    ]
}

const JSON_DICT: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "false",
    "-0",
    "1e309",
    "-1e-400",
    "18446744073709551616",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\\",
    "\"args\"",
    "\"name\"",
    "\"sourceCode\"",
    "\"approved\"",
    "\"text\"",
    "\"stream\"",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    "{\"a\":{\"a\":{\"a\":{\"a\":",
    "\u{feff}",
    "19.990.000 ₫",
    "\"__proto__\"",
    "\u{7f}",
    "\r\n",
];

pub async fn fuzz_api(n: u64, rng: &mut Rng) -> anyhow::Result<Tally> {
    let dir = tempfile::tempdir()?;
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(dir.path().join("data")), browser).await?;
    let mut router = halley::api::router_in_process(Arc::clone(&host), TOKEN.to_owned(), 4000);
    let routes = api_routes();
    let dict = bytes_of(JSON_DICT);
    let hosts =
        ["127.0.0.1:4000", "localhost", "[::1]:4000", "evil.example", "", "127.0.0.1.nip.io", "localhost:4000\0"];
    let types = ["application/json", "application/json; charset=utf-8", "text/plain", "application/jsonx", ""];
    let mut tally = Tally::new("API request bodies");
    for _ in 0..n {
        let (method, path, seeds) = rng.pick(&routes);
        let seeds = bytes_of(seeds);
        let body = if *method == "GET" && !rng.chance(10) { Vec::new() } else { mutate(rng, &seeds, &dict) };
        let mut request = Request::builder().method(*method).uri(*path);
        // Mostly well-formed headers, so that bodies reach the routes.
        request = request.header("host", if rng.chance(95) { "127.0.0.1:4000" } else { *rng.pick(&hosts) });
        if rng.chance(97) {
            request = request.header("authorization", format!("Bearer {TOKEN}"));
        } else if rng.chance(50) {
            request = request.header("authorization", "Bearer wrong");
        }
        if rng.chance(95) {
            request = request.header("content-type", "application/json");
        } else {
            request = request.header("content-type", *rng.pick(&types));
        }
        if rng.chance(2) {
            request = request.header("origin", "null");
        }
        let request = match request.body(Body::from(body.clone())) {
            Ok(r) => r,
            Err(_) => {
                tally.count("not an HTTP request".into());
                continue;
            }
        };
        let answer = AssertUnwindSafe(router.call(request)).catch_unwind().await;
        let response = match answer {
            Ok(Ok(r)) => r,
            Ok(Err(never)) => match never {},
            Err(_) => {
                tally.panic(&format!("{method} {path} {}", String::from_utf8_lossy(&body)));
                continue;
            }
        };
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 4 * 1024 * 1024).await.unwrap_or_default();
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        if status.is_server_error() {
            tally.finding(format!("{status} on {method} {path} {:?}: {json}", String::from_utf8_lossy(&body)));
        } else if !status.is_success()
            && (json["error"]["code"].as_str().is_none() || json["error"]["message"].as_str().is_none())
        {
            tally.finding(format!(
                "{status} without a JSON error on {method} {path} {:?}",
                String::from_utf8_lossy(&body)
            ));
        }
        let code = json["error"]["code"].as_str().unwrap_or(if status == StatusCode::OK { "ok" } else { "" });
        tally.count(format!("{} {code}", status.as_u16()));
    }
    host.close().await;
    Ok(tally)
}
