//! `halley models key set|status|delete`: API keys saved in the OS keyring
//! (the test session's GNOME keyring), read from stdin, sent only in the
//! `Authorization` header, and never written to the database or printed;
//! without a keyring, a clear error and nothing written.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::model_server::{ModelServer, Turn};
use crate::common::{Halley, Run, files_containing, in_session, secret_tool_lookup};

/// Variables that would give a key or an endpoint before the keyring.
const MODEL_ENV: [&str; 6] =
    ["OPENAI_API_KEY", "OPENAI_BASE_URL", "HALLEY_MODEL", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "HALLEY_DATA_DIR"];

/// Run `halley --data-dir <data> ARGS` with `stdin` piped in and `env` set.
fn halley(h: &Halley, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    h.run_piped(args, stdin, &MODEL_ENV, env)
}

#[test]
fn a_saved_key_lives_in_the_keyring_and_only_travels_in_the_authorization_header() {
    if !in_session() {
        return;
    }
    let model = ModelServer::start(vec![Turn::text("Xin chào, tôi là Halley.")]);
    let base = model.base_url();
    let account = format!("api-key:{}", base.trim_start_matches("http://").trim_end_matches("/v1"));
    let key = format!("sk-halley-test-{}", uuid::Uuid::new_v4().simple());
    let h = Halley::new();
    let mut outputs: Vec<Run> = Vec::new();

    // Saved from stdin (the newline is dropped), straight into the Secret Service.
    let set = halley(&h, &["models", "key", "set", "--base-url", &base], &format!("{key}\n"), &[]);
    assert_eq!(set.code, 0, "{set:?}");
    assert!(set.stdout.contains(&account), "{}", set.stdout);
    assert_eq!(secret_tool_lookup(&account).as_deref(), Some(key.as_str()));
    outputs.push(set);

    let status = halley(&h, &["models", "key", "status", "--base-url", &base, "--json"], "", &[]);
    assert_eq!(status.code, 0, "{status:?}");
    assert_eq!(
        status.json(),
        json!({"account": account, "base_url": base, "preset": null, "saved": true, "overridden_by": null})
    );
    outputs.push(status);

    // `halley models` and `halley run` send it as the bearer token.
    let models = halley(&h, &["models", "--base-url", &base, "--json"], "", &[]);
    assert_eq!(models.code, 0, "{models:?}");
    outputs.push(models);
    let run = halley(&h, &["run", "Chào bạn", "--base-url", &base, "--model", "scripted-model", "--json"], "", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    outputs.push(run);
    let raw = model.raw_requests();
    let seen: Vec<(&str, &str, Option<&str>)> =
        raw.iter().map(|r| (r.method.as_str(), r.path.as_str(), r.header("authorization"))).collect();
    let bearer = format!("Bearer {key}");
    assert_eq!(
        seen,
        vec![
            // `halley models`: the ids, and whether the server is Ollama
            // (its root says so).
            ("GET", "/v1/models", Some(bearer.as_str())),
            ("GET", "/", Some(bearer.as_str())),
            // `halley run`: whether it is Ollama, asked once.
            ("GET", "/", Some(bearer.as_str())),
            // The context a local server gives the model, where llama.cpp,
            // vLLM and LM Studio say it (this one says nothing), asked once.
            ("GET", "/props", Some(bearer.as_str())),
            ("GET", "/v1/models", Some(bearer.as_str())),
            ("GET", "/api/v0/models/scripted-model", Some(bearer.as_str())),
            ("POST", "/v1/chat/completions", Some(bearer.as_str()))
        ]
    );
    assert!(raw.iter().all(|r| !r.body.contains(&key)), "the key is never in a request body");

    // A key from the environment comes first; status says so.
    let status =
        halley(&h, &["models", "key", "status", "--base-url", &base, "--json"], "", &[("OPENAI_API_KEY", "sk-env")]);
    assert_eq!(status.json()["overridden_by"], "OPENAI_API_KEY");

    // Nowhere in the data directory (SQLite, WAL) and never printed.
    assert!(h.data_dir().join("halley.db").is_file());
    assert_eq!(files_containing(h.tmp.path(), &key), Vec::<String>::new());
    for out in &outputs {
        assert!(!out.stdout.contains(&key) && !out.stderr.contains(&key), "{out:?}");
    }

    // Deleted: gone from the Secret Service, and no longer sent.
    let delete = halley(&h, &["models", "key", "delete", "--base-url", &base], "", &[]);
    assert_eq!(delete.code, 0, "{delete:?}");
    assert!(delete.stdout.contains("deleted"), "{}", delete.stdout);
    assert_eq!(secret_tool_lookup(&account), None);
    let again = halley(&h, &["models", "key", "delete", "--base-url", &base], "", &[]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("no API key was saved"), "{}", again.stdout);
    let status = halley(&h, &["models", "key", "status", "--base-url", &base], "", &[]);
    assert!(status.stdout.starts_with("no API key is saved"), "{}", status.stdout);
    let models = halley(&h, &["models", "--base-url", &base], "", &[]);
    assert_eq!(models.code, 0, "{models:?}");
    assert_eq!(model.raw_requests().last().map(|r| r.header("authorization")), Some(None));
}

#[test]
fn a_preset_key_is_filed_under_the_preset() {
    if !in_session() {
        return;
    }
    let h = Halley::new();
    // OpenRouter: a preset nothing else in the tests uses.
    let key = format!("sk-or-test-{}", uuid::Uuid::new_v4().simple());
    let set = halley(&h, &["models", "key", "set", "--preset", "OpenRouter"], &key, &[]);
    assert_eq!(set.code, 0, "{set:?}");
    assert!(set.stdout.contains("OpenRouter (https://openrouter.ai/api/v1)"), "{}", set.stdout);
    assert_eq!(secret_tool_lookup("api-key:openrouter").as_deref(), Some(key.as_str()));
    let delete = halley(&h, &["models", "key", "delete", "--preset", "openrouter"], "", &[]);
    assert_eq!(delete.code, 0, "{delete:?}");
    assert_eq!(secret_tool_lookup("api-key:openrouter"), None);
}

#[test]
fn without_a_keyring_the_key_commands_fail_clearly_and_write_nothing() {
    let h = Halley::new();
    let home = h.tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let home = home.to_string_lossy().into_owned();
    let no_bus = [
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/halley-test-bus"),
        ("HOME", home.as_str()),
        ("XDG_DATA_HOME", home.as_str()),
        ("XDG_CONFIG_HOME", home.as_str()),
        ("XDG_RUNTIME_DIR", home.as_str()),
    ];
    let key = format!("sk-nowhere-{}", uuid::Uuid::new_v4().simple());
    for args in [
        vec!["models", "key", "set", "--preset", "openai"],
        vec!["models", "key", "status", "--preset", "openai"],
        vec!["models", "key", "delete", "--preset", "openai"],
    ] {
        let run = halley(&h, &args, &format!("{key}\n"), &no_bus);
        assert_eq!(run.code, 1, "{args:?}: {run:?}");
        assert!(run.stderr.starts_with("halley: error [keyring]: no OS keyring is available"), "{}", run.stderr);
        assert!(run.stderr.contains("gnome-keyring-daemon") && run.stderr.contains("never stores keys in plain text"));
        assert!(!run.stdout.contains(&key) && !run.stderr.contains(&key), "{run:?}");
    }
    assert_eq!(files_containing(h.tmp.path(), &key), Vec::<String>::new());
    assert_eq!(crate::common::tree(&h.data_dir()), Vec::<String>::new());

    // A local model needs no key: a missing keyring does not stop it.
    let model = ModelServer::start(vec![]);
    let models = halley(&h, &["models", "--base-url", &model.base_url()], "", &no_bus);
    assert_eq!(models.code, 0, "{models:?}");
    assert_eq!(models.stderr, "");
    assert_eq!(model.raw_requests()[0].header("authorization"), None);
}

#[test]
fn the_key_comes_from_stdin_only_and_must_be_one_line() {
    let h = Halley::new();
    let no_bus = [("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/halley-test-bus")];
    let empty = halley(&h, &["models", "key", "set", "--preset", "openai"], " \n", &no_bus);
    assert_eq!(empty.code, 2, "{empty:?}");
    assert!(empty.stderr.contains("no key on stdin"), "{}", empty.stderr);
    let two_lines = halley(&h, &["models", "key", "set", "--preset", "openai"], "sk-a\nsk-b\n", &no_bus);
    assert_eq!(two_lines.code, 2, "{two_lines:?}");
    assert!(two_lines.stderr.contains("one key on one line"), "{}", two_lines.stderr);
    assert!(!two_lines.stderr.contains("sk-a"), "{}", two_lines.stderr);
    // There is no flag for the key itself: argv is visible to every user of the machine.
    let flag = halley(&h, &["models", "key", "set", "--preset", "openai", "--api-key", "sk-x"], "", &no_bus);
    assert_eq!(flag.code, 2, "{flag:?}");
    let both = halley(&h, &["models", "key", "set", "--preset", "openai", "--base-url", "http://x/v1"], "k", &no_bus);
    assert_eq!(both.code, 2, "{both:?}");
}

#[test]
fn sensitive_profile_values_are_sealed_at_rest_and_refused_without_a_keyring() {
    if !in_session() {
        return;
    }
    let h = Halley::new();
    let passport = format!("C{}", &uuid::Uuid::new_v4().simple().to_string()[..9]);
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": passport, "travel.seat": "cửa sổ"}}));
    assert_eq!(set.code, 0, "{set:?}");
    // Used the normal way: the run fills it in for the user; at rest, nowhere.
    let got = h.call("user_profile_get", &json!({"keys": ["travel.seat"]}));
    assert_eq!(got.code, 0, "{got:?}");
    assert!(got.stdout.contains("cửa sổ"), "{}", got.stdout);
    assert_eq!(files_containing(&h.data_dir(), &passport), Vec::<String>::new());
    assert_eq!(files_containing(&h.data_dir(), "cửa sổ").len(), 1, "the plain value is in halley.db");

    // No keyring: a clear error, and the value is not stored.
    let card = format!("4111{}", &uuid::Uuid::new_v4().as_u128().to_string()[..12]);
    let no_bus = [("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/halley-test-bus")];
    let args = json!({"set": {"payment.card_number": card}}).to_string();
    let refused = halley(&h, &["tools", "call", "user_profile_set", "--args", &args], "", &no_bus);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.stdout.contains("keyring") || refused.stderr.contains("keyring"), "{refused:?}");
    assert_eq!(files_containing(&h.data_dir(), &card), Vec::<String>::new());
}
