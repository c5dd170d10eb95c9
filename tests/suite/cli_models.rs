//! `halley models`: lists the endpoint's model ids, or says within seconds
//! how to start a model server when none answers.

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
        json!({"base_url": url, "preset": null, "models": ["qwen2.5:7b", "llama3.2:3b"], "model": "qwen2.5:7b", "model_listed": true})
    );
    assert!(server.join().unwrap().starts_with("GET /v1/models "));
}
