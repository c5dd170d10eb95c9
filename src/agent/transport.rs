//! The HTTP layer under async-openai (installed with `with_http_service`, in
//! place of its built-in retry): retries with backoff and jitter on 429/5xx
//! and refused connections before any byte of the answer arrived, honouring
//! `Retry-After`; lenient reading of error bodies; and, for streams, a guard
//! that turns an end without `data: [DONE]` into a transport error. That guard
//! exists because async-openai ends its stream the same way on `[DONE]` and
//! on a connection closed halfway, so a cut answer would look complete.

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::{ApiError, ApiErrorResponse, OpenAIError};
use async_openai::middleware::HttpRequestFactory;
use futures::StreamExt;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use reqwest::{Response, StatusCode};

use super::stream::clip;

/// The longest SSE line accepted (a 16 MB argument, JSON-escaped, fits).
pub(crate) const MAX_LINE_BYTES: usize = 40 * 1024 * 1024;
/// The most of an error body read for its message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// When and how often to try again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff after a 429/5xx without `Retry-After`; doubles each time.
    pub base_delay: Duration,
    /// First backoff after a refused connection; doubles each time.
    pub connect_delay: Duration,
    /// The longest backoff, and the cap on a server's `Retry-After`.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            connect_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (0-based): the server's
    /// `Retry-After` seconds when given (capped), else exponential backoff
    /// with jitter (between half and all of the doubled delay).
    pub(crate) fn delay(&self, base: Duration, attempt: u32, headers: Option<&HeaderMap>) -> Duration {
        if let Some(secs) = headers.and_then(retry_after_secs) {
            return Duration::from_secs(secs).min(self.max_delay);
        }
        let full = base.saturating_mul(2u32.saturating_pow(attempt)).min(self.max_delay);
        let jitter = random_fraction();
        full.mul_f64(0.5 + jitter / 2.0)
    }
}

/// `Retry-After` in seconds (the HTTP-date form is ignored: backoff applies).
fn retry_after_secs(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| s.ceil() as u64)
}

/// A number in [0, 1) from the standard library's randomly keyed hasher.
fn random_fraction() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().build_hasher().finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// OpenAI's 429 for an exhausted quota: retrying cannot help.
fn is_quota(err: &OpenAIError) -> bool {
    matches!(err, OpenAIError::ApiError(r)
        if [r.api_error.r#type.as_deref(), r.api_error.code.as_deref()].contains(&Some("insufficient_quota")))
}

fn retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 500 | 502 | 503 | 504)
}

/// The tower service async-openai sends its requests through.
#[derive(Clone)]
pub(crate) struct Transport {
    pub http: reqwest::Client,
    pub retry: RetryPolicy,
    /// Whether answers are SSE streams to guard for `[DONE]`.
    pub sse: bool,
}

impl tower::Service<HttpRequestFactory> for Transport {
    type Response = Response;
    type Error = OpenAIError;
    type Future = Pin<Box<dyn Future<Output = Result<Response, OpenAIError>> + Send + 'static>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequestFactory) -> Self::Future {
        Box::pin(self.clone().send(request))
    }
}

impl Transport {
    async fn send(self, factory: HttpRequestFactory) -> Result<Response, OpenAIError> {
        let resp = self.execute(|| factory.build()).await?;
        Ok(self.guard(resp).await)
    }

