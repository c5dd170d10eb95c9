//! Fuzzing on stable Rust: the Python-source parser of client-tool
//! registration, and the local API's request bodies (and headers) through
//! its real router, in process. Each target gets N mutated inputs
//! (1,000,000 by default) from a deterministic generator seeded with valid
//! requests; a panic, a 5xx, or an error answer without a JSON
//! `{"error":{"code","message"}}` body is a finding, and the program exits
//! non-zero after printing the first few.
//!
//! `make fuzz` (or `cargo run --release -p halley --example fuzz_api -- [N] [SEED]`).
//! Not part of CI: a million inputs per target take minutes.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::FutureExt;
use halley::DataDir;
use halley::api::python::parse_function;
use halley::core::BrowserSettings;
use halley::host::Host;
use tower::Service;

const TOKEN: &str = "hly_fuzz_token_0123456789abcdef";

/// xorshift64*: small, fast, and the same inputs for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One input from the seeds: a few stacked mutations (byte flips, inserted
/// dictionary tokens, deletions, duplications, splices with another seed,
/// truncation).
fn mutate(rng: &mut Rng, seeds: &[&[u8]], dictionary: &[&[u8]]) -> Vec<u8> {
    let seed = rng.below(seeds.len());
    mutate_seed(rng, seeds, seed, dictionary)
}

/// [`mutate`] from `seeds[seed]`: one mutation half the time, so that many
/// inputs stay close to valid and reach the deep paths.
fn mutate_seed(rng: &mut Rng, seeds: &[&[u8]], seed: usize, dictionary: &[&[u8]]) -> Vec<u8> {
    let mut data = seeds[seed].to_vec();
    let rounds = if rng.chance(50) { 1 } else { 1 + rng.below(4) };
    for _ in 0..rounds {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = rng.pick(dictionary);
                data.splice(at..at, token.iter().copied());
            }
            2 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            3 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(32)).min(data.len());
                let copy = data[start..end].to_vec();
                data.splice(at..at, copy);
            }
            4 => {
                let other = rng.pick(seeds);
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            5 => data.truncate(at),
            _ => {
                let b = (rng.next() & 0xff) as u8;
                data.insert(at, b);
            }
        }
        if data.len() > 64 * 1024 {
            data.truncate(64 * 1024);
        }
    }
    data
}

struct Tally {
    name: &'static str,
    inputs: u64,
    findings: Vec<String>,
    outcomes: std::collections::BTreeMap<String, u64>,
    started: Instant,
}

impl Tally {
    fn new(name: &'static str) -> Tally {
        Tally { name, inputs: 0, findings: Vec::new(), outcomes: Default::default(), started: Instant::now() }
    }

    fn count(&mut self, outcome: String) {
        self.inputs += 1;
        *self.outcomes.entry(outcome).or_default() += 1;
    }

    fn finding(&mut self, what: String) {
        if self.findings.len() < 20 {
            self.findings.push(what);
        }
    }

    fn report(&self) {
        let secs = self.started.elapsed().as_secs_f64();
        println!(
            "{}: {} inputs in {:.0} s ({:.0}/s), {} findings",
            self.name,
            self.inputs,
            secs,
            self.inputs as f64 / secs,
            self.findings.len()
        );
        let mut top: Vec<_> = self.outcomes.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1));
        for (outcome, n) in top.iter().take(8) {
            println!("  {n:>9}  {outcome}");
        }
        for f in &self.findings {
            println!("  FINDING: {f}");
        }
    }
}

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

fn fuzz_python(n: u64, rng: &mut Rng) -> Tally {
    let seeds: Vec<&[u8]> = PY_SEEDS.iter().map(|s| s.as_bytes()).collect();
    let dict: Vec<&[u8]> = PY_DICT.iter().map(|s| s.as_bytes()).collect();
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
                tally.finding(format!("panic on {source:?} (name {name:?})"));
                tally.count("PANIC".into());
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

async fn fuzz_api(n: u64, rng: &mut Rng) -> anyhow::Result<Tally> {
    let dir = tempfile::tempdir()?;
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(dir.path().join("data")), browser).await?;
    let mut router = halley::api::router_in_process(Arc::clone(&host), TOKEN.to_owned(), 4000);
    let routes = api_routes();
    let dict: Vec<&[u8]> = JSON_DICT.iter().map(|s| s.as_bytes()).collect();
    let hosts =
        ["127.0.0.1:4000", "localhost", "[::1]:4000", "evil.example", "", "127.0.0.1.nip.io", "localhost:4000\0"];
    let types = ["application/json", "application/json; charset=utf-8", "text/plain", "application/jsonx", ""];
    let mut tally = Tally::new("API request bodies");
    for _ in 0..n {
        let (method, path, seeds) = rng.pick(&routes);
        let seeds: Vec<&[u8]> = seeds.iter().map(|s| s.as_bytes()).collect();
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
                tally.finding(format!("panic on {method} {path} {:?}", String::from_utf8_lossy(&body)));
                tally.count("PANIC".into());
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

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map(|a| a.parse()).transpose().context("N: a number of inputs")?.unwrap_or(1_000_000);
    let seed: u64 = args.next().map(|a| a.parse()).transpose().context("SEED: a number")?.unwrap_or(0x4841_4c4c_4559);
    // A panic is a finding, counted above: not a message per input.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let python = fuzz_python(n, &mut rng);
    python.report();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let api = runtime.block_on(fuzz_api(n, &mut rng))?;
    api.report();
    if python.findings.is_empty() && api.findings.is_empty() {
        println!("no findings (seed {seed})");
        Ok(())
    } else {
        anyhow::bail!("findings (seed {seed}): see above")
    }
}
