//! The run's guard against going round in circles: tool errors in a row
//! and the same call over and over. After each call it says whether the
//! run goes on, gets a nudge, or stops.

use std::collections::VecDeque;

use serde_json::Value;

use super::RunLimits;
use crate::store::runs::StopReason;

/// What the guard says after a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Judgement {
    Go,
    /// Tell the model (a user message after the turn's tool results).
    Nudge(String),
    Stop(StopReason),
}

/// Recent calls and failures of one run.
#[derive(Debug, Default)]
pub(super) struct LoopGuard {
    failures: u32,
    recent: VecDeque<String>,
}

impl LoopGuard {
    /// Count a call of `tool` with `args` that succeeded or not.
    pub fn after_call(&mut self, limits: &RunLimits, tool: &str, args: &Value, ok: bool) -> Judgement {
        self.failures = if ok { 0 } else { self.failures + 1 };
        let key = format!("{tool}:{args}");
        self.recent.push_back(key.clone());
        if self.recent.len() > limits.repeat_nudge_after as usize + 1 {
            self.recent.pop_front();
        }
        let same = u32::try_from(self.recent.iter().rev().take_while(|k| **k == key).count()).unwrap_or(u32::MAX);
        if same > limits.repeat_nudge_after {
            Judgement::Stop(StopReason::RepeatedAction)
        } else if self.failures >= limits.max_consecutive_failures {
            Judgement::Stop(StopReason::TooManyFailures)
        } else if same == limits.repeat_nudge_after {
            Judgement::Nudge(format!(
                "(Halley) You called {tool} with the same arguments {same} times in a row and it did not get you \
                 further. Try something else or answer with what you know."
            ))
        } else {
            Judgement::Go
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_call_is_nudged_then_stopped_and_failures_in_a_row_stop() {
        let limits = RunLimits { repeat_nudge_after: 2, max_consecutive_failures: 3, ..RunLimits::default() };
        let mut guard = LoopGuard::default();
        let args = json!({"selector": "h1"});
        assert_eq!(guard.after_call(&limits, "browser_read_text", &args, true), Judgement::Go);
        assert!(
            matches!(guard.after_call(&limits, "browser_read_text", &args, true), Judgement::Nudge(m) if m.contains("2 times"))
        );
        assert_eq!(
            guard.after_call(&limits, "browser_read_text", &args, true),
            Judgement::Stop(StopReason::RepeatedAction)
        );

        let mut guard = LoopGuard::default();
        for (i, tool) in ["a", "b"].iter().enumerate() {
            assert_eq!(guard.after_call(&limits, tool, &json!({"i": i}), false), Judgement::Go);
        }
        // A success in between resets the count.
        assert_eq!(guard.after_call(&limits, "c", &json!({}), true), Judgement::Go);
        for (i, tool) in ["a", "b"].iter().enumerate() {
            assert_eq!(guard.after_call(&limits, tool, &json!({"i": i}), false), Judgement::Go);
        }
        assert_eq!(guard.after_call(&limits, "d", &json!({}), false), Judgement::Stop(StopReason::TooManyFailures));
    }
}
