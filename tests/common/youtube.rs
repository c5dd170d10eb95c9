//! A video platform's upload API speaking YouTube's resumable-upload
//! protocol (`POST /upload/youtube/v3/videos?uploadType=resumable` with the
//! metadata, answered with a session `Location`; `PUT` of the bytes there),
//! each request's bearer token checked at the OpenID server's userinfo
//! endpoint (the tokens of `oidc.rs`'s server). Records what it accepted.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{post, put};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// One request the server saw: its method and path, whether its bearer
/// token was valid, the metadata (POST) or the bytes' hash (PUT).
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub method: String,
    pub authorized: bool,
    pub metadata: Option<Value>,
    pub sha256: Option<String>,
}

#[derive(Clone)]
struct App {
    userinfo: String,
    me: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    sessions: Arc<Mutex<Vec<Value>>>,
}

pub struct YouTubeApi {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl YouTubeApi {
    /// Serve on 127.0.0.1, checking tokens at `issuer`'s userinfo endpoint.
    pub fn start(issuer: &str) -> YouTubeApi {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.set_nonblocking(true).expect("nonblocking");
        let addr = l.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let app = App {
            userinfo: format!("{}/me", issuer.trim_end_matches('/')),
            me: format!("http://{addr}"),
            seen: seen.clone(),
            sessions: Arc::default(),
        };
        let router = Router::new()
            .route("/upload/youtube/v3/videos", post(start_upload))
            .route("/upload/session/{n}", put(finish_upload))
            .with_state(app);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::from_std(l).expect("listener");
                tokio::spawn(async move { axum::serve(l, router).await });
                let _ = stopped.await;
            });
        });
        YouTubeApi { addr, seen, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT` (the API base).
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for YouTubeApi {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn authorized(app: &App, headers: &HeaderMap) -> bool {
    let Some(auth) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else { return false };
    let client = reqwest::Client::new();
    client.get(&app.userinfo).header("Authorization", auth).send().await.is_ok_and(|r| r.status().is_success())
}

async fn start_upload(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let ok = authorized(&app, &headers).await;
    let metadata: Option<Value> = serde_json::from_slice(&body).ok();
    app.seen.lock().unwrap().push(Seen {
        method: "POST".into(),
        authorized: ok,
        metadata: metadata.clone(),
        sha256: None,
    });
    if !ok {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({"error": {"code": 401}}))).into_response();
    }
    let n = {
        let mut sessions = app.sessions.lock().unwrap();
        sessions.push(metadata.unwrap_or(Value::Null));
        sessions.len()
    };
    (StatusCode::OK, [(header::LOCATION, format!("{}/upload/session/{n}", app.me))]).into_response()
}

async fn finish_upload(State(app): State<App>, Path(n): Path<usize>, headers: HeaderMap, body: Bytes) -> Response {
    let ok = authorized(&app, &headers).await;
    let sha = hex::encode(Sha256::digest(&body));
    app.seen.lock().unwrap().push(Seen { method: "PUT".into(), authorized: ok, metadata: None, sha256: Some(sha) });
    let metadata = app.sessions.lock().unwrap().get(n.wrapping_sub(1)).cloned();
    match (ok, metadata) {
        (false, _) => StatusCode::UNAUTHORIZED.into_response(),
        (true, None) => StatusCode::NOT_FOUND.into_response(),
        (true, Some(m)) => {
            let mut video = m;
            video["id"] = json!(format!("vid{n}"));
            (StatusCode::OK, axum::Json(video)).into_response()
        }
    }
}
