//! Client-executed tools and Letta compatibility over real loopback HTTP:
//! real Python clients (the official `letta-client` SDK, a `requests`
//! program, both unmodified, in the venv `scripts/python-peers.sh` makes),
//! the scripted model, a real store.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use futures::StreamExt;
use halley::protocol::{AgentEvent, Event, Op, RunStatus, Settings};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::api::{Served, TOKEN, served};
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// The venv's python, the peers installed (once; cached).
fn peers_python() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(root.join("scripts/python-peers.sh")).output().expect("python-peers.sh runs");
    assert!(out.status.success(), "python-peers.sh: {}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn peer_script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers").join(name)
}

fn base(s: &Served) -> String {
    format!("http://127.0.0.1:{}", s.server.addr().port())
}

/// A client application over plain HTTP: the API's address and the id it
/// names itself with (`X-Halley-Client`).
pub(crate) struct App {
    base: String,
    client: &'static str,
    http: reqwest::Client,
}

impl App {
    pub(crate) fn new(s: &Served, client: &'static str) -> App {
        App { base: base(s), client, http: reqwest::Client::new() }
    }

    /// POST `body` (JSON) to `path` with the token, as this client.
    pub(crate) fn post(
        &self,
        path: &str,
        body: Value,
    ) -> impl Future<Output = reqwest::Result<reqwest::Response>> + Send + use<> {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .header("X-Halley-Client", self.client)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
    }

    /// Open this client's event stream.
    pub(crate) fn listen(&self) -> impl Future<Output = reqwest::Result<reqwest::Response>> + Send + use<> {
        self.http.get(format!("{}/api/v1/clients/{}/events", self.base, self.client)).bearer_auth(TOKEN).send()
    }
}

pub(crate) async fn use_model(s: &Served, model: &ModelServer, name: &str) {
    let settings = Settings { base_url: Some(model.base_url()), model: Some(name.into()), ..Settings::default() };
    s.host.handle(Op::SaveSettings { settings }).await.unwrap();
}

/// The text of the tool message the model was sent last in request `n`.
pub(crate) fn tool_message(model: &ModelServer, n: usize) -> String {
    let request = &model.requests()[n];
    let messages = request["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").expect("a tool message");
    tool["content"].as_str().unwrap_or_default().to_owned()
}

fn types(messages: &Value) -> Vec<&str> {
    messages.as_array().unwrap().iter().map(|m| m["message_type"].as_str().unwrap_or("?")).collect()
}

