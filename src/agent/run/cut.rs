//! A reply the model server stopped at its length limit (`finish_reason`
//! `length` on the OpenAI-compatible API, `done_reason` `length` on
//! Ollama's): a call in it may have lost arguments and an answer its end,
//! so neither is used. The loop asks once again, shorter; a second cut
//! reply in a row ends the run with a clear error.

/// What a reply the server stopped at its length limit (`finish_reason` /
/// `done_reason` `length`) was cut in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// A tool call (in `tool_calls` or written as text): its arguments may
    /// be cut, so it is not run.
    Call,
    /// The answer: it is not shown as the run's.
    Answer,
}

impl Cut {
    /// What the step records.
    pub(super) fn note(self) -> &'static str {
        match self {
            Cut::Call => "the reply stopped at the model's length limit inside a tool call; the call was not run",
            Cut::Answer => "the reply stopped at the model's length limit; the cut answer was not used",
        }
    }

    /// What the model is told (in this run's history only).
    pub(super) fn again(self) -> String {
        let what = match self {
            Cut::Call => {
                "Your tool call was cut off at the length limit, so it was not run. Call the tool again, \
                          with shorter arguments, and nothing else"
            }
            Cut::Answer => {
                "Your answer was cut off at the length limit, so the user did not get it. Write the \
                            whole answer again, shorter: only what the user asked"
            }
        };
        format!("(Halley) {what}.")
    }

    /// The run's error when the second reply in a row is cut too.
    pub(super) fn give_up(self) -> String {
        let what = match self {
            Cut::Call => "a tool call cut short (it was not run)",
            Cut::Answer => "an answer cut short (it is not shown as the answer)",
        };
        format!(
            "the model's reply stopped at its length limit twice in a row, the second time in {what}; the run \
             stopped. Ask for less at a time, or raise the model server's output limit (max_tokens, num_predict)"
        )
    }
}
