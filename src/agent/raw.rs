//! [`RawResponse`]: what a model server sent, as received (the SSE data
//! payloads of a stream, or an error's text), capped, for the provider trace.

use std::fmt;

/// The most of a response kept for its trace; the rest is counted, not kept.
pub const MAX_RAW_BYTES: usize = 2 * 1024 * 1024;

/// A response as the server sent it: each SSE `data:` payload framed as
/// `data: ...\n\n` (a JSON answer to a streamed request reads as one
/// payload), ending with `data: [DONE]` when the stream finished. Only the
/// first [`MAX_RAW_BYTES`] are kept. `Debug` shows sizes only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RawResponse {
    /// The HTTP status, when known (a finished stream is `200`).
    pub status: Option<u16>,
    text: String,
    /// Bytes received past the cap.
    dropped: u64,
}

impl fmt::Debug for RawResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawResponse")
            .field("status", &self.status)
            .field("bytes", &self.text.len())
            .field("dropped", &self.dropped)
            .finish()
    }
}

impl RawResponse {
    /// Add one SSE data payload.
    pub fn push_data(&mut self, data: &str) {
        self.push("data: ");
        self.push(data);
        self.push("\n\n");
    }

    /// Add text as it came (an error body, a note).
    pub fn push(&mut self, text: &str) {
        let room = MAX_RAW_BYTES.saturating_sub(self.text.len());
        if self.dropped == 0 && text.len() <= room {
            self.text.push_str(text);
            return;
        }
        let mut end = room.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if self.dropped == 0 {
            self.text.push_str(&text[..end]);
        } else {
            end = 0;
        }
        self.dropped = self.dropped.saturating_add((text.len() - end) as u64);
    }

    /// Whether part of the response was not kept.
    pub fn is_truncated(&self) -> bool {
        self.dropped > 0
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.dropped == 0
    }

    /// The kept text, with a closing note when the cap cut it.
    pub fn text(&self) -> String {
        if self.dropped == 0 {
            return self.text.clone();
        }
        format!(
            "{}\n[halley: response cut at {} MB; {} more bytes were received and not kept]\n",
            self.text,
            MAX_RAW_BYTES / (1024 * 1024),
            self.dropped
        )
    }
}

/// What a failed model call had received, attached to its error as the
/// source (see [`crate::agent::client::raw_response_of`]). Its `Display` is
/// empty so the error's wire message does not change.
#[derive(Debug)]
pub(crate) struct Partial(pub RawResponse);

impl fmt::Display for Partial {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}

impl std::error::Error for Partial {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn payloads_are_framed_and_capped_with_a_note() {
        let mut raw = RawResponse::default();
        raw.push_data(r#"{"a":1}"#);
        raw.push_data("[DONE]");
        assert_eq!(raw.text(), "data: {\"a\":1}\n\ndata: [DONE]\n\n");
        assert!(!raw.is_truncated());

        let mut raw = RawResponse::default();
        raw.push(&"x".repeat(MAX_RAW_BYTES - 1));
        raw.push("éé");
        raw.push_data("more");
        assert!(raw.is_truncated());
        let text = raw.text();
        assert!(text.starts_with(&"x".repeat(MAX_RAW_BYTES - 1)));
        let note = &text[MAX_RAW_BYTES - 1..];
        assert_eq!(note, "\n[halley: response cut at 2 MB; 16 more bytes were received and not kept]\n");
        assert_eq!(
            format!("{raw:?}"),
            format!("RawResponse {{ status: None, bytes: {}, dropped: 16 }}", MAX_RAW_BYTES - 1)
        );
    }
}