/// The official letta-client SDK drives the whole flow: a tool from its
/// source, an agent, a message that needs the tool, the approval request,
/// the client's result posted back and the streamed answer; a new message
/// while the call waits is 409 (not retried), wrong call ids 400, a second
/// answer 400, a missing docstring `BadRequestError`; a tool passed as
/// `client_tools` works the same over `/messages/stream`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_letta_sdk_registers_a_tool_and_answers_its_approval_requests() {
    let python = peers_python();
    let s = served().await;
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("query_local_db", json!({"query": "rust"}))]).usage(120, 8),
        Turn::text("Có 1 bài: Rust và SQLite (129.000 ₫).").usage(180, 12),
        Turn::tool_calls(vec![ToolCall::new("local_clock", json!({"tz": "Asia/Ho_Chi_Minh"}))]),
        Turn::text("Bây giờ là 09:30."),
    ]);
    use_model(&s, &model, "scripted-model").await;

    let out = tokio::process::Command::new(&python)
        .arg(peer_script("letta_flow.py"))
        .args([base(&s), TOKEN.to_owned()])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "letta_flow.py failed:\n{}\n{}", stdout, String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();

    let tool = &seen["tool"];
    assert_eq!(tool["name"], json!("query_local_db"));
    assert_eq!(tool["json_schema"]["parameters"]["required"], json!(["query"]));
    assert_eq!(tool["json_schema"]["parameters"]["properties"]["category"]["type"], json!("string"));
    assert_eq!(tool["default_requires_approval"], json!(true));
    assert_eq!(seen["listed"], json!(["query_local_db"]));
    assert_eq!(seen["missing_docstring"]["status"], json!(400));
    assert!(seen["missing_docstring"]["message"].as_str().unwrap().contains("no docstring"), "{seen}");

    // The first answer stops on the approval request.
    let first = &seen["first"];
    assert_eq!(first["stop_reason"]["stop_reason"], json!("requires_approval"));
    let asked = first["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(asked["message_type"], json!("approval_request_message"));
    assert_eq!(asked["tool_call"]["name"], json!("query_local_db"));
    let args: Value = serde_json::from_str(asked["tool_call"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"query": "rust"}));

    assert_eq!(seen["conflict"], json!({"status": 409, "should_retry": "false"}));
    assert_eq!(seen["wrong_ids"]["status"], json!(400));
    assert!(seen["wrong_ids"]["message"].as_str().unwrap().contains("call-unknown"), "{seen}");
    assert_eq!(seen["twice"]["status"], json!(400));

    // The answer, streamed: the client's result, the final text, the end.
    let answer = &seen["answer"];
    assert_eq!(types(answer), ["tool_return_message", "assistant_message", "stop_reason", "usage_statistics"]);
    assert_eq!(answer[0]["tool_call_id"], asked["tool_call"]["tool_call_id"]);
    assert_eq!(answer[0]["status"], json!("success"));
    assert!(answer[0]["tool_return"].as_str().unwrap().contains("Rust và SQLite"), "{answer}");
    assert_eq!(answer[1]["content"], json!("Có 1 bài: Rust và SQLite (129.000 ₫)."));
    assert_eq!(answer[2]["stop_reason"], json!("end_turn"));
    assert_eq!(answer[3]["step_count"], json!(2));
    assert_eq!(answer[3]["prompt_tokens"], json!(300));

    // The client's result reached the model fenced as untrusted data.
    let fed = tool_message(&model, 1);
    assert!(fed.contains("<<<PAGE_DATA") && fed.contains("Rust và SQLite"), "{fed}");

    // A tool passed with the request, answered by a tool_return message.
    let clock = &seen["clock_request"];
    assert_eq!(types(clock), ["approval_request_message", "stop_reason", "usage_statistics"]);
    assert_eq!(clock[0]["tool_call"]["name"], json!("local_clock"));
    assert_eq!(clock[1]["stop_reason"], json!("requires_approval"));
    let clock = &seen["clock_answer"];
    assert_eq!(types(clock), ["tool_return_message", "assistant_message", "stop_reason", "usage_statistics"]);
    assert_eq!(clock[1]["content"], json!("Bây giờ là 09:30."));
    assert!(tool_message(&model, 3).contains("09:30"));

    // Every model turn once: the 409 was not retried, nothing ran twice.
    assert_eq!(model.request_count(), 4);
    assert!(model.requests().iter().all(|r| r["model"] == "scripted-model"));
    // Both runs in the agent's one conversation.
    let convs: Vec<Value> = model.requests().iter().map(|r| r["messages"].as_array().unwrap().len().into()).collect();
    assert!(convs[2].as_u64() > convs[1].as_u64(), "the second run continues the conversation: {convs:?}");

    // The stream as sent: `data:` lines only (the SDK skips named events), `[DONE]` last.
    model.push(Turn::text("Vâng."));
    let agent = seen["agent"]["id"].as_str().unwrap();
    let body = reqwest::Client::new()
        .post(format!("{}/v1/agents/{agent}/messages", base(&s)))
        .bearer_auth(TOKEN)
        .header("Content-Type", "application/json")
        .body(json!({"streaming": true, "messages": [{"role": "user", "content": "Cảm ơn"}]}).to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let lines: Vec<&str> = body.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines.iter().all(|l| l.starts_with("data: ")), "{body}");
    assert_eq!(lines.last(), Some(&"data: [DONE]"), "{body}");
    assert!(body.contains(r#""message_type":"assistant_message""#) && body.contains("Vâng."), "{body}");
}

/// Done-when: a client application in a few lines of Python (`requests`)
/// registers a function; a task sent the way the panel sends it
/// (`Op::SendMessage` on the Host, the panel's path; the desktop e2e harness
/// is not used) needs it; the call is approved in Halley's confirmation
/// (the panel's `AnswerConfirmation`), the client's function runs with the
/// parsed arguments, and the answer streams. A second answer is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_client_runs_its_function_for_a_task_typed_in_the_panel() {
    let python = peers_python();
    let s = served().await;
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("query_local_db", json!({"query": "phở", "category": "food"}))]),
        Turn::text("Bạn có ghi chú: Phở bò Nam Định (65.000 ₫)."),
    ]);
    use_model(&s, &model, "m").await;

    let mut client = tokio::process::Command::new(&python)
        .arg(peer_script("notes_client.py"))
        .args([base(&s), TOKEN.to_owned()])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    let ready = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap();
    assert_eq!(ready.as_deref(), Some("listening"));

    let mut events = s.host.subscribe();
    s.host
        .handle(Op::SendMessage { text: "Tìm ghi chú về phở".into(), conversation_id: None, tabs: vec![] })
        .await
        .unwrap();
    let mut tokens = String::new();
    let mut asked = None;
    let answer = loop {
        match tokio::time::timeout(Duration::from_secs(30), events.recv()).await.unwrap().unwrap() {
            Event::ConfirmationWaiting { request } => {
                asked = Some(request.tool.clone());
                let op = Op::AnswerConfirmation {
                    id: request.id,
                    approved: true,
                    user_edits: Default::default(),
                    reason: String::new(),
                };
                s.host.handle(op).await.unwrap();
            }
            Event::Agent { event: AgentEvent::Token { text }, .. } => tokens.push_str(&text),
            Event::RunEnded { answer, .. } => break answer,
            _ => {}
        }
    };
    assert_eq!(asked.as_deref(), Some("query_local_db"), "defaultRequiresApproval asks in Halley's dialog");
    assert_eq!(answer.as_deref(), Some("Bạn có ghi chú: Phở bò Nam Định (65.000 ₫)."));
    assert_eq!(tokens, "Bạn có ghi chú: Phở bò Nam Định (65.000 ₫).", "the answer streamed");

    let done = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
    let done: Value = serde_json::from_str(&done).unwrap();
    assert_eq!(done["call"]["message_type"], json!("tool_call_message"));
    assert_eq!(done["call"]["name"], json!("query_local_db"));
    assert_eq!(done["call"]["arguments"], json!({"query": "phở", "category": "food"}));
    assert_eq!(done["posted"], json!(200));
    assert_eq!(done["again"]["status"], json!(400), "{done}");
    assert!(done["again"]["body"]["error"]["message"].as_str().unwrap().contains("already answered"));
    assert!(tool_message(&model, 1).contains("Phở bò Nam Định"));
    assert!(client.wait().await.unwrap().success());
}