    /// Send the request `build` makes, again on 429/5xx and refused
    /// connections (see [`RetryPolicy`]); a 2xx answer as it is, any other
    /// as an `ApiError` read leniently from its body.
    pub(crate) async fn execute<F, Fut>(&self, build: F) -> Result<Response, OpenAIError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<reqwest::Request, OpenAIError>>,
    {
        let mut attempt = 0;
        loop {
            let mut request = build().await?;
            prepare(&mut request);
            let can_retry = attempt < self.retry.max_retries;
            let delay = match self.http.execute(request).await {
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) if can_retry && retryable_status(resp.status()) => {
                    let delay = self.retry.delay(self.retry.base_delay, attempt, Some(resp.headers()));
                    let status = resp.status().as_u16();
                    // Reading the body frees the connection, and tells an
                    // exhausted quota (final) from a rate limit.
                    let err = api_error(resp).await;
                    if is_quota(&err) {
                        return Err(err);
                    }
                    let delay_ms = delay.as_millis() as u64;
                    tracing::warn!(status, attempt = attempt + 1, delay_ms, "model server busy, retrying");
                    delay
                }
                Ok(resp) => return Err(api_error(resp).await),
                // A refused connection or an unknown host; not a connect
                // timeout: that host does not answer, trying again only waits.
                Err(e) if can_retry && e.is_connect() && !e.is_timeout() => {
                    let delay = self.retry.delay(self.retry.connect_delay, attempt, None);
                    tracing::debug!(
                        attempt = attempt + 1,
                        delay_ms = delay.as_millis() as u64,
                        "model server unreachable, retrying"
                    );
                    delay
                }
                Err(e) => return Err(OpenAIError::Reqwest(e)),
            };
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// For streams: guard the body for `[DONE]`; a JSON answer to a streamed
    /// request (a server that ignored `stream`) becomes a one-event stream.
    async fn guard(&self, resp: Response) -> Response {
        if !self.sse {
            return resp;
        }
        let is_json = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        let mut builder = http::Response::builder().status(resp.status()).version(resp.version());
        if let Some(headers) = builder.headers_mut() {
            *headers = resp.headers().clone();
            // The new body has its own framing.
            headers.remove(reqwest::header::CONTENT_LENGTH);
            headers.remove(reqwest::header::TRANSFER_ENCODING);
        }
        let body = if is_json {
            let bytes = match resp.bytes().await {
                Ok(b) => b,
                Err(e) => {
                    let err = std::io::Error::other(e.without_url());
                    return with_body(
                        builder,
                        reqwest::Body::wrap_stream(futures::stream::iter([Err::<Vec<u8>, _>(err)])),
                    );
                }
            };
            // One SSE event: JSON has no raw newlines outside strings once compacted.
            let compact = serde_json::from_slice::<serde_json::Value>(&bytes)
                .map(|v| v.to_string())
                .unwrap_or_else(|_| String::from_utf8_lossy(&bytes).replace(['\r', '\n'], " "));
            reqwest::Body::from(format!("data: {compact}\n\ndata: [DONE]\n\n"))
        } else {
            guarded(resp)
        };
        with_body(builder, body)
    }
}

fn with_body(builder: http::response::Builder, body: reqwest::Body) -> Response {
    match builder.body(body) {
        Ok(r) => Response::from(r),
        // Status, version and headers came from a valid response.
        Err(e) => {
            Response::from(http::Response::new(reqwest::Body::wrap_stream(futures::stream::iter([Err::<Vec<u8>, _>(
                std::io::Error::other(e),
            )]))))
        }
    }
}

/// Drop an empty `Bearer` (no key configured) and keep the key out of logs.
fn prepare(request: &mut reqwest::Request) {
    let headers = request.headers_mut();
    let empty = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).is_some_and(|v| v.trim() == "Bearer");
    if empty {
        headers.remove(AUTHORIZATION);
    } else if let Some(v) = headers.get_mut(AUTHORIZATION) {
        v.set_sensitive(true);
    }
}

/// Read an error answer into async-openai's `ApiError`, leniently: OpenAI's
/// `{"error": {"message"}}`, `{"error": "..."}`, `{"message"}`, `{"detail"}`,
/// or the text itself.
async fn api_error(resp: Response) -> OpenAIError {
    let status = resp.status();
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let json = serde_json::from_str::<serde_json::Value>(&text).ok();
    let field = |v: &serde_json::Value, k: &str| v.get(k).and_then(|m| m.as_str()).map(str::to_owned);
    let message = json
        .as_ref()
        .and_then(|v| match v.get("error") {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(e) => field(e, "message"),
            None => field(v, "message").or_else(|| field(v, "detail")),
        })
        .unwrap_or_else(|| text.trim().to_owned());
    let r#type = json.as_ref().and_then(|v| v.get("error")).and_then(|e| field(e, "type"));
    let code = json.as_ref().and_then(|v| v.get("error")).and_then(|e| field(e, "code"));
    let message = if message.is_empty() {
        status.canonical_reason().unwrap_or("no message").to_owned()
    } else {
        clip(&message, 1000)
    };
    OpenAIError::ApiError(ApiErrorResponse {
        status_code: status,
        api_error: ApiError { message, r#type, code, ..ApiError::default() },
    })
}

/// The body of `resp`, passed on in whole lines, failing at the end unless a
/// `data: [DONE]` line was seen, and failing on a line longer than
/// [`MAX_LINE_BYTES`]. Whole lines matter: async-openai's SSE parser
/// (eventsource-stream) rescans its buffer on every network chunk, which is
/// quadratic for a 10 MB line delivered in 16 KB pieces (minutes instead of
/// milliseconds).
fn guarded(resp: Response) -> reqwest::Body {
    enum State {
        Reading,
        Closing { done: bool },
        Ended,
    }
    let inner = resp.bytes_stream();
    let stream = futures::stream::unfold(
        (inner, LineGuard::default(), State::Reading),
        |(mut inner, mut guard, state)| async move {
            loop {
                match state {
                    State::Ended => return None,
                    State::Closing { done: true } => return None,
                    State::Closing { done: false } => return Some((Err(cut()), (inner, guard, State::Ended))),
                    State::Reading => {}
                }
                match inner.next().await {
                    Some(Ok(bytes)) => match guard.feed(&bytes) {
                        Ok(lines) if lines.is_empty() => continue,
                        Ok(lines) => return Some((Ok(lines), (inner, guard, State::Reading))),
                        Err(e) => return Some((Err(e), (inner, guard, State::Ended))),
                    },
                    Some(Err(e)) => {
                        return Some((Err(std::io::Error::other(e.without_url())), (inner, guard, State::Ended)));
                    }
                    None => {
                        let (rest, done) = guard.finish();
                        if rest.is_empty() {
                            return if done { None } else { Some((Err(cut()), (inner, guard, State::Ended))) };
                        }
                        return Some((Ok(rest), (inner, guard, State::Closing { done })));
                    }
                }
            }
        },
    );
    reqwest::Body::wrap_stream(stream)
}

fn cut() -> std::io::Error {
    std::io::Error::other("the connection closed before `data: [DONE]`")
}

/// Regroups SSE bytes into whole lines (split at `\n`) and watches them.
#[derive(Debug, Default)]
pub(crate) struct LineGuard {
    pending: Vec<u8>,
    scan: DoneScanner,
}

impl LineGuard {
    /// The complete lines now available (empty while a line is unfinished).
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<Vec<u8>, std::io::Error> {
        self.scan.feed(bytes)?;
        match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => {
                let mut out = std::mem::take(&mut self.pending);
                out.extend_from_slice(&bytes[..=i]);
                self.pending.extend_from_slice(&bytes[i + 1..]);
                Ok(out)
            }
            None => {
                self.pending.extend_from_slice(bytes);
                Ok(Vec::new())
            }
        }
    }

    /// What is left, and whether `[DONE]` was seen.
    pub(crate) fn finish(&mut self) -> (Vec<u8>, bool) {
        (std::mem::take(&mut self.pending), self.scan.finish())
    }
}

