//! `halley runs show ID --traces`: the provider traces of a run (written by
//! `agent::trace`, secrets redacted), in text and JSON.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use halley::agent::trace::{Trace, record};
use halley::store::Store;

use crate::common::Halley;
use crate::common::model_server::{ModelServer, Turn};

const MARK: &str = "trace-test-mark";
const SECRET: &str = "sk-trace-Nguyễn-secret";

#[tokio::test]
async fn traces_are_shown_redacted_with_the_run() {
    let model = ModelServer::start(vec![Turn::text("Xin chào.")]);
    let h = Halley::new();
    let base = model.base_url();
    let run = h.run(&["run", "Chào", "--base-url", &base, "--model", "scripted-model", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    let run_id = last["run_id"].as_str().unwrap().to_owned();

    // A trace as the agent loop records it, with a secret in both sides.
    let store = Store::open(&h.data_dir().join("halley.db")).await.unwrap();
    let step_id = store.steps().for_run(&run_id).await.unwrap()[0].id.clone();
    let request =
        json!({"model": "scripted-model", "messages": [{"role": "user", "content": format!("{MARK} {SECRET}")}]});
    let response = format!("data: {}\n\ndata: [DONE]\n\n", json!({"choices": [{"delta": {"content": SECRET}}]}));
    let trace = Trace {
        run_id: &run_id,
        step_id: Some(&step_id),
        endpoint: &format!("{base}/chat/completions"),
        request: &request,
        response: Some(&response),
        status: Some(200),
        error: None,
    };
    record(&store, &trace, &[SECRET.to_owned()]).await.unwrap();
    store.close().await;

    let shown = h.run(&["runs", "show", &run_id, "--traces", "--json"]);
    assert_eq!(shown.code, 0, "{shown:?}");
    let traces = shown.json()["traces"].as_array().unwrap().clone();
    let mine = traces.iter().find(|t| t["request"].to_string().contains(MARK)).unwrap();
    assert_eq!(
        (&mine["step_idx"], &mine["status"], &mine["endpoint"], &mine["error"]),
        (&json!(0), &json!(200), &json!(format!("{base}/chat/completions")), &Value::Null)
    );
    assert_eq!(mine["request"]["messages"][0]["content"], format!("{MARK} [REDACTED]"));
    assert_eq!(mine["response"], "data: {\"choices\":[{\"delta\":{\"content\":\"[REDACTED]\"}}]}\n\ndata: [DONE]\n\n");

    let text = h.run(&["runs", "show", &run_id, "--traces"]);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(text.stdout.contains(&format!("step 0  POST {base}/chat/completions  HTTP 200")), "{}", text.stdout);
    assert!(text.stdout.contains("      data: [DONE]"), "{}", text.stdout);
    assert!(!text.stdout.contains(SECRET) && !shown.stdout.contains(SECRET));

    // Without --traces, nothing of them.
    let plain = h.run(&["runs", "show", &run_id, "--json"]);
    assert_eq!(plain.json().get("traces"), None);
}
