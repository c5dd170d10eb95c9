//! A reasoning model's `<think>` blocks, kept out of the answer and the
//! history (the provider trace keeps the response as received), and the
//! gate that keeps them, and text that may be a tool call, out of the
//! tokens streamed to the user.

use super::{MARKERS, normalize};

const OPEN: &str = "<think>";
/// Bytes of a turn's text the gate streams as they come (see [`TokenGate::push`]).
const STREAM_LIMIT: usize = 32 * 1024;
const CLOSE: &str = "</think>";

/// `text` without its thinking: every `<think>…</think>` block; a block
/// left open (the output was cut, or the model never closed it) to the end,
/// or to the call marker that follows it;
/// and the text before a `</think>` that no `<think>` opened (templates
/// that put `<think>` in the prompt, as Qwen3's thinking models do).
pub fn strip(text: &str) -> String {
    let mut rest = text;
    if let Some(close) = rest.find(CLOSE)
        && !rest[..close].contains(OPEN)
    {
        rest = &rest[close + CLOSE.len()..];
    }
    let mut out = String::with_capacity(rest.len());
    while let Some(open) = rest.find(OPEN) {
        out.push_str(&rest[..open]);
        let inside = &rest[open + OPEN.len()..];
        match inside.find(CLOSE) {
            Some(close) => rest = &inside[close + CLOSE.len()..],
            // Never closed: to the end, or to a call that follows it (Qwen3
            // at times forgets `</think>` before its `<tool_call>`). A call
            // inside a closed block is thinking, not a call.
            None => match MARKERS.iter().filter_map(|m| inside.find(m)).min() {
                Some(call) => rest = &inside[call..],
                None => return out,
            },
        }
    }
    out.push_str(rest);
    out
}

/// What of a turn's text may be streamed to the user as it comes: its
/// answer, never its thinking nor a tool call written as text. Text that
/// may still turn out to be a call is held back (a text starting with `{`
/// or `[`, or with an offered tool's name and `(`; from the first `{`, a
/// call marker or a code fence on); once the turn is read as an answer,
/// [`TokenGate::rest`] gives what was held.
#[derive(Debug, Default)]
pub struct TokenGate {
    seen: String,
    shown: String,
    /// Offered tool names, normalized: `web_search(` may start a call.
    names: Vec<String>,
}

impl TokenGate {
    pub fn new(names: &[&str]) -> TokenGate {
        TokenGate { names: names.iter().map(|n| normalize(n)).collect(), ..TokenGate::default() }
    }

    /// Take one streamed piece; the text that may be shown now, if any.
    pub fn push(&mut self, piece: &str) -> Option<String> {
        self.seen.push_str(piece);
        // Each piece reads the whole text again: past this much, the rest
        // is held and given whole at the end (a model running on for
        // megabytes must not cost quadratic time).
        if self.seen.len() > STREAM_LIMIT {
            return None;
        }
        let visible = strip(&self.seen);
        let visible = visible.trim_start();
        // The thinking ended after text was shown (a `</think>` nobody
        // opened): nothing more is streamed; the final answer is whole.
        let fresh = visible.strip_prefix(self.shown.as_str())?;
        let safe = self.safe_len(visible).checked_sub(self.shown.len())?;
        let out = fresh.get(..safe).filter(|s| !s.is_empty())?.to_owned();
        self.shown.push_str(&out);
        Some(out)
    }

    /// What is left to show of `answer` (the turn read as an answer). When
    /// the shown text is not its start (thinking whose `<think>` the
    /// template wrote, seen only at its `</think>`), the whole answer,
    /// set apart.
    pub fn rest(&self, answer: &str) -> Option<String> {
        match answer.strip_prefix(self.shown.as_str()) {
            Some(rest) => (!rest.is_empty()).then(|| rest.to_owned()),
            // All of it was shown, with the white space the answer is trimmed of.
            None if self.shown.trim_end() == answer => None,
            None => (!answer.is_empty()).then(|| format!("\n\n{answer}")),
        }
    }

