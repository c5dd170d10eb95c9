//! How the CLI answers confirmation requests: `--yes` approves in advance
//! (`tools call`/`tools script`, where the user wrote every call), on a
//! terminal the user is asked, and with `--confirm deny` or no terminal the
//! answer is no.

use std::future::Future;
use std::io::{BufRead, IsTerminal, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Map;

use crate::gate::{ApproveAll, ChallengeAnswer, ChallengeRequest, ConfirmationRequest, Confirmer, DenyAll};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::vocab::text::fold;

/// `--confirm`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ConfirmMode {
    /// Ask on the terminal; refuse when there is none.
    #[default]
    Ask,
    /// Refuse every action that needs confirmation.
    Deny,
}

/// An unanswered prompt is a refusal after this long.
const PROMPT_TIMEOUT: Duration = Duration::from_secs(120);

pub fn confirmer(mode: ConfirmMode, yes: bool) -> Arc<dyn Confirmer> {
    if yes {
        return Arc::new(ApproveAll);
    }
    match mode {
        ConfirmMode::Ask if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => Arc::new(Prompt),
        _ => Arc::new(DenyAll),
    }
}

/// Read one line from the terminal after printing `text` on stderr.
async fn ask_line(text: String) -> Option<String> {
    let asked = tokio::task::spawn_blocking(move || {
        let mut err = std::io::stderr();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(|_| line)
    });
    match asked.await {
        Ok(Ok(line)) => Some(line),
        _ => None,
    }
}

/// The question as the terminal shows it.
fn prompt_text(request: &ConfirmationRequest) -> String {
    let mut q = format!(
        "\nHalley needs your confirmation [{} · {} risk]\n  {}\n",
        request.scope, request.risk_level, request.action_summary
    );
    for f in &request.fields {
        let label = if f.label.is_empty() { &f.name } else { &f.label };
        q.push_str(&format!("    {label}: {}\n", f.value));
    }
    if let Some(d) = &request.destination {
        q.push_str(&format!("  Destination: {d}\n"));
    }
    if let Some(t) = &request.page_total {
        q.push_str(&format!("  The page shows: {t}\n"));
    }
    for r in &request.risks {
        q.push_str(&format!("  Why you are asked: {r}\n"));
    }
    q.push_str("Approve? [y]es / [a]lways for this session / [N]o: ");
    q
}

/// Asks on the terminal (stderr for the question, stdin for the answer).
#[derive(Debug)]
struct Prompt;

impl Confirmer for Prompt {
    fn challenge<'a>(
        &'a self,
        request: &'a ChallengeRequest,
        still_there: crate::context::StillThere<'a>,
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        let hint = request.page_hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default();
        let mut text = format!(
            "\nHalley hands this to you: a {} on {}{hint}, in {} of the browser.\n\
             Solve it there; Halley goes on when it is gone. Type `cancel` and Enter to give up: ",
            request.challenge_type, request.url, request.tab_id
        );
        Box::pin(async move {
            loop {
                match ask_line(text).await {
                    Some(line) if matches!(fold(line.trim()).as_str(), "cancel" | "huy" | "q") => {
                        return ChallengeAnswer::GaveUp;
                    }
                    Some(_) if still_there().await => {
                        text = format!(
                            "The page still shows the {}. Solve it in the browser, then press Enter \
                             (or type `cancel`): ",
                            request.challenge_type
                        );
                    }
                    Some(_) => return ChallengeAnswer::Done,
                    // No terminal after all: only the page can tell.
                    None => return std::future::pending().await,
                }
            }
        })
    }

    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        let question = prompt_text(request);
        Box::pin(async move {
            let asked = tokio::task::spawn_blocking(move || {
                let mut err = std::io::stderr();
                let _ = err.write_all(question.as_bytes());
                let _ = err.flush();
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line).map(|_| line)
            });
            let answer = tokio::time::timeout(PROMPT_TIMEOUT, asked).await;
            let line = match answer {
                Ok(Ok(Ok(line))) => line,
                _ => String::new(),
            };
            let answer = fold(line.trim());
            let always = matches!(answer.as_str(), "a" | "always" | "luon");
            let yes = always || matches!(answer.as_str(), "y" | "yes" | "co");
            let mut user_edits = Map::new();
            if always {
                user_edits.insert("remember".into(), crate::gate::check::REMEMBER_SESSION.into());
            }
            ConfirmResultV1 {
                approved: yes,
                user_edits,
                reason: if yes { String::new() } else { "refused at the prompt".into() },
            }
        })
    }
}
