//! The managed Chromium's only way out: a SOCKS5 relay on 127.0.0.1
//! ([`Relay`]), through which it opens every connection
//! (`--proxy-server=socks5://…`, loopback included, and WebRTC held to
//! proxied TCP by the profile's `webrtc.ip_handling_policy`).
//!
//! `Fetch` interception ([`Hub`]) sees every HTTP request, but neither a
//! WebSocket's handshake nor a WebRTC connection: those are seen here.
//! While no tab is watched, and to the site a watched tab shows, a
//! connection is made at once. Any other is granted to Chromium before it
//! is made, and its first bytes tell what it is ([`Seen`]): an HTTP
//! request or TLS offering HTTP/2 (what `Fetch` already judged, or the
//! browser's own traffic) goes on; a WebSocket (an HTTP `Upgrade`, or TLS
//! offering HTTP/1.1 alone: how Chromium opens `wss://`), a call's relay
//! (STUN/TURN, or TLS for no HTTP) or anything else is an opening to a
//! new site, handed to the tab's watch as a `CONNECT` to its address and
//! judged like a request (asking the user during an action). Refused, it
//! is closed before any byte reaches the server.
//!
//! To the page's own site a connection is made at once, and its first
//! bytes are read all the same: a plain WebSocket's messages are read and
//! held for the watch (`relay::socket`), an encrypted one can be closed
//! when the tab reports a message it should not have sent
//! ([`Hub::encrypted_socket`]), and a call's relay (STUN/TURN) or what is
//! no web traffic at all is judged like an opening to a new site.
//!
//! Names are resolved here (Chromium sends them through SOCKS5), under the
//! browser's own `--host-resolver-rules` ([`HostRules`]).
//!
//! A browser Halley attached to (`--cdp-url`) does not go through it.

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::host_rules::{HostRules, Mapped};
use super::hub::Hub;

mod socket;

/// How long a connection may take to reach its server.
const CONNECT_BOUND: Duration = Duration::from_secs(20);

/// How long the SOCKS greeting and request may take.
const HANDSHAKE_BOUND: Duration = Duration::from_secs(10);

/// The relay of one launched browser; stopped when dropped.
pub(crate) struct Relay {
    port: u16,
    /// The hub that judges openings, known once the browser is connected
    /// (before, while Chromium starts, every connection goes on).
    hub: Arc<OnceLock<Weak<Hub>>>,
    /// The browser's host rules, known once it runs (before, none).
    rules: Arc<OnceLock<HostRules>>,
    task: JoinHandle<()>,
}

