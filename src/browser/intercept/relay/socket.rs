//! A plain WebSocket (`ws://`) through the relay: its messages are read.
//!
//! `Fetch` never pauses what a page sends over a socket, so the relay
//! reads the client's frames (RFC 6455: masked, so each is unmasked here
//! to be read, and sent on as it came) and holds each message, whole
//! (its fragments joined), until the watch of the tab it belongs to has
//! graded it like a request body sent to the socket's address
//! ([`Hub::message`]). Refused, the connection is closed before any byte
//! of it reaches the server: the page sees its socket close; the model is
//! told at the end of its call. A close frame's reason is read the same
//! way (the page chooses it). Pings and pongs go on at once.
//!
//! The handshake's offer of compression (`Sec-WebSocket-Extensions`:
//! permessage-deflate) is taken out, so every message is readable as
//! sent; what the server sends back is relayed untouched.

use std::sync::Weak;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::super::hub::Hub;

/// The largest message held for a look; a larger one closes the socket
/// (it cannot be held whole to be read).
const MESSAGE_MAX: usize = 8 * 1024 * 1024;

/// Relay one WebSocket connection whose handshake (the client's first
/// bytes) is `first`: its head is sent on (without the compression offer),
/// then what the server sends goes back as it comes, and each message of
/// the client's goes on once [`Hub::message`] lets it.
pub(super) async fn relay(
    client: TcpStream,
    upstream: TcpStream,
    first: &[u8],
    host: &str,
    port: u16,
    target: &str,
    hub: Weak<Hub>,
) -> std::io::Result<()> {
    let end = first.windows(4).position(|w| w == b"\r\n\r\n").map_or(first.len(), |i| i + 4);
    let (head, rest) = first.split_at(end);
    let (head, origin) = handshake(head);
    let at = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
    let url = format!("ws://{at}{target}");
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = upstream.into_split();
    to_server.write_all(&head).await?;
    let down = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        let _ = to_client.shutdown().await;
    });
    let mut frames = Frames { buf: rest.to_vec(), message: None };
    let out = loop {
        let frame = match frames.next(&mut from_client).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        let send = match frames.take(frame) {
            Ok(Step::Forward(bytes)) => bytes,
            Ok(Step::Hold) => continue,
            Ok(Step::Judge(bytes, text)) => {
                let go = match hub.upgrade() {
                    Some(hub) => hub.message(url.clone(), origin.clone(), text).await,
                    // The browser is going away: nobody judges, as before any watch.
                    None => true,
                };
                if !go {
                    tracing::warn!("relay: a message on {url} was refused; the socket is closed");
                    break Ok(());
                }
                bytes
            }
            Err(why) => {
                tracing::warn!("relay: {url}: {why}; the socket is closed");
                break Ok(());
            }
        };
        if let Err(e) = to_server.write_all(&send).await {
            break Err(e);
        }
    };
    // However it ended, both sides close (a refused message never goes).
    down.abort();
    let _ = to_server.shutdown().await;
    out
}

/// The handshake's head without the compression offer, and its `Origin`.
fn handshake(head: &[u8]) -> (Vec<u8>, Option<String>) {
    let text = String::from_utf8_lossy(head);
    let mut out = String::with_capacity(text.len());
    let mut origin = None;
    for line in text.split_inclusive("\r\n") {
        let name = line.split(':').next().unwrap_or_default().trim();
        if name.eq_ignore_ascii_case("sec-websocket-extensions") {
            continue;
        }
        if name.eq_ignore_ascii_case("origin") {
            origin = line.split_once(':').map(|(_, v)| v.trim().to_owned()).filter(|v| v != "null");
        }
        out.push_str(line);
    }
    (out.into_bytes(), origin)
}

/// One frame as the client sent it.
struct Frame {
    fin: bool,
    compressed: bool,
    opcode: u8,
    /// The frame's bytes as sent (masked).
    raw: Vec<u8>,
    /// Its payload, unmasked.
    payload: Vec<u8>,
}

