//! `creator_collect_research`: read up to `max_sources` pages (the
//! `sources` given, then what `web_search` finds, when it runs), have the
//! model take notes by the note schema (`creator_notes_v1`: key points
//! and numbers, each with its source and a passage quoted from it, plus
//! open questions), check every quote against the text of its page (a
//! claim whose quote is not there is dropped, with a note), and keep the
//! notes as Markdown in the files store (tag `creator-research`, which
//! `creator_plan_calendar` reads).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Skill;
use crate::error::{Error, ErrorCode, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::BrowserReadTextOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::creator::{Citation, CreatorCollectResearchArgs, CreatorCollectResearchOutput};
use crate::tools::catalogue::data::WebSearchOutput;
use crate::tools::catalogue::navigation::BrowserNavigateOutput;
use crate::vocab::text::fold;

pub const NAME: &str = "creator_collect_research";
/// The note schemas Halley ships.
pub const NOTE_SCHEMAS: [&str; 1] = ["creator_notes_v1"];
/// How much of each page the model is shown.
const PAGE_CHARS: u32 = 20_000;

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    super::typed(NAME, args, move |a: CreatorCollectResearchArgs| collect(skill, a))
}

/// One page read.
struct Page {
    url: String,
    title: String,
    text: String,
}

#[derive(Debug, Deserialize)]
struct Notes {
    key_points: Vec<Cited>,
    #[serde(default)]
    numbers: Vec<Cited>,
    #[serde(default)]
    open_questions: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Cited {
    claim: String,
    source: usize,
    quote: String,
}

fn notes_schema(sources: usize) -> Value {
    let cited = json!({
        "type": "object", "required": ["claim", "source", "quote"],
        "properties": {
            "claim": {"type": "string", "minLength": 3, "maxLength": 400},
            "source": {"type": "integer", "minimum": 1, "maximum": sources},
            "quote": {"type": "string", "minLength": 3, "maxLength": 600}
        }
    });
    json!({
        "type": "object",
        "required": ["key_points", "numbers", "open_questions"],
        "properties": {
            "key_points": {"type": "array", "minItems": 1, "maxItems": 30, "items": cited},
            "numbers": {"type": "array", "maxItems": 30, "items": cited},
            "open_questions": {"type": "array", "maxItems": 10, "items": {"type": "string", "minLength": 3}}
        }
    })
}

/// Text compared for quotes: folded (case and diacritics, `fold`), curly
/// quotes and dashes made plain, whitespace squashed.
fn comparable(text: &str) -> String {
    let plain: String = text
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            c => c,
        })
        .collect();
    fold(&plain).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `quote` occurs in `page` (see [`comparable`]).
pub fn quoted_in(quote: &str, page: &str) -> bool {
    let q = comparable(quote.trim().trim_matches(|c| matches!(c, '"' | '\u{201c}' | '\u{201d}' | '\'' | '.')));
    !q.is_empty() && comparable(page).contains(&q)
}

async fn find_sources(skill: &Skill<'_>, args: &CreatorCollectResearchArgs) -> Vec<String> {
    let max = usize::try_from(args.max_sources).unwrap_or(usize::MAX);
    let mut urls: Vec<String> = Vec::new();
    for u in &args.sources {
        if !urls.contains(u) {
            urls.push(u.clone());
        }
    }
    if urls.len() < max {
        let want = u8::try_from((max - urls.len()).min(20)).unwrap_or(20);
        let found = skill.call("web_search", json!({"query": args.topic, "max_results": want})).await;
        match found.error {
            Some(e) if matches!(e.code, ErrorCode::NotAvailable | ErrorCode::UnknownTool | ErrorCode::NotFound) => {
                skill.note(format!("no web search ({}): only the sources given were read", e.message));
            }
            Some(e) => skill.note(format!("the web search failed: {}", e.message)),
            None => match serde_json::from_value::<WebSearchOutput>(found.data) {
                Ok(out) => urls.extend(out.results.into_iter().map(|r| r.url).filter(|u| !args.sources.contains(u))),
                Err(_) => skill.note("the web search answered something unreadable"),
            },
        }
    }
    urls.truncate(max);
    urls
}

async fn read(skill: &Skill<'_>, url: &str) -> Option<Page> {
    let nav: BrowserNavigateOutput = match skill.data("browser_navigate", json!({"url": url})).await {
        Ok(n) => n,
        Err(e) => {
            skill.note(format!("{url} was not read: {}", e.message()));
            return None;
        }
    };
    if nav.http_status.is_some_and(|s| s >= 400) {
        skill.note(format!("{url} answered HTTP {}: left out", nav.http_status.unwrap_or_default()));
        return None;
    }
    match skill.data::<BrowserReadTextOutput>("browser_read_text", json!({"max_chars": PAGE_CHARS})).await {
        Ok(t) => Some(Page { url: nav.url, title: nav.title, text: t.text }),
        Err(e) => {
            skill.note(format!("{url} was not read: {}", e.message()));
            None
        }
    }
}