/// One server-sent `data:` event of a stream (JSON).
pub(crate) async fn next_data<B: AsRef<[u8]>>(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<B>> + Unpin),
    buf: &mut String,
) -> Value {
    loop {
        if let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data:")) {
                return serde_json::from_str(data.trim()).unwrap();
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(20), stream.next()).await.unwrap().unwrap().unwrap();
        buf.push_str(&String::from_utf8_lossy(chunk.as_ref()));
    }
}

/// The refusals and the reconnect, with plain HTTP: no client connected
/// fails the call at once; a client that drops its stream and reconnects
/// gets the waiting call again; unknown and repeated answers are refused;
/// no answer in the client's timeout fails the call (and a late answer is
/// refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_calls_fail_clearly_reach_a_reconnected_client_and_are_answered_once() {
    let s = served().await;
    let (base, http) = (base(&s), reqwest::Client::new());
    let app = App::new(&s, "app-3");
    let post = |path: &str, body: Value| app.post(path, body);
    let source = "def stock_count(sku: str) -> int:\n    \"\"\"Count the units in the shop's back room.\n\n    Args:\n        sku: The product code.\n    \"\"\"\n";
    let r = post("/api/letta/agents/tools", json!({"name": "stock_count", "sourceCode": source, "timeoutSeconds": 2}))
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let call = |sku: &'static str| {
        let post = post("/api/v1/tools/stock_count/call", json!({"args": {"sku": sku}}));
        async move { serde_json::from_slice::<Value>(&post.await.unwrap().bytes().await.unwrap()).unwrap() }
    };

    // Nobody listens: a clear error, at once.
    let result = call("SKU-1").await;
    assert_eq!(result["status"], json!("error"));
    assert_eq!(result["error"]["code"], json!("not_available"));
    assert!(result["error"]["message"].as_str().unwrap().contains("/api/v1/clients/app-3/events"), "{result}");

    let listen = || app.listen();
    let mut stream = listen().await.unwrap().bytes_stream();
    let mut buf = String::new();
    let pending = tokio::spawn(call("SKU-2"));
    let first = next_data(&mut stream, &mut buf).await;
    assert_eq!((first["name"].clone(), first["arguments"].clone()), (json!("stock_count"), json!({"sku": "SKU-2"})));
    // The client goes away and comes back: the call is there again.
    drop(stream);
    let mut stream = listen().await.unwrap().bytes_stream();
    let mut buf = String::new();
    let again = next_data(&mut stream, &mut buf).await;
    assert_eq!(again["tool_call_id"], first["tool_call_id"]);

    let id = first["tool_call_id"].clone();
    let r = post("/api/v1/tool_results", json!({"tool_call_id": id, "result": 7, "error": "x"})).await.unwrap();
    assert_eq!(r.status(), 400, "both a result and an error");
    let r = post("/api/v1/tool_results", json!({"tool_call_id": "call-nobody", "result": 1})).await.unwrap();
    assert_eq!(r.status(), 404);
    let r = post("/api/v1/tool_results", json!({"tool_call_id": id, "result": 7})).await.unwrap();
    assert_eq!(r.status(), 200);
    let r = post("/api/v1/tool_results", json!({"tool_call_id": id, "result": 8})).await.unwrap();
    assert_eq!(r.status(), 400, "a second answer is refused");
    let result = pending.await.unwrap();
    assert_eq!((result["status"].clone(), result["data"].clone()), (json!("ok"), json!(7)), "{result}");

    // No answer within the client's 2 s.
    let started = std::time::Instant::now();
    let late = tokio::spawn(call("SKU-3"));
    let asked = next_data(&mut stream, &mut buf).await;
    let result = late.await.unwrap();
    assert_eq!(result["error"]["code"], json!("timeout"), "{result}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let r = post("/api/v1/tool_results", json!({"tool_call_id": asked["tool_call_id"], "result": 1})).await.unwrap();
    assert_eq!(r.status(), 400, "a late answer is refused");

    // A run that calls the tool is paused while the client runs it, then
    // goes on with its answer.
    let r = post("/api/letta/agents/tools", json!({"name": "stock_count", "sourceCode": source, "timeoutSeconds": 30}));
    assert_eq!(r.await.unwrap().status(), 200);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("stock_count", json!({"sku": "SKU-4"}))]),
        Turn::text("Còn 12 cái SKU-4."),
    ]);
    use_model(&s, &model, "m").await;
    let r = post("/api/v1/runs", json!({"text": "Kho còn bao nhiêu SKU-4?"})).await.unwrap();
    assert_eq!(r.status(), 201);
    let run: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let run_id = run["run_id"].as_str().unwrap().to_owned();
    let asked = next_data(&mut stream, &mut buf).await;
    assert_eq!(
        (asked["run_id"].as_str(), asked["arguments"].clone()),
        (Some(run_id.as_str()), json!({"sku": "SKU-4"}))
    );
    let status = |want: RunStatus| {
        let (store, run_id) = (s.host.core().store().clone(), run_id.clone());
        async move {
            for _ in 0..100 {
                let row = store.runs().get(&run_id).await.unwrap().unwrap();
                if row.status == want {
                    return row.stop_reason;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("run {run_id} never became {want:?}");
        }
    };
    assert_eq!(status(RunStatus::Paused).await.as_deref(), Some("waiting_for_client"));
    let r = post("/api/v1/tool_results", json!({"tool_call_id": asked["tool_call_id"], "result": 12})).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(status(RunStatus::Completed).await.as_deref(), Some("end_turn"));
    assert!(tool_message(&model, 1).contains("12"));

    // The client and Letta routes pass the same guard as the rest.
    let agents = s.host.core().store().agents().list().await.unwrap().len();
    for path in ["/v1/tools/", "/v1/tools", "/api/v1/clients/app-3/events"] {
        let r = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(r.status(), 401, "{path} without the token");
        let r = http.get(format!("{base}{path}")).bearer_auth(TOKEN).header("Origin", "http://evil.example");
        assert_eq!(r.send().await.unwrap().status(), 403, "{path} from a web page");
        let r = http.get(format!("{base}{path}")).bearer_auth(TOKEN).header("Host", "evil.example");
        assert_eq!(r.send().await.unwrap().status(), 403, "{path} with a foreign Host");
    }
    let r = http.post(format!("{base}/v1/agents/")).bearer_auth(TOKEN).header("Content-Type", "text/plain");
    assert_eq!(r.body("{}").send().await.unwrap().status(), 415);
    assert_eq!(s.host.core().store().agents().list().await.unwrap().len(), agents, "nothing was made");
}

/// A client marks its result `sensitive`: the model, the stored messages,
/// the run's events and the database get placeholders
/// `{{secret.<tool_call_id>.<path>}}` and a note; the values stay in the
/// core's memory for the run and are dropped when it ends. `sensitive`
/// with an error, or with too many values, is refused (400) and the call
/// still waits for a proper answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_marked_sensitive_reaches_nothing_but_placeholders() {
    let s = served().await;
    let app = App::new(&s, "vault");
    let post = |path: &str, body: Value| app.post(path, body);
    let source = "def card_details(name: str) -> dict:\n    \"\"\"The user's saved card, from the client's vault.\n\n    Args:\n        name: Which card.\n    \"\"\"\n";
    let r = post("/api/letta/agents/tools", json!({"name": "card_details", "sourceCode": source})).await.unwrap();
    assert_eq!(r.status(), 201);
    let mut stream = app.listen().await.unwrap().bytes_stream();
    let mut buf = String::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("card_details", json!({"name": "Visa"}))]),
        Turn::text("Đã có thẻ."),
    ]);
    use_model(&s, &model, "m").await;
    let mut events = s.host.subscribe();
    let r = post("/api/v1/runs", json!({"text": "Lấy thẻ Visa của tôi"})).await.unwrap();
    assert_eq!(r.status(), 201);
    let run: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let run_id = run["run_id"].as_str().unwrap().to_owned();
    let asked = next_data(&mut stream, &mut buf).await;
    let id = asked["tool_call_id"].as_str().unwrap().to_owned();

    let number = format!("4111-{}", uuid::Uuid::new_v4().simple());
    let result = json!({"number": number, "holder": "NGUYEN VAN A", "expiry": 1229, "primary": true});
    let refused = post("/api/v1/tool_results", json!({"tool_call_id": id, "error": "locked", "sensitive": true}));
    let refused = refused.await.unwrap();
    assert_eq!(refused.status(), 400);
    let body: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("`sensitive` marks a result"), "{body}");
    let many: Vec<u32> = (0..300).collect();
    let r = post("/api/v1/tool_results", json!({"tool_call_id": id, "result": many, "sensitive": true})).await.unwrap();
    assert_eq!(r.status(), 400, "more than 256 values");
    let r =
        post("/api/v1/tool_results", json!({"tool_call_id": id, "result": result, "sensitive": true})).await.unwrap();
    assert_eq!(r.status(), 200, "the call still waited for this answer");

    let mut seen = None;
    loop {
        match tokio::time::timeout(Duration::from_secs(30), events.recv()).await.unwrap().unwrap() {
            Event::Agent { event: AgentEvent::ToolResult { result, .. }, .. } => seen = Some(result),
            Event::RunEnded { run_id: ended, .. } if ended == run_id => break,
            _ => {}
        }
    }
    let placeholder = |path: &str| format!("{{{{secret.{id}.{path}}}}}");
    let data = seen.expect("the tool result event").data;
    assert_eq!(
        data["result"],
        json!({"number": placeholder("number"), "holder": placeholder("holder"), "expiry": placeholder("expiry"), "primary": true})
    );
    assert!(data["note"].as_str().unwrap().contains("browser_type"), "{data}");

    // What the model read.
    let fed = tool_message(&model, 1);
    assert!(fed.contains(&placeholder("number")) && fed.contains("browser_type"), "{fed}");
    assert!(!fed.contains(&number) && !fed.contains("NGUYEN VAN A") && !fed.contains("1229"), "{fed}");
    // What was stored.
    let store = s.host.core().store();
    let conversation = store.runs().get(&run_id).await.unwrap().unwrap().conversation_id.unwrap();
    let messages = store.messages().for_conversation(&conversation).await.unwrap();
    let stored = messages.iter().find(|m| m.tool_name.as_deref() == Some("card_details")).expect("the tool message");
    assert!(stored.content.as_deref().unwrap_or_default().contains(&placeholder("holder")), "{stored:?}");
    // Nowhere in the database, its WAL or anywhere else in the data dir.
    let data_dir = s.host.core().data_dir().root();
    assert_eq!(crate::common::files_containing(data_dir, &number), Vec::<String>::new());
    assert!(!crate::common::files_containing(data_dir, &placeholder("number")).is_empty(), "the result was stored");
    // Dropped with the run.
    assert!(store.sensitive_results().is_empty(), "the run ended: its sensitive values are gone");
}