/// Watches SSE bytes for a `data: [DONE]` line, keeping only the start of
/// the current line.
#[derive(Debug, Default)]
pub(crate) struct DoneScanner {
    head: Vec<u8>,
    len: usize,
    done: bool,
}

impl DoneScanner {
    const HEAD: usize = 16;

    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), std::io::Error> {
        for &b in bytes {
            if b == b'\n' || b == b'\r' {
                self.end_line();
                continue;
            }
            self.len += 1;
            if self.len > MAX_LINE_BYTES {
                return Err(std::io::Error::other(format!(
                    "a line of the stream is larger than {} MB",
                    MAX_LINE_BYTES / (1024 * 1024)
                )));
            }
            if self.head.len() < Self::HEAD {
                self.head.push(b);
            }
        }
        Ok(())
    }

    fn end_line(&mut self) {
        if self.len == self.head.len()
            && let Some(value) = self.head.strip_prefix(b"data:")
            && value.trim_ascii() == b"[DONE]"
        {
            self.done = true;
        }
        self.head.clear();
        self.len = 0;
    }

    /// Whether `[DONE]` was seen (a last line without a newline counts).
    pub(crate) fn finish(&mut self) -> bool {
        self.end_line();
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_honoured_and_capped_backoff_has_jitter() {
        let policy = RetryPolicy::default();
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(policy.delay(policy.base_delay, 0, Some(&headers)), Duration::from_secs(2));
        headers.insert(RETRY_AFTER, "3600".parse().unwrap());
        assert_eq!(policy.delay(policy.base_delay, 0, Some(&headers)), Duration::from_secs(30));
        headers.insert(RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        let d = policy.delay(policy.base_delay, 2, Some(&headers));
        assert!(d >= Duration::from_secs(1) && d <= Duration::from_secs(2), "{d:?}");
        let delays: Vec<Duration> = (0..20).map(|_| policy.delay(policy.base_delay, 0, None)).collect();
        assert!(delays.iter().all(|d| *d >= Duration::from_millis(250) && *d <= Duration::from_millis(500)));
        assert!(delays.iter().any(|d| *d != delays[0]), "jitter varies: {delays:?}");
    }

    #[test]
    fn scanner_finds_done_across_chunks_and_line_endings() {
        let mut s = DoneScanner::default();
        s.feed(b"data: {\"a\":1}\n\nda").unwrap();
        s.feed(b"ta: [DO").unwrap();
        s.feed(b"NE]\r\n\r\n").unwrap();
        assert!(s.finish());
        let mut s = DoneScanner::default();
        s.feed(b"data:[DONE]").unwrap();
        assert!(s.finish(), "no newline at the end");
        let mut s = DoneScanner::default();
        s.feed(b"data: {\"content\": \"data: [DONE]\"}\n\n").unwrap();
        assert!(!s.finish(), "[DONE] inside a JSON line does not count");
        let mut s = DoneScanner::default();
        s.feed(b"data: {\"a\":1}\n\n").unwrap();
        assert!(!s.finish());
    }

    #[test]
    fn guard_passes_whole_lines_only() {
        let mut g = LineGuard::default();
        assert_eq!(g.feed(b"data: {\"a\"").unwrap(), b"");
        assert_eq!(g.feed(b":1}\n\ndata: [DO").unwrap(), b"data: {\"a\":1}\n\n");
        assert_eq!(g.feed(b"NE]").unwrap(), b"");
        assert_eq!(g.finish(), (b"data: [DONE]".to_vec(), true));
    }
}
