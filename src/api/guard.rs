//! What every request passes before a route sees it.
//!
//! - `Host` must name this machine's loopback (`127.0.0.1`, `localhost`,
//!   `[::1]`, with or without the port): a page that rebinds its own DNS name
//!   to 127.0.0.1 sends its own name and is refused (DNS rebinding).
//! - A request with an `Origin` comes from a web page (a browser adds it to
//!   every cross-origin and every non-GET request): refused with 403,
//!   whatever the origin, `null` included. Halley's own panel talks to the
//!   core over IPC, not over this API, so no origin is Halley's. A CORS
//!   preflight (`OPTIONS`) is refused the same way: no page may call the API.
//! - `Authorization: Bearer <token>`, compared in constant time.
//! - A body (`POST`, `PUT`, `PATCH`) must say `Content-Type: application/json`.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{Api, ApiError};
use crate::secrets::same;

pub(crate) async fn guard(State(api): State<Api>, request: Request, next: Next) -> Response {
    // A rotation another process made is taken first (a file's time).
    api.token.catch_up().await;
    match check(&api, request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

fn check(api: &Api, method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if !loopback_host(host, api.port) {
        return Err(ApiError::http(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "the Host header must name this machine's loopback (127.0.0.1, localhost or [::1])",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("(unreadable)");
        return Err(ApiError::http(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            format!("requests from web pages are refused (Origin: {origin}); call the API from a program"),
        ));
    }
    if method == Method::OPTIONS {
        return Err(ApiError::http(StatusCode::FORBIDDEN, "forbidden_origin", "cross-origin requests are refused"));
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
        .map(str::trim);
    match given {
        None => {
            return Err(ApiError::http(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "missing `Authorization: Bearer <token>`; `halley api token` prints the token",
            ));
        }
        Some(t) if !api.token.token().is_some_and(|accepted| same(t.as_bytes(), accepted.as_bytes())) => {
            return Err(ApiError::http(StatusCode::UNAUTHORIZED, "unauthorized", "wrong API token"));
        }
        Some(_) => {}
    }
    if matches!(*method, Method::POST | Method::PUT | Method::PATCH) {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|h| h.to_str().ok())
            .and_then(|t| t.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::http(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as JSON, with `Content-Type: application/json`",
            ));
        }
    }
    Ok(())
}

/// `host` (a `Host` header) names the loopback, on our port if it has one.
fn loopback_host(host: &str, port: u16) -> bool {
    let (name, given_port) = match host.rsplit_once(':') {
        Some((n, p)) if !n.ends_with(':') && p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => (n, Some(p)),
        _ => (host, None),
    };
    let name = name.to_ascii_lowercase();
    let loopback = matches!(name.as_str(), "127.0.0.1" | "localhost" | "[::1]");
    loopback && given_port.is_none_or(|p| p.parse::<u16>() == Ok(port))
}

/// Constant-time equality (the time does not tell how much matched).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_on_our_port_pass() {
        for ok in ["127.0.0.1:4000", "localhost:4000", "LOCALHOST", "[::1]:4000", "127.0.0.1"] {
            assert!(loopback_host(ok, 4000), "{ok}");
        }
        for bad in [
            "",
            "evil.example",
            "evil.example:4000",
            "127.0.0.1:4001",
            "127.0.0.1.evil.example",
            "[::1]:80",
            "0.0.0.0:4000",
        ] {
            assert!(!loopback_host(bad, 4000), "{bad}");
        }
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"a"));
    }
}