/// What to do with a frame.
enum Step {
    /// Send it on now (a ping, a pong).
    Forward(Vec<u8>),
    /// Keep it: a message's fragment, more to come.
    Hold,
    /// A whole message (its frames' bytes) and its text, to be graded.
    Judge(Vec<u8>, String),
}

/// The client's frames, read off the connection, and the message being
/// gathered (its frames' bytes, its payload).
struct Frames {
    buf: Vec<u8>,
    message: Option<(Vec<u8>, Vec<u8>)>,
}

impl Frames {
    /// The next whole frame (`None`: the client closed).
    async fn next(&mut self, from: &mut tokio::net::tcp::OwnedReadHalf) -> std::io::Result<Option<Frame>> {
        loop {
            match parse(&self.buf) {
                Parsed::Frame(frame, used) => {
                    self.buf.drain(..used);
                    return Ok(Some(frame));
                }
                Parsed::TooLarge => return Err(std::io::Error::other("a message too large to be read")),
                Parsed::More => {}
            }
            let mut chunk = vec![0u8; 64 * 1024];
            let n = from.read(&mut chunk).await?;
            if n == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// What `frame` makes: a control frame goes on (a close's reason is
    /// graded), a data frame is gathered into its message.
    fn take(&mut self, frame: Frame) -> Result<Step, &'static str> {
        if frame.compressed {
            return Err("a compressed frame (compression was not agreed)");
        }
        match frame.opcode {
            // Close: its reason (after the two bytes of its code) is the page's words.
            0x8 if frame.payload.len() > 2 => {
                Ok(Step::Judge(frame.raw, String::from_utf8_lossy(&frame.payload[2..]).into_owned()))
            }
            0x8..=0xf => Ok(Step::Forward(frame.raw)),
            0x0..=0x2 => {
                let (mut raw, mut payload) = match (frame.opcode, self.message.take()) {
                    (0x0, Some(gathered)) => gathered,
                    (0x0, None) => return Err("a continuation with no message"),
                    (_, Some(_)) => return Err("a new message inside another"),
                    (_, None) => (Vec::new(), Vec::new()),
                };
                raw.extend_from_slice(&frame.raw);
                payload.extend_from_slice(&frame.payload);
                if payload.len() > MESSAGE_MAX {
                    return Err("a message too large to be read");
                }
                if !frame.fin {
                    self.message = Some((raw, payload));
                    return Ok(Step::Hold);
                }
                Ok(Step::Judge(raw, String::from_utf8_lossy(&payload).into_owned()))
            }
            _ => Err("an unknown kind of frame"),
        }
    }
}

enum Parsed {
    /// A whole frame and how many bytes it took.
    Frame(Frame, usize),
    More,
    TooLarge,
}

/// One frame off the front of `buf` (RFC 6455, 5.2).
fn parse(buf: &[u8]) -> Parsed {
    if buf.len() < 2 {
        return Parsed::More;
    }
    let (b0, b1) = (buf[0], buf[1]);
    let masked = b1 & 0x80 != 0;
    let (len, mut at) = match b1 & 0x7f {
        126 if buf.len() >= 4 => (u64::from(u16::from_be_bytes([buf[2], buf[3]])), 4),
        127 if buf.len() >= 10 => {
            let mut n = [0u8; 8];
            n.copy_from_slice(&buf[2..10]);
            (u64::from_be_bytes(n), 10)
        }
        126 | 127 => return Parsed::More,
        n => (u64::from(n), 2),
    };
    let Ok(len) = usize::try_from(len) else { return Parsed::TooLarge };
    if len > MESSAGE_MAX {
        return Parsed::TooLarge;
    }
    let mut mask = [0u8; 4];
    if masked {
        if buf.len() < at + 4 {
            return Parsed::More;
        }
        mask.copy_from_slice(&buf[at..at + 4]);
        at += 4;
    }
    if buf.len() < at + len {
        return Parsed::More;
    }
    let payload = buf[at..at + len].iter().enumerate().map(|(i, b)| b ^ mask[i % 4]).collect();
    let frame = Frame {
        fin: b0 & 0x80 != 0,
        compressed: b0 & 0x40 != 0,
        opcode: b0 & 0x0f,
        raw: buf[..at + len].to_vec(),
        payload,
    };
    Parsed::Frame(frame, at + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's frame of `payload`, masked.
    fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [0x11, 0x22, 0x33, 0x44];
        let mut out = vec![(u8::from(fin) << 7) | opcode];
        match payload.len() {
            n if n < 126 => out.push(0x80 | u8::try_from(n).unwrap()),
            n if n <= 0xffff => {
                out.push(0x80 | 126);
                out.extend_from_slice(&u16::try_from(n).unwrap().to_be_bytes());
            }
            n => {
                out.push(0x80 | 127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        out
    }

    fn steps(bytes: &[u8]) -> Vec<String> {
        let mut frames = Frames { buf: bytes.to_vec(), message: None };
        let mut out = Vec::new();
        while let Parsed::Frame(f, used) = parse(&frames.buf) {
            frames.buf.drain(..used);
            out.push(match frames.take(f) {
                Ok(Step::Forward(raw)) => format!("forward {}", raw.len()),
                Ok(Step::Hold) => "hold".to_owned(),
                Ok(Step::Judge(raw, text)) => format!("judge {} {text}", raw.len()),
                Err(why) => format!("close: {why}"),
            });
        }
        out
    }

    #[test]
    fn a_clients_messages_are_read_whole_and_sent_as_they_came() {
        let text = "{\"order\":\"laptop-abc\",\"qty\":50}";
        let one = frame(true, 0x1, text.as_bytes());
        assert_eq!(steps(&one), [format!("judge {} {text}", one.len())]);
        // Fragmented, with a ping between: the ping goes on, the message is whole.
        let mut bytes = frame(false, 0x1, b"B765");
        bytes.extend(frame(true, 0x9, b""));
        bytes.extend(frame(true, 0x0, b"4321"));
        assert_eq!(steps(&bytes), ["hold", "forward 6", "judge 20 B7654321"]);
        // A long message (16-bit length) and a close with a reason.
        let long = "x".repeat(300);
        let mut bytes = frame(true, 0x2, long.as_bytes());
        let mut close = vec![0x03, 0xe8];
        close.extend_from_slice(b"B7654321");
        bytes.extend(frame(true, 0x8, &close));
        let got = steps(&bytes);
        assert!(got[0].starts_with("judge 308 xxx"), "{got:?}");
        assert_eq!(got[1], "judge 16 B7654321");
        // A bare close goes on.
        assert_eq!(steps(&frame(true, 0x8, &[0x03, 0xe8])), ["forward 8"]);
        // A compressed frame cannot be read: the socket closes.
        let mut squeezed = frame(true, 0x1, b"abc");
        squeezed[0] |= 0x40;
        assert_eq!(steps(&squeezed), ["close: a compressed frame (compression was not agreed)"]);
        // Half a frame waits for the rest.
        assert!(matches!(parse(&one[..one.len() - 1]), Parsed::More));
    }

    #[test]
    fn the_handshake_loses_its_compression_offer_and_gives_its_origin() {
        let head = b"GET /live HTTP/1.1\r\nHost: x.vn\r\nOrigin: http://shop.vn\r\nUpgrade: websocket\r\n\
            Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n";
        let (out, origin) = handshake(head);
        let out = String::from_utf8(out).unwrap();
        assert!(!out.to_ascii_lowercase().contains("extensions"), "{out}");
        assert!(out.ends_with("Upgrade: websocket\r\n\r\n"), "{out}");
        assert_eq!(origin.as_deref(), Some("http://shop.vn"));
    }
}