    /// How much of `visible` (the text so far, thinking removed) is surely
    /// not part of a call.
    fn safe_len(&self, visible: &str) -> usize {
        let starts_call = visible.starts_with(['{', '['])
            || self.names.iter().any(|n| {
                let lead = normalize(visible.get(..visible.len().min(n.len() + 1)).unwrap_or(visible));
                format!("{n}(").starts_with(&lead) || lead.starts_with(&format!("{n}("))
            });
        if starts_call {
            return 0;
        }
        let mut safe = visible.find('{').unwrap_or(visible.len());
        for marker in MARKERS.iter().chain(&["```", OPEN]) {
            if let Some(at) = visible.find(marker) {
                safe = safe.min(at);
            }
            // A marker may be arriving: `<tool_` at the end is held.
            for k in (1..marker.len()).rev() {
                if visible.ends_with(&marker[..k]) {
                    safe = safe.min(visible.len() - k);
                    break;
                }
            }
        }
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_stripped_closed_open_or_unopened() {
        assert_eq!(strip("<think>hmm {\"a\":1}</think>\n\nXin chào"), "\n\nXin chào");
        assert_eq!(strip("A<think>x</think>B<think>y</think>C"), "ABC");
        assert_eq!(strip("Answer <think>never closed"), "Answer ");
        assert_eq!(strip("<think>only thinking"), "");
        assert_eq!(strip("<think>cần tìm\n<tool_call>{}</tool_call>"), "<tool_call>{}</tool_call>");
        assert_eq!(strip("<think>nghĩ <tool_call>{}</tool_call></think>Xong."), "Xong.");
        assert_eq!(strip("reasoning without its tag</think>answer"), "answer");
        assert_eq!(strip("no thinking at all"), "no thinking at all");
    }

    fn stream(gate: &mut TokenGate, pieces: &[&str]) -> String {
        pieces.iter().filter_map(|p| gate.push(p)).collect()
    }

    #[test]
    fn the_gate_streams_answers_and_holds_back_calls_and_thinking() {
        let mut gate = TokenGate::new(&["web_search"]);
        let shown = stream(&mut gate, &["<thi", "nk>cần tìm giá", "</think>", "\n\nGiá là ", "1.290.000 ₫", "."]);
        assert_eq!(shown, "Giá là 1.290.000 ₫.");
        assert_eq!(gate.rest("Giá là 1.290.000 ₫."), None);

        let mut gate = TokenGate::new(&["web_search"]);
        let shown =
            stream(&mut gate, &["Để tôi tìm. ", "<tool_", "call>\n{\"name\": ", "\"web_search\"}", "</tool_call>"]);
        assert_eq!(shown, "Để tôi tìm. ");

        let mut gate = TokenGate::new(&["web_search"]);
        assert_eq!(stream(&mut gate, &["{\"name\": ", "\"web_search\", ", "\"arguments\": {}}"]), "");
        let mut gate = TokenGate::new(&["web_search"]);
        assert_eq!(stream(&mut gate, &["web_", "search(query=", "\"x\")"]), "");
        let mut gate = TokenGate::new(&["web_search"]);
        assert_eq!(stream(&mut gate, &["[web_search(query=\"x\")]"]), "");

        // Held text that turns out to be an answer is given at the end.
        let mut gate = TokenGate::new(&["web_search"]);
        let shown = stream(&mut gate, &["Mẫu: ", "```json\n{\"sku\": 1}\n```", " xong"]);
        assert_eq!(shown, "Mẫu: ");
        assert_eq!(
            gate.rest("Mẫu: ```json\n{\"sku\": 1}\n``` xong").as_deref(),
            Some("```json\n{\"sku\": 1}\n``` xong")
        );
        // Thinking seen only at its `</think>`: the answer follows, set apart.
        let mut gate = TokenGate::new(&["web_search"]);
        assert_eq!(stream(&mut gate, &["Cần ", "trả lời ", "ngắn.", "</think>", "\n\nChào bạn."]), "Cần trả lời ngắn.");
        assert_eq!(gate.rest("Chào bạn.").as_deref(), Some("\n\nChào bạn."));
        // A long answer streams its first 32 KB; the rest comes whole at the end.
        let mut gate = TokenGate::new(&["web_search"]);
        let long = "Giá 1.290.000 ₫. ".repeat(4000);
        let pieces: Vec<&str> = long.split_inclusive(' ').collect();
        let shown = stream(&mut gate, &pieces);
        assert!(shown.len() > 30_000 && shown.len() < long.len(), "{}", shown.len());
        assert_eq!(format!("{shown}{}", gate.rest(long.trim()).unwrap()), long.trim());
        // A word that merely starts like a tool's name is shown.
        let mut gate = TokenGate::new(&["web_search"]);
        assert_eq!(stream(&mut gate, &["website ", "của shop"]), "website của shop");
    }
}
