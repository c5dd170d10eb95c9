//! The local HTTP API: other programs on this machine drive Halley through
//! the same [`Op`](crate::protocol::Op)s as the panel (list and call tools,
//! start runs and follow their events, answer questions).
//!
//! Served by the desktop app and `halley serve`, on 127.0.0.1 only. Every
//! request passes [`guard`] first: the `Host` header names this machine's
//! loopback, an `Origin` (a web page's request) is refused, the bearer token
//! (per install, in the OS keyring: [`crate::secrets::token`]) matches, bodies are JSON and
//! bounded. There is no CORS: a preflight is refused like any other
//! cross-origin request. Errors are `{"error": {"code", "message"}}`.

mod client_tools;
mod guard;
mod letta;
mod mcp;
pub mod mcp_server;
mod openapi;
mod routes;
mod who;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::net::TcpListener;

use crate::error::{Error, ErrorCode, Result};
use crate::host::Host;

/// The port when none is set.
pub const DEFAULT_PORT: u16 = 4000;

/// How long [`Server::stop`] waits for requests in flight.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The largest request body accepted (a registered tool's source included).
pub const MAX_BODY: usize = 1024 * 1024;

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct Api {
    pub host: Arc<Host>,
    /// The accepted token, replaced in place by a rotation.
    pub token: crate::secrets::token::Live,
    pub port: u16,
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    live: crate::secrets::token::Live,
}

impl Server {
    /// Where it listens (127.0.0.1 and the port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Accept the token the keyring holds for the install at `dir` after a
    /// rotation made by another process (`halley api token --rotate` beside
    /// the desktop app): it takes effect in this running server at the next
    /// request, the old token refused from then on (a rotation through the
    /// host's `RotateApiToken` takes effect at once). For a server whose
    /// token came from the keyring.
    pub fn follow_keyring(&mut self, dir: crate::paths::DataDir) {
        self.live.follow(dir);
    }

    /// Stop accepting requests; those in flight get [`STOP_GRACE`] to
    /// finish (an event stream would never end on its own).
    pub async fn stop(mut self) {
        self.live.stopped();
        let _ = self.stop.send(true);
        if tokio::time::timeout(STOP_GRACE, &mut self.task).await.is_err() {
            self.task.abort();
        }
    }
}

/// Bind 127.0.0.1:`port` (0: any free port) and serve `host` with `token`.
/// A port already taken is an error naming the process that holds it.
pub async fn serve(host: Arc<Host>, port: u16, token: String) -> Result<Server> {
    let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            let holder = who::holds_port(port).map_or_else(String::new, |p| format!(" by {p}"));
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!("port {port} on 127.0.0.1 is already in use{holder}; choose another with --port"),
            ));
        }
        Err(e) => return Err(Error::internal(format!("cannot listen on 127.0.0.1:{port}")).with_source(e)),
    };
    let addr = listener.local_addr().map_err(|e| Error::internal("no local address").with_source(e))?;
    let live = host.local_api().clone();
    live.serving(addr.port(), &token);
    let api = Api { host, token: live.clone(), port: addr.port() };
    let app = router(api);
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        if let Err(e) = axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
            tracing::warn!("the local API stopped: {e}");
        }
    });
    Ok(Server { addr, stop, task, live })
}

/// The API's router without a socket, as if served on `port`: for the
/// fuzz target (`make fuzz`), which sends it requests in process.
#[doc(hidden)]
pub fn router_in_process(host: Arc<Host>, token: String, port: u16) -> Router {
    let live = host.local_api().clone();
    live.serving(port, &token);
    router(Api { host, token: live, port })
}

fn router(api: Api) -> Router {
    routes::routes()
        .merge(mcp::routes(&api))
        .merge(client_tools::routes())
        .merge(letta::routes())
        .layer(axum::middleware::from_fn_with_state(api.clone(), guard::guard))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such route") })
        .with_state(api)
}

/// An error as the API answers it: a status and `{"error": {code, message}}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    /// An [`ErrorCode`]'s wire name, or one of the API's own
    /// (`unauthorized`, `forbidden`, `unsupported_media_type`, ...).
    code: &'static str,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { status, code: code.as_str(), message: message.into() }
    }

    /// An error of the API itself (authentication, headers, media type).
    pub fn http(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into() }
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let status = match e.code() {
            ErrorCode::InvalidArguments => StatusCode::BAD_REQUEST,
            ErrorCode::NotFound | ErrorCode::UnknownTool => StatusCode::NOT_FOUND,
            ErrorCode::Denied => StatusCode::FORBIDDEN,
            ErrorCode::NotAvailable => StatusCode::NOT_IMPLEMENTED,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let wire = e.to_wire();
        ApiError { status, code: e.code().as_str(), message: wire.message }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, axum::Json(body)).into_response()
    }
}