async fn collect(skill: &Skill<'_>, args: CreatorCollectResearchArgs) -> Result<CreatorCollectResearchOutput> {
    if !NOTE_SCHEMAS.contains(&args.note_schema.as_str()) {
        return Err(Error::invalid_arguments(format!(
            "note_schema {:?} is not one Halley ships: use {}",
            args.note_schema,
            NOTE_SCHEMAS.join(", ")
        )));
    }
    let urls = find_sources(skill, &args).await;
    if urls.is_empty() {
        return Err(Error::new(
            ErrorCode::NotAvailable,
            "no sources to read: the web search found none (see the notes) and no pages were given in `sources`",
        ));
    }
    let mut pages = Vec::new();
    for url in &urls {
        if let Some(p) = read(skill, url).await {
            pages.push(p);
        }
    }
    let mut status = if pages.len() == urls.len() { SkillStatus::Ok } else { SkillStatus::Partial };
    let input = json!({
        "topic": args.topic,
        "language": args.language,
        "sources": pages.iter().enumerate().map(|(i, p)| json!({
            "source": i + 1, "url": p.url, "title": p.title, "text": p.text,
        })).collect::<Vec<_>>(),
    });
    let task = "take research notes on the topic from these sources: key points and numbers, each with the number \
                of its source and a passage copied word for word from that source's text that supports it, and the \
                open questions the sources leave";
    let notes: Option<Notes> =
        if pages.is_empty() { None } else { skill.write(task, &input, &notes_schema(pages.len())).await? };
    let mut citations = Vec::new();
    let mut questions = Vec::new();
    match notes {
        Some(n) => {
            for c in n.key_points.into_iter().chain(n.numbers) {
                let Some(page) = pages.get(c.source.wrapping_sub(1)) else { continue };
                if quoted_in(&c.quote, &page.text) {
                    citations.push(Citation {
                        claim: c.claim.trim().to_owned(),
                        url: page.url.clone(),
                        quote: c.quote,
                    });
                } else {
                    skill.note(format!(
                        "dropped \"{}\": its quote is not on {} (\"{}\")",
                        c.claim.trim(),
                        page.url,
                        c.quote.trim()
                    ));
                }
            }
            questions = n.open_questions;
        }
        None => status = SkillStatus::Partial,
    }
    let mut citations_map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in &citations {
        let urls = citations_map.entry(c.claim.clone()).or_default();
        if !urls.contains(&c.url) {
            urls.push(c.url.clone());
        }
    }
    let markdown = markdown(&args.topic, &pages, &citations, &questions);
    let name = format!("research-{}.md", slug(&args.topic));
    let note = format!("{} claims from {} sources", citations.len(), pages.len());
    let file = skill.store_text(&name, &markdown, &[super::creator_calendar::RESEARCH_TAG], &note).await?;
    Ok(CreatorCollectResearchOutput {
        notes_ref: file.id,
        citations_map,
        status,
        citations,
        sources: pages.into_iter().map(|p| p.url).collect(),
        notes: skill.notes(),
    })
}

fn slug(topic: &str) -> String {
    let s: String = fold(topic).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
    let s = s.split('-').filter(|p| !p.is_empty()).take(8).collect::<Vec<_>>().join("-");
    if s.is_empty() { "notes".to_owned() } else { s }
}

/// The notes as Markdown: key points with their quotes and source numbers,
/// open questions, the sources.
fn markdown(topic: &str, pages: &[Page], citations: &[Citation], questions: &[String]) -> String {
    let mut out = format!("# Research: {topic}\n\n## Key points\n\n");
    let number = |url: &str| pages.iter().position(|p| p.url == url).map_or(0, |i| i + 1);
    if citations.is_empty() {
        out.push_str("(none kept)\n");
    }
    for c in citations {
        let _ = writeln!(out, "- {} [{}]\n  > {}", c.claim, number(&c.url), c.quote.trim());
    }
    if !questions.is_empty() {
        out.push_str("\n## Open questions\n\n");
        for q in questions {
            let _ = writeln!(out, "- {}", q.trim());
        }
    }
    out.push_str("\n## Sources\n\n");
    for (i, p) in pages.iter().enumerate() {
        let _ = writeln!(out, "{}. [{}]({})", i + 1, p.title.replace(['[', ']'], ""), p.url);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_found_whatever_the_case_spacing_and_curly_quotes() {
        let page = "Theo khảo sát, 62%   người dùng muốn trình duyệt “tự điền biểu mẫu”.\nAgents are HERE.";
        assert!(quoted_in("62% người dùng muốn trình duyệt \"tự điền biểu mẫu\"", page));
        assert!(quoted_in("\"agents are here.\"", page));
        assert!(!quoted_in("80% người dùng", page));
        assert!(!quoted_in("   ", page));
        assert_eq!(slug("Xu hướng trình duyệt AI 2025!"), "xu-huong-trinh-duyet-ai-2025");
    }
}
