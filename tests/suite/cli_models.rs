//! `halley models`: lists the endpoint's model ids (and what a run gives
//! the model in use), or says within seconds how to start a model server
//! when none answers. Ollama's models described: `ollama_models.rs`.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::Halley;

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn no_server_exits_1_within_seconds_with_how_to_start_one() {
    let h = Halley::new();
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    let start = Instant::now();
    let run = h.run(&["models", "--base-url", &url]);
    assert!(start.elapsed() < Duration::from_secs(8), "took {:?}", start.elapsed());
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("model_unavailable"), "{}", run.stderr);
    assert!(run.stderr.contains(&url) && run.stderr.contains("ollama serve"), "{}", run.stderr);

    // A preset's own hint.
    let run = h.run(&["models", "--preset", "lmstudio", "--base-url", &url]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("LM Studio"), "{}", run.stderr);

    let run = h.run(&["models", "--preset", "nope"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("invalid_arguments"), "{}", run.stderr);
}

#[test]
fn lists_the_served_model_ids() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let mut head = Vec::new();
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = sock.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        let body = json!({"object": "list", "data": [{"id": "qwen2.5:7b"}, {"id": "llama3.2:3b"}]}).to_string();
        let resp = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        sock.write_all(resp.as_bytes()).unwrap();
        String::from_utf8_lossy(&head).into_owned()
    });
    let h = Halley::new();
    let run = h.run(&["models", "--base-url", &url, "--model", "qwen2.5:7b", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json(),
        json!({"base_url": url, "preset": null, "models": ["qwen2.5:7b", "llama3.2:3b"], "model": "qwen2.5:7b",
               "model_listed": true, "server": null, "details": [], "warnings": [],
               "in_use": {"model": "qwen2.5:7b", "context_length": null, "num_ctx": null, "prompt_budget": 24_000,
                          "tool_calling": "native"}})
    );
    assert!(server.join().unwrap().starts_with("GET /v1/models "));
}

/// Save `settings` in the data dir as the desktop's settings view does.
fn save_settings(h: &Halley, settings: halley::protocol::Settings) {
    use halley::core::BrowserSettings;
    use halley::host::Host;
    use halley::paths::DataDir;
    use halley::protocol::Op;
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let host = Host::open(DataDir::at(h.data_dir()), BrowserSettings::default()).await.unwrap();
        host.handle(Op::SaveSettings { settings }).await.unwrap();
        host.close().await;
    });
}

#[test]
fn the_cli_uses_the_model_settings_the_desktop_saved_unless_its_flags_name_others() {
    use crate::common::model_server::{ModelServer, Turn};
    let model = ModelServer::start(vec![Turn::text("Chào bạn."), Turn::text("Vẫn là tôi.")]);
    let base = model.base_url();
    let h = Halley::new();
    let saved = halley::protocol::Settings {
        base_url: Some(base.clone()),
        model: Some("saved-model".into()),
        ..Default::default()
    };
    save_settings(&h, saved);

    // `halley models` and `halley run` read them: the saved endpoint and model.
    let listed = h.run(&["models", "--json"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let listed = listed.json();
    assert_eq!((&listed["base_url"], &listed["model"]), (&json!(base), &json!("saved-model")));
    let run = h.run(&["run", "Chào", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(model.requests().last().unwrap()["model"], "saved-model");

    // `--model` alone keeps the saved endpoint; an endpoint named by flags replaces it, model and all.
    let run = h.run(&["run", "Còn đó không?", "--json", "--model", "flag-model"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(model.requests().last().unwrap()["model"], "flag-model");
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    let other = h.run(&["models", "--base-url", &url, "--json"]);
    assert_eq!(other.code, 1, "{other:?}");
    assert!(other.stderr.contains(&url), "{}", other.stderr);

    // The key commands file the key under the same endpoint (the test session's keyring).
    if std::env::var_os("HALLEY_TEST_SESSION").is_some() {
        let status = h.run(&["models", "key", "status", "--json"]);
        assert_eq!(status.code, 0, "{status:?}");
        assert_eq!(status.json()["base_url"], json!(base));
        let status = h.run(&["models", "key", "status", "--preset", "openai", "--json"]);
        assert_eq!(status.json()["account"], "api-key:openai");
    }
}
