//! MCP both ways with real, unmodified peers (`tests/common/mcp.rs`):
//! Halley's tools listed and called by the MCP Inspector's CLI and the
//! Python `mcp` SDK over stdio and streamable HTTP, every call through the
//! gate; Halley attaching server-filesystem, mcp-server-fetch and another
//! Halley's `/mcp` as tool sources for the scripted model.

use std::sync::Arc;

use halley::DataDir;
use halley::api;
use halley::core::BrowserSettings;
use halley::host::Host;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::fixtures::FixtureServer;
use crate::common::mcp::{self, inspect, inspector, json_out, python_client, tool};
use crate::common::model_server::{ModelServer, ToolCall, Turn};

const TOKEN: &str = "hly_mcp_test_token_0123456789abcdef";

fn halley_bin() -> &'static str {
    env!("CARGO_BIN_EXE_halley")
}

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.starts_with('{')).filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// The profile value Halley keeps under `key` (through its own CLI).
fn profile_value(h: &Halley, key: &str) -> Value {
    let got = h.run(&["tools", "call", "user_profile_get", "--args", &json!({"keys": [key]}).to_string()]);
    got.result()["data"]["values"][key].clone()
}

#[test]
fn the_inspector_lists_and_calls_halley_tools_over_stdio_and_a_gated_call_is_refused() {
    let h = Halley::new();
    let data = h.data_dir();
    let data = data.to_str().unwrap();
    let serve = ["--", halley_bin(), "--data-dir", data, "mcp", "serve"];

    let listed = inspect("tools/list", &[&["--method", "tools/list"][..], &serve[..]].concat());
    let tools = &listed["tools"];
    // Annotations follow the scopes.
    let get = tool(tools, "user_profile_get");
    assert_eq!(get["annotations"]["readOnlyHint"], true, "{get}");
    let set = tool(tools, "user_profile_set");
    assert_eq!(
        (&set["annotations"]["readOnlyHint"], &set["annotations"]["destructiveHint"]),
        (&json!(false), &json!(false))
    );
    let submit = tool(tools, "browser_upload_file");
    assert_eq!(submit["annotations"]["destructiveHint"], true, "{submit}");
    assert_eq!(set["inputSchema"]["required"], json!(["set"]));
    // The skills are offered like the primitives.
    assert!(tools.as_array().unwrap().iter().any(|t| t["name"] == "creator_plan_calendar"), "a skill is missing");

    // A call goes through and its result is the ToolResultV2, as structured content.
    let call = |value: &str| {
        let arg = format!("set={{\"shopping.budget_vnd\": {value}}}");
        let args = ["--method", "tools/call", "--tool-name", "user_profile_set", "--tool-arg", &arg];
        inspect("tools/call", &[&args[..], &serve[..]].concat())
    };
    let done = call("25000000");
    assert_eq!(done["structuredContent"]["status"], "ok", "{done}");
    assert_eq!(done["structuredContent"]["data"]["updated"], json!(["shopping.budget_vnd"]));
    assert_eq!(profile_value(&h, "shopping.budget_vnd"), json!(25_000_000));

    // The user wants to be asked; this client cannot ask (no elicitation)
    // and no desktop app is there: refused, with the reason, nothing changed.
    let rule = h.run(&["rules", "add", "--tool", "user_profile_set", "ask"]);
    assert_eq!(rule.code, 0, "{}", rule.stderr);
    let refused = call("1");
    assert_eq!(refused["isError"], true, "{refused}");
    let error = &refused["structuredContent"]["error"];
    assert_eq!(error["code"], "denied", "{refused}");
    assert!(error["message"].as_str().unwrap().contains("cannot ask"), "{error}");
    assert_eq!(profile_value(&h, "shopping.budget_vnd"), json!(25_000_000), "the refused call changed nothing");
}