impl Relay {
    /// Listen on a free port of 127.0.0.1.
    pub async fn start() -> std::io::Result<Relay> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let hub: Arc<OnceLock<Weak<Hub>>> = Arc::default();
        let rules: Arc<OnceLock<HostRules>> = Arc::default();
        let judge = Arc::clone(&hub);
        let names = Arc::clone(&rules);
        let task = tokio::spawn(async move {
            loop {
                let client = match listener.accept().await {
                    Ok((client, _)) => {
                        // Bytes both ways as they come: Nagle's wait for an
                        // acknowledgement before a small write would add a
                        // delayed ACK's time to responses the browser waits on.
                        let _ = client.set_nodelay(true);
                        client
                    }
                    Err(e) => {
                        // Out of descriptors, say: not a busy loop.
                        tracing::debug!("relay: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let (judge, names) = (Arc::clone(&judge), Arc::clone(&names));
                tokio::spawn(async move {
                    if let Err(e) = serve(client, &judge, &names).await {
                        tracing::debug!("relay: {e}");
                    }
                });
            }
        });
        Ok(Relay { port, hub, rules, task })
    }

    /// Chromium's flags that send every connection through the relay.
    pub fn flags(&self) -> [String; 2] {
        [format!("--proxy-server=socks5://127.0.0.1:{}", self.port), "--proxy-bypass-list=<-loopback>".to_owned()]
    }

    /// Resolve names as the browser `pid` was told to (its command line's
    /// `--host-resolver-rules`).
    pub fn resolve_as(&self, pid: u32) {
        let _ = self.rules.set(HostRules::of_process(pid));
    }

    /// From now on, `hub` judges the openings.
    pub fn judged_by(&self, hub: &Arc<Hub>) {
        let _ = self.hub.set(Arc::downgrade(hub));
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// SOCKS5 reply codes (RFC 1928).
const GRANTED: u8 = 0x00;
const FAILURE: u8 = 0x01;
const UNREACHABLE: u8 = 0x04;
const REFUSED: u8 = 0x05;
const NO_COMMAND: u8 = 0x07;
const NO_ADDRESS_TYPE: u8 = 0x08;

/// One connection: the SOCKS5 handshake (no authentication, `CONNECT`
/// only); then, unless the hub admits it as it is, its first bytes are
/// read before anything is connected, to tell what it is ([`Seen`]); a
/// WebSocket or a call goes only if the tab's watch lets it; then bytes
/// both ways until either side ends.
async fn serve(mut client: TcpStream, hub: &OnceLock<Weak<Hub>>, rules: &OnceLock<HostRules>) -> std::io::Result<()> {
    let asked = tokio::time::timeout(HANDSHAKE_BOUND, request(&mut client)).await;
    let (host, port) = match asked {
        Ok(Ok(Ok(to))) => to,
        Ok(Ok(Err(code))) => return reply(&mut client, code).await,
        Ok(Err(e)) => return Err(e),
        Err(_) => return Ok(()),
    };
    let hub = hub.get().and_then(Weak::upgrade);
    let judge = hub.clone().filter(|hub| !hub.admits(&host, port));
    let Some(judge) = judge else {
        let mut upstream = match connect(rules, &host, port).await {
            Ok(upstream) => upstream,
            Err((code, why)) => {
                if let Some(hub) = &hub {
                    hub.unreachable(&host, port, why);
                }
                return reply(&mut client, code).await;
            }
        };
        reply(&mut client, GRANTED).await?;
        let Some(hub) = hub else { return relay(&mut client, &mut upstream).await };
        // A socket may live long: it does not keep the hub.
        let hub = Arc::downgrade(&hub);
        // Its first bytes tell a plain WebSocket, whose messages are read.
        let Ok(first) = tokio::time::timeout(FIRST_BYTES_BOUND, first_bytes(&mut client)).await else { return Ok(()) };
        let first = first?;
        if first.is_empty() {
            return Ok(());
        }
        let kind = seen(&first);
        if let Seen::Http(Some(target)) = kind {
            return socket::relay(client, upstream, &first, &host, port, &target, hub).await;
        }
        // A call (STUN/TURN) or what is no web traffic, even to the page's
        // own site: nothing of it is read, so it goes only if the watch lets
        // it (WebRTC is off unless the person allows it).
        if !kind.is_web()
            && let Some(opening) = kind.opening(&host, port)
            && let Some(judge) = hub.upgrade()
            && !judge.opening(opening).await
        {
            return Ok(());
        }
        upstream.write_all(&first).await?;
        return relay_closable(&mut client, &mut upstream, &kind, &host, port, &hub).await;
    };
    drop(hub);
    // Granted before it is made: the first bytes say what it is.
    reply(&mut client, GRANTED).await?;
    let Ok(first) = tokio::time::timeout(FIRST_BYTES_BOUND, first_bytes(&mut client)).await else { return Ok(()) };
    let first = first?;
    if first.is_empty() {
        return Ok(());
    }
    let kind = seen(&first);
    if let Some(opening) = kind.opening(&host, port)
        && !judge.opening(opening).await
    {
        return Ok(());
    }
    let mut upstream = match connect(rules, &host, port).await {
        Ok(upstream) => upstream,
        Err((_, why)) => {
            judge.unreachable(&host, port, why);
            return Ok(());
        }
    };
    let hub = Arc::downgrade(&judge);
    drop(judge);
    if let Seen::Http(Some(target)) = kind {
        // Opened with the person's leave: what it sends is still read.
        return socket::relay(client, upstream, &first, &host, port, &target, hub).await;
    }
    upstream.write_all(&first).await?;
    relay_closable(&mut client, &mut upstream, &kind, &host, port, &hub).await
}

/// [`relay`], for an encrypted WebSocket until the hub closes it (what it
/// sends is graded as the tab reports it sent: `hub::follow_sockets`).
async fn relay_closable(
    client: &mut TcpStream,
    upstream: &mut TcpStream,
    kind: &Seen,
    host: &str,
    port: u16,
    hub: &Weak<Hub>,
) -> std::io::Result<()> {
    let encrypted =
        matches!(kind, Seen::Tls(alpn) if !alpn.iter().any(|p| p == "h2") && alpn.iter().any(|p| p == "http/1.1"));
    let Some(close) = encrypted.then(|| hub.upgrade().map(|hub| hub.encrypted_socket(host, port))).flatten() else {
        return relay(client, upstream).await;
    };
    tokio::select! {
        out = relay(client, upstream) => out,
        () = close.notified() => {
            tracing::warn!("relay: an encrypted WebSocket to {host}:{port} is closed");
            Ok(())
        }
    }
}

/// Bytes both ways until either side ends, in buffers as large as a
/// loopback read gives at once (tokio's default is 8 KiB).
async fn relay(client: &mut TcpStream, upstream: &mut TcpStream) -> std::io::Result<()> {
    const BUFFER: usize = 64 * 1024;
    tokio::io::copy_bidirectional_with_sizes(client, upstream, BUFFER, BUFFER).await.map(|_| ())
}

/// Connect to the server (where the browser's host rules send it), or the
/// SOCKS reply code that says why not and the name Chromium gives that
/// network error.
async fn connect(rules: &OnceLock<HostRules>, host: &str, port: u16) -> Result<TcpStream, (u8, &'static str)> {
    let (host, port) = match rules.get().map_or(Mapped::Same, |r| r.map(host)) {
        Mapped::Same => (host.to_owned(), port),
        Mapped::To(other, to) => (other, to.unwrap_or(port)),
        Mapped::NotFound => return Err((UNREACHABLE, "ERR_NAME_NOT_RESOLVED")),
    };
    match tokio::time::timeout(CONNECT_BOUND, TcpStream::connect((host.as_str(), port))).await {
        Ok(Ok(stream)) => {
            let _ = stream.set_nodelay(true);
            Ok(stream)
        }
        Ok(Err(e)) => Err(match e.kind() {
            std::io::ErrorKind::ConnectionRefused => (REFUSED, "ERR_CONNECTION_REFUSED"),
            std::io::ErrorKind::HostUnreachable | std::io::ErrorKind::NetworkUnreachable => {
                (UNREACHABLE, "ERR_ADDRESS_UNREACHABLE")
            }
            // A name that does not resolve (the resolver's error is no OS error).
            _ if e.raw_os_error().is_none() => (UNREACHABLE, "ERR_NAME_NOT_RESOLVED"),
            _ => (FAILURE, "ERR_CONNECTION_FAILED"),
        }),
        Err(_) => Err((UNREACHABLE, "ERR_CONNECTION_TIMED_OUT")),
    }
}

/// How long a connection may stay silent before its first bytes (an idle
/// preconnected socket waits for its request).
const FIRST_BYTES_BOUND: Duration = Duration::from_secs(120);

/// The most read before a connection is told apart.
const FIRST_BYTES_MAX: usize = 16 * 1024 + 5;

/// The client's first bytes: a whole TLS record, an HTTP request's head,
/// or what came in one read for anything else.
async fn first_bytes(client: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = client.read(&mut buf).await?;
        if n == 0 {
            return Ok(got);
        }
        got.extend_from_slice(&buf[..n]);
        let whole = match got[0] {
            // A TLS handshake record: its header gives its length.
            0x16 => got.len() >= 5 && got.len() >= 5 + usize::from(u16::from_be_bytes([got[3], got[4]])),
            b'A'..=b'Z' => got.windows(4).any(|w| w == b"\r\n\r\n"),
            _ => true,
        };
        if whole || got.len() >= FIRST_BYTES_MAX {
            return Ok(got);
        }
    }
}

/// What a connection's first bytes show it to be.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// An HTTP request; `Some(target)` when it asks to become a WebSocket.
    Http(Option<String>),
    /// TLS offering these application protocols (ALPN).
    Tls(Vec<String>),
    /// STUN or TURN (a call's relay), by its magic cookie.
    Stun,
    Other,
}

impl Seen {
    /// Web traffic: HTTP (a WebSocket's handshake too), or TLS offering it.
    fn is_web(&self) -> bool {
        match self {
            Seen::Http(_) => true,
            Seen::Tls(alpn) => alpn.iter().any(|p| p == "h2" || p == "http/1.1"),
            Seen::Stun | Seen::Other => false,
        }
    }

    /// The opening to judge, as a URL, or `None` for an ordinary request
    /// (HTTP, or TLS that offers HTTP/2: how Chromium fetches).
    fn opening(&self, host: &str, port: u16) -> Option<String> {
        let at = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
        match self {
            Seen::Http(None) => None,
            Seen::Http(Some(target)) => Some(format!("ws://{at}{target}")),
            Seen::Tls(alpn) if alpn.iter().any(|p| p == "h2") => None,
            // Chromium's WebSocket over TLS offers HTTP/1.1 alone.
            Seen::Tls(alpn) if alpn.iter().any(|p| p == "http/1.1") => Some(format!("wss://{at}/")),
            // TLS for no HTTP at all: a call's relay over TLS.
            Seen::Tls(_) => Some(format!("turns://{at}")),
            Seen::Stun => Some(format!("turn://{at}")),
            Seen::Other => Some(format!("tcp://{at}")),
        }
    }
}

/// Tell a connection apart by its first bytes.
fn seen(first: &[u8]) -> Seen {
    if first.first() == Some(&0x16) {
        return Seen::Tls(alpn(first).unwrap_or_default());
    }
    if first.len() >= 8 && first[4..8] == [0x21, 0x12, 0xa4, 0x42] {
        return Seen::Stun;
    }
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    if req.parse(first).is_ok() && req.method.is_some() {
        let upgrade = req.headers.iter().any(|h| {
            h.name.eq_ignore_ascii_case("upgrade") && String::from_utf8_lossy(h.value).eq_ignore_ascii_case("websocket")
        });
        return Seen::Http(upgrade.then(|| req.path.unwrap_or("/").to_owned()));
    }
    Seen::Other
}

/// The application protocols a TLS ClientHello offers.
fn alpn(record: &[u8]) -> Option<Vec<String>> {
    use tls_parser::{TlsExtension, TlsMessage, TlsMessageHandshake};
    let (_, plain) = tls_parser::parse_tls_plaintext(record).ok()?;
    plain.msg.iter().find_map(|msg| match msg {
        TlsMessage::Handshake(TlsMessageHandshake::ClientHello(hello)) => {
            let (_, extensions) = tls_parser::parse_tls_client_hello_extensions(hello.ext.unwrap_or_default()).ok()?;
            Some(
                extensions
                    .iter()
                    .find_map(|e| match e {
                        TlsExtension::ALPN(protocols) => {
                            Some(protocols.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect())
                        }
                        _ => None,
                    })
                    .unwrap_or_default(),
            )
        }
        _ => None,
    })
}

/// Read the greeting and the request: the host and port to connect to,
/// or the reply code that refuses it.
async fn request(client: &mut TcpStream) -> std::io::Result<Result<(String, u16), u8>> {
    let mut head = [0u8; 2];
    client.read_exact(&mut head).await?;
    if head[0] != 5 {
        return Err(std::io::Error::other("not SOCKS5"));
    }
    let mut methods = vec![0u8; usize::from(head[1])];
    client.read_exact(&mut methods).await?;
    if !methods.contains(&0) {
        client.write_all(&[5, 0xff]).await?;
        return Err(std::io::Error::other("no acceptable authentication method"));
    }
    client.write_all(&[5, 0]).await?;
    let mut req = [0u8; 4];
    client.read_exact(&mut req).await?;
    let host = match req[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        4 => {
            let mut ip = [0u8; 16];
            client.read_exact(&mut ip).await?;
            std::net::Ipv6Addr::from(ip).to_string()
        }
        _ => return Ok(Err(NO_ADDRESS_TYPE)),
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    if req[1] != 1 {
        return Ok(Err(NO_COMMAND));
    }
    Ok(Ok((host, u16::from_be_bytes(port))))
}

/// The reply (its bound address is not used by Chromium: 0.0.0.0:0).
async fn reply(client: &mut TcpStream, code: u8) -> std::io::Result<()> {
    client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
    if code != GRANTED {
        let _ = client.shutdown().await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_told_apart_by_its_first_bytes() {
        let get = b"GET /app.js HTTP/1.1\r\nHost: shop.vn\r\n\r\n";
        assert_eq!(seen(get), Seen::Http(None));
        assert_eq!(seen(get).opening("shop.vn", 80), None);
        let ws = b"GET /live?order=1 HTTP/1.1\r\nHost: x.vn\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n";
        assert_eq!(seen(ws).opening("x.vn", 8080).as_deref(), Some("ws://x.vn:8080/live?order=1"));
        let stun = [0x00, 0x03, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42, 1, 2, 3, 4];
        assert_eq!(seen(&stun).opening("::1", 3478).as_deref(), Some("turn://[::1]:3478"));
        // Not TLS, not HTTP, not STUN: judged, never let through unseen.
        assert_eq!(seen(b"\x00\x01garbage").opening("x.vn", 9).as_deref(), Some("tcp://x.vn:9"));
        // TLS whose record does not parse offers no HTTP: judged.
        assert_eq!(seen(&[0x16, 3, 1, 0, 2, 1, 0]).opening("x.vn", 443).as_deref(), Some("turns://x.vn:443"));
        assert_eq!(Seen::Tls(vec!["h2".into(), "http/1.1".into()]).opening("x.vn", 443), None);
        assert_eq!(Seen::Tls(vec!["http/1.1".into()]).opening("x.vn", 443).as_deref(), Some("wss://x.vn:443/"));
    }
}