#[test]
fn the_python_sdk_over_stdio_is_asked_through_elicitation_on_both_protocols() {
    let h = Halley::new();
    let data = h.data_dir();
    let rule = h.run(&["rules", "add", "--tool", "user_profile_set", "ask"]);
    assert_eq!(rule.code, 0, "{}", rule.stderr);
    // 2025-11-25: an elicitation request to the client; 2026-07-28 (`--modern`):
    // an input-required result, and the client calls again with the answer.
    for (protocol, key) in [("2025-11-25", "travel.seat"), ("2026-07-28", "travel.meal")] {
        let calls = json!([
            {"name": "user_profile_get", "arguments": {"keys": [key]}},
            {"name": "user_profile_set", "arguments": {"set": {key: "cửa sổ"}}},
        ])
        .to_string();
        let run = |answer: &str| {
            let mut args = vec!["--answer", answer, "--calls", &calls];
            if protocol != "2025-11-25" {
                args.push("--modern");
            }
            args.extend(["--", halley_bin(), "--data-dir", data.to_str().unwrap(), "mcp", "serve"]);
            json_out("python stdio", &python_client(&args))
        };

        let declined = run("decline");
        assert_eq!(declined["protocolVersion"], protocol);
        assert!(declined["tools"].as_array().unwrap().len() > 20, "{declined}");
        assert_eq!(declined["calls"][0]["structuredContent"]["status"], "ok", "a READ_ONLY call asks nobody");
        assert_eq!(declined["asked"].as_array().unwrap().len(), 1, "{declined}");
        assert!(declined["asked"][0].as_str().unwrap().contains("user_profile_set"), "{declined}");
        assert_eq!(declined["calls"][1]["isError"], true, "{declined}");
        assert_eq!(declined["calls"][1]["structuredContent"]["error"]["code"], "denied");
        assert_eq!(profile_value(&h, key), Value::Null, "{protocol}: declined, nothing written");

        let accepted = run("accept");
        assert_eq!(accepted["calls"][1]["structuredContent"]["status"], "ok", "{accepted}");
        assert_eq!(profile_value(&h, key), json!("cửa sổ"), "{protocol}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_and_the_inspector_use_halley_over_http_at_slash_mcp() {
    let h = Halley::new();
    let rule = h.run(&["rules", "add", "--tool", "user_profile_set", "ask"]);
    assert_eq!(rule.code, 0, "{}", rule.stderr);
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(h.data_dir()), browser).await.unwrap();
    let server = api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await.unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", server.addr().port());
    let calls = json!([{"name": "user_profile_set", "arguments": {"set": {"shopping.city": "Hà Nội"}}}]).to_string();

    let (u, c) = (url.clone(), calls.clone());
    let declined = tokio::task::spawn_blocking(move || {
        json_out("python http", &python_client(&["--http", &u, "--token", TOKEN, "--answer", "decline", "--calls", &c]))
    })
    .await
    .unwrap();
    tool(&declined["tools"], "user_profile_get");
    assert_eq!(declined["calls"][0]["structuredContent"]["error"]["code"], "denied", "{declined}");
    let (u, c) = (url.clone(), calls.clone());
    let accepted = tokio::task::spawn_blocking(move || {
        json_out("python http", &python_client(&["--http", &u, "--token", TOKEN, "--answer", "accept", "--calls", &c]))
    })
    .await
    .unwrap();
    assert_eq!(accepted["calls"][0]["structuredContent"]["status"], "ok", "{accepted}");
    assert_eq!(accepted["asked"].as_array().unwrap().len(), 1);
    // 2026-07-28 over HTTP (stateless): the question in the result, answered by calling again.
    let u = url.clone();
    let c = json!([{"name": "user_profile_set", "arguments": {"set": {"shopping.district": "Ba Đình"}}}]).to_string();
    let modern = tokio::task::spawn_blocking(move || {
        let args = ["--http", &u, "--token", TOKEN, "--answer", "accept", "--modern", "--calls", &c];
        json_out("python http 2026-07-28", &python_client(&args))
    })
    .await
    .unwrap();
    assert_eq!(modern["protocolVersion"], "2026-07-28");
    assert_eq!(modern["calls"][0]["structuredContent"]["status"], "ok", "{modern}");
    assert_eq!(modern["asked"].as_array().unwrap().len(), 1, "{modern}");

    // The Inspector over HTTP, with the token; without it, refused.
    let auth = format!("Authorization: Bearer {TOKEN}");
    let (u, a) = (url.clone(), auth.clone());
    let listed = tokio::task::spawn_blocking(move || {
        inspector(&["--method", "tools/list", "--transport", "http", "--server-url", &u, "--header", &a])
    })
    .await
    .unwrap();
    tool(&json_out("inspector http", &listed)["result"]["tools"], "normalize_compare");
    let u = url.clone();
    let no_token = tokio::task::spawn_blocking(move || {
        inspector(&["--method", "tools/list", "--transport", "http", "--server-url", &u])
    })
    .await
    .unwrap();
    assert!(!no_token.status.success(), "listed without a token");

    // /mcp keeps the API's rules: a web page's request, a rebinding name,
    // a missing or wrong token are refused before MCP sees them.
    let client = reqwest::Client::new();
    let bearer = format!("Bearer {TOKEN}");
    for (case, header, value, status) in [
        ("a web page", "Origin", "http://evil.example", 403),
        ("Origin: null", "Origin", "null", 403),
        ("a rebinding name", "Host", "evil.example", 403),
        ("a wrong token", "Authorization", "Bearer nope", 401),
        ("no token", "X-None", "", 401),
    ] {
        let mut request = client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        if header != "Authorization" && case != "no token" {
            request = request.header("Authorization", &bearer);
        }
        let answer = request.header(header, value).send().await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{case}");
        let body: Value = answer.json().await.unwrap();
        assert!(body["error"]["code"].is_string(), "{case}: {body}");
    }

    server.stop().await;
    host.close().await;
    assert_eq!(profile_value(&h, "shopping.city"), json!("Hà Nội"));
    assert_eq!(profile_value(&h, "shopping.district"), json!("Ba Đình"));
}

/// `halley run` with the scripted model, printing JSON events.
fn run_model(h: &Halley, model: &ModelServer, task: &str) -> Vec<Value> {
    let run = h.run(&["run", task, "--json", "--confirm", "deny", "--base-url", &model.base_url(), "--model", "m"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    events(&run.stdout)
}

fn tool_result<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == name)
        .unwrap_or_else(|| panic!("no result of {name}"))
}

#[test]
fn halley_attaches_server_filesystem_and_the_model_reads_a_file_once_allowed() {
    let h = Halley::new();
    let note = h.write_file("notes/gia.txt", "Giá vé Hà Nội - Đà Nẵng: 1.290.000 ₫".as_bytes());
    let root = h.work_dir();
    let fs = mcp::bin("mcp-server-filesystem");
    let added = h.run(&["mcp", "add", "fs", "--", fs.to_str().unwrap(), root.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    assert!(added.stdout.contains("fs__read_text_file"), "{}", added.stdout);
    let listed = h.run(&["mcp", "list", "--json"]).json();
    assert_eq!(listed[0]["name"], "fs");
    assert_eq!(listed[0]["transport"], "stdio");
    let shown = h.run(&["tools", "show", "fs__read_text_file"]);
    assert!(
        shown.stdout.contains("WRITE_NON_DESTRUCTIVE"),
        "another server's read-only hint is not trusted: {}",
        shown.stdout
    );

    let read = || ToolCall::new("fs__read_text_file", json!({"path": note.to_str().unwrap()}));
    // Asked about by default: `--confirm deny` refuses it, nothing is read.
    let model = ModelServer::start(vec![Turn::tool_calls(vec![read()]), Turn::text("Không đọc được.")]);
    let evs = run_model(&h, &model, "Giá vé trong ghi chú là bao nhiêu?");
    assert_eq!(tool_result(&evs, "fs__read_text_file")["result"]["error"]["code"], "denied");

    // The user allows that tool: the server starts on demand, the model reads the file, fenced.
    let rule = h.run(&["rules", "add", "--tool", "fs__read_text_file", "allow"]);
    assert_eq!(rule.code, 0, "{}", rule.stderr);
    let model = ModelServer::start(vec![Turn::tool_calls(vec![read()]), Turn::text("1.290.000 ₫.")]);
    let evs = run_model(&h, &model, "Giá vé trong ghi chú là bao nhiêu?");
    let result = &tool_result(&evs, "fs__read_text_file")["result"];
    assert_eq!(result["status"], "ok", "{result}");
    assert!(result["data"].to_string().contains("1.290.000 ₫"), "{result}");
    let reqs = model.requests();
    // Not in the first request's small set, called all the same, offered from then on.
    let offers =
        |n: usize| reqs[n]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "fs__read_text_file");
    assert!(!offers(0) && offers(1));
    let tool_msg = reqs[1]["messages"].as_array().unwrap().iter().rfind(|m| m["role"] == "tool").unwrap().clone();
    let content = tool_msg["content"].as_str().unwrap();
    assert!(content.contains("<<<PAGE_DATA ") && content.contains("1.290.000"), "{content}");

    let removed = h.run(&["mcp", "remove", "fs"]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(h.run(&["mcp", "list", "--json"]).json(), json!([]));
    assert_eq!(h.run(&["tools", "show", "fs__read_text_file"]).code, 2);
}

#[test]
fn halley_attaches_mcp_server_fetch_and_the_model_fetches_a_local_page() {
    let h = Halley::new();
    let site = FixtureServer::start();
    let fetch = mcp::bin("mcp-server-fetch");
    let added =
        h.run(&["mcp", "add", "fetch", "--", fetch.to_str().unwrap(), "--ignore-robots-txt", "--allow-private-ips"]);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    assert!(added.stdout.contains("  fetch__fetch: Fetches a URL from the internet"), "{}", added.stdout);
    assert!(!added.stderr.contains("warning"), "an ordinary server is not flagged: {}", added.stderr);
    assert_eq!(h.run(&["rules", "add", "--tool", "fetch__fetch", "allow"]).code, 0);
    let call = ToolCall::new("fetch__fetch", json!({"url": site.url("shop-vn.html"), "raw": true}));
    let model = ModelServer::start(vec![Turn::tool_calls(vec![call]), Turn::text("21.490.000 ₫")]);
    let evs = run_model(&h, &model, "Laptop giá bao nhiêu?");
    let result = &tool_result(&evs, "fetch__fetch")["result"];
    assert_eq!(result["status"], "ok", "{result}");
    assert!(result["data"].to_string().contains("21.490.000"), "{result}");
    // The server talks to the model in its description ("this tool now grants
    // you internet access"): the model reads that only inside a fence.
    // Offered once called (the first request offers the core set).
    let tools = model.requests()[1]["tools"].clone();
    let fetch = tools.as_array().unwrap().iter().find(|t| t["function"]["name"] == "fetch__fetch").unwrap();
    let description = fetch["function"]["description"].as_str().unwrap();
    let (before, inside) = description.split_once("<<<PAGE_DATA ").unwrap();
    assert!(before.starts_with("A tool of the MCP server `fetch`") && !before.contains("internet"), "{description}");
    assert!(inside.contains("this tool now grants you internet access"), "{description}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn halley_attaches_another_halley_over_streamable_http_with_a_header() {
    let other = Halley::new();
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(other.data_dir()), browser).await.unwrap();
    let server = api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await.unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", server.addr().port());

    let h = Halley::new();
    let (h, added, wrong) = tokio::task::spawn_blocking(move || {
        let wrong = h.run(&["mcp", "add", "other", "--url", &url, "--header", "Authorization: Bearer nope"]);
        let auth = format!("Authorization: Bearer {TOKEN}");
        let added = h.run(&["mcp", "add", "other", "--url", &url, "--header", &auth]);
        (h, added, wrong)
    })
    .await
    .unwrap();
    assert_eq!(wrong.code, 1, "a wrong token is refused: {}", wrong.stdout);
    assert!(wrong.stderr.contains("cannot start the MCP server `other`"), "{}", wrong.stderr);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    assert!(added.stdout.contains("other__normalize_compare"), "{}", added.stdout);
    let listed = h.run(&["mcp", "list"]);
    assert!(listed.stdout.contains("(headers: Authorization)"), "{}", listed.stdout);
    // The token is in the OS keyring, not in the database.
    for file in ["halley.db", "halley.db-wal"] {
        let bytes = std::fs::read(h.data_dir().join(file)).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(TOKEN), "the token is in {file}");
    }
    // A call in a new process: the header comes back from the keyring.
    let (h, called) = tokio::task::spawn_blocking(move || {
        let args = json!({"keys": ["shopping.budget_vnd"]}).to_string();
        let called = h.run(&["tools", "call", "other__user_profile_get", "--yes", "--args", &args]);
        (h, called)
    })
    .await
    .unwrap();
    assert_eq!(called.code, 0, "{}\n{}", called.stdout, called.stderr);
    let result = called.result();
    assert_eq!(result["data"]["structuredContent"]["status"], "ok", "{result}");
    assert_eq!(result["data"]["structuredContent"]["data"]["missing"], json!(["shopping.budget_vnd"]));
    let removed = h.run(&["mcp", "remove", "other"]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    server.stop().await;
    host.close().await;
}

#[test]
fn bad_mcp_add_commands_are_usage_errors_and_store_nothing() {
    let h = Halley::new();
    for (args, says) in [
        (vec!["mcp", "add", "x"], "-- COMMAND"),
        (vec!["mcp", "add", "a__b", "--", "true"], "not a usable MCP server name"),
        (vec!["mcp", "add", "x", "--url", "http://127.0.0.1:9/mcp", "--header", "nocolon"], "NAME:VALUE"),
        (vec!["mcp", "remove", "nothing"], "no MCP server"),
    ] {
        let r = h.run(&args);
        assert_ne!(r.code, 0, "{args:?}");
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    }
    let gone = h.run(&["mcp", "add", "gone", "--", "/nonexistent/mcp-server"]);
    assert_eq!(gone.code, 1, "{}", gone.stderr);
    assert!(gone.stderr.contains("cannot start the MCP server `gone`"), "{}", gone.stderr);
    assert_eq!(h.run(&["mcp", "list", "--json"]).json(), json!([]));
}

/// The ids of this process's children whose command line contains `needle`.
fn children_running(needle: &str) -> Vec<i32> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid ...`: the parent is the second field after the name.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)).unwrap_or_default();
        let cmdline = std::fs::read_to_string(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == me && cmdline.contains(needle) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_server_starts_on_demand_and_again_after_it_died() {
    use halley::context::{CallContext, FrontEnd};
    use halley::gate::ApproveAll;
    use halley::store::mcp_servers::McpTransport;

    let h = Halley::new();
    let root = h.work_dir().to_string_lossy().into_owned();
    let core = halley::host::open_core(DataDir::at(h.data_dir())).await.unwrap();
    let fs = mcp::bin("mcp-server-filesystem").to_string_lossy().into_owned();
    let transport = McpTransport::Stdio { command: fs, args: vec![root.clone()] };
    core.add_mcp_server("fsd", &transport).await.unwrap();
    assert!(children_running("mcp-server-filesystem").is_empty(), "adding it leaves nothing running");

    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(Arc::new(ApproveAll));
    let list = || core.call_tool(&cx, "fsd__list_allowed_directories", json!({}));
    let first = list().await;
    assert!(first.is_ok(), "{first:?}");
    let running = children_running("mcp-server-filesystem");
    assert_eq!(running.len(), 1, "started on the first call: {running:?}");

    // The server dies; the next call starts it again.
    let status = std::process::Command::new("kill").arg("-9").arg(running[0].to_string()).status().unwrap();
    assert!(status.success());
    let mut again = list().await;
    if !again.is_ok() {
        // The death was noticed by this call (it was not resent): the next one restarts it.
        assert_eq!(again.error.as_ref().map(|e| e.code.as_str()), Some("not_available"), "{again:?}");
        again = list().await;
    }
    assert!(again.is_ok(), "{again:?}");
    assert!(serde_json::to_string(&again.data).unwrap().contains(&root));
    let now = children_running("mcp-server-filesystem");
    assert_eq!(now.len(), 1);
    assert_ne!(now[0], running[0], "a new server process");
    core.close().await;
}

/// The panel's MCP servers section: `AddMcpServer` attaches through the
/// same core function as `halley mcp add` (the server listed once, its
/// tools stored), `ListMcpServers` shows it with its tools and whether it
/// runs, bad input is an `invalid_arguments` error storing nothing, and
/// `RemoveMcpServer` forgets it (an unknown name is `not_found`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_adds_lists_and_removes_an_mcp_server() {
    use halley::error::ErrorCode;
    use halley::protocol::{McpServerView, Op, Reply};

    let h = Halley::new();
    let root = h.work_dir().to_string_lossy().into_owned();
    let browser = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let host = Host::open(DataDir::at(h.data_dir()), browser).await.unwrap();
    let servers = |reply: Reply| match reply {
        Reply::McpServers { servers } => servers,
        other => panic!("not McpServers: {other:?}"),
    };
    assert_eq!(servers(host.handle(Op::ListMcpServers).await.unwrap()), Vec::<McpServerView>::new());

    let both = Op::AddMcpServer {
        name: "x".into(),
        url: Some("http://127.0.0.1:1/mcp".into()),
        headers: vec![],
        command: vec!["true".into()],
    };
    assert_eq!(host.handle(both).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    let bad_header = Op::AddMcpServer {
        name: "x".into(),
        url: Some("http://127.0.0.1:1/mcp".into()),
        headers: vec!["nocolon".into()],
        command: vec![],
    };
    assert_eq!(host.handle(bad_header).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    assert!(servers(host.handle(Op::ListMcpServers).await.unwrap()).is_empty(), "nothing stored");

    let fs = mcp::bin("mcp-server-filesystem").to_string_lossy().into_owned();
    let add =
        Op::AddMcpServer { name: "files".into(), url: None, headers: vec![], command: vec![fs.clone(), root.clone()] };
    let added = servers(host.handle(add).await.unwrap());
    assert_eq!(added.len(), 1);
    let s = &added[0];
    assert_eq!((s.name.as_str(), s.transport.as_str(), s.running), ("files", "stdio", false));
    assert_eq!(s.target, format!("{fs} {root}"));
    assert!(s.tools.contains(&"files__read_text_file".to_owned()), "{:?}", s.tools);
    // Each tool with the server's own description; an ordinary server's words are not flagged.
    assert_eq!(s.described.iter().map(|d| d.name.clone()).collect::<Vec<_>>(), s.tools);
    assert!(s.described.iter().all(|d| !d.description.is_empty() && d.flagged.is_empty()), "{:?}", s.described);
    assert_eq!(servers(host.handle(Op::ListMcpServers).await.unwrap()), added);

    assert!(servers(host.handle(Op::RemoveMcpServer { name: "files".into() }).await.unwrap()).is_empty());
    let gone = host.handle(Op::RemoveMcpServer { name: "files".into() }).await.unwrap_err();
    assert_eq!(gone.code(), ErrorCode::NotFound);
    host.close().await;
}
