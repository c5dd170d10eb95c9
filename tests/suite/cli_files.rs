//! files_store / files_get / files_tag through the CLI: content-addressed
//! copies, metadata, tags and notes that survive a new process.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::{Halley, tree};

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[test]
fn store_get_and_tag_a_document() {
    let h = Halley::new();
    let bytes = b"\x89PNG\r\n\x1a\n fake passport scan";
    h.write_file("passport.png", bytes);
    let sha = sha256_hex(bytes);

    // The tools.md example, with its relative file:// ref.
    let run = h.call(
        "files_store",
        &json!({"file_path": "file://passport.png", "tags": ["travel", "passport"], "note": "scan 2025"}),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let r = run.result();
    let file = r["data"]["file"].clone();
    let id = file["id"].as_str().expect("id").to_string();
    assert_eq!(id, format!("file-{}", &sha[..16]));
    let stored_path = h.data_dir().join("files").join(&sha[..2]).join(format!("{sha}.png"));
    assert_eq!(
        file,
        json!({
            "id": id, "name": "passport.png", "sha256": sha, "size": bytes.len(), "mime": "image/png",
            "ref": format!("file://{}", stored_path.display()),
            "tags": ["passport", "travel"], "note": "scan 2025", "created_at": file["created_at"]
        })
    );
    assert_eq!(r["data"]["deduplicated"], false);
    assert_eq!(std::fs::read(&stored_path).unwrap(), bytes);

    // A new process finds it by id and by tags.
    let by_id = h.call("files_get", &json!({"id": id}));
    assert_eq!(by_id.code, 0, "{}", by_id.stderr);
    assert_eq!(by_id.result()["data"]["files"], json!([file.clone()]));
    let by_tags = h.call("files_get", &json!({"tags": ["Travel"]}));
    assert_eq!(by_tags.result()["data"]["files"][0]["id"], json!(id));
    let none = h.call("files_get", &json!({"tags": ["travel", "visa"]}));
    assert_eq!(none.result()["data"]["files"], json!([]));

    // files_tag with the tools.md example shape (by file_path), then by id.
    let tag = h.call(
        "files_tag",
        &json!({"file_path": "file://passport.png", "tags": ["visa"], "note": "scan 2025 (renewed)"}),
    );
    assert_eq!(tag.code, 0, "{}", tag.stderr);
    let tagged = tag.result()["data"]["file"].clone();
    assert_eq!(tagged["tags"], json!(["passport", "travel", "visa"]));
    assert_eq!(tagged["note"], "scan 2025 (renewed)");
    let untag = h.call("files_tag", &json!({"id": id, "remove_tags": ["passport"]}));
    assert_eq!(untag.result()["data"]["file"]["tags"], json!(["travel", "visa"]));

    // Storing the same content again deduplicates: one blob, one record.
    h.write_file("copy/passport-copy.png", bytes);
    let again = h.call(
        "files_store",
        &json!({"file_path": h.work_dir().join("copy/passport-copy.png").display().to_string(), "tags": ["backup"]}),
    );
    let again = again.result();
    assert_eq!(again["data"]["deduplicated"], true);
    assert_eq!(again["data"]["file"]["id"], json!(id));
    assert_eq!(again["data"]["file"]["tags"], json!(["backup", "travel", "visa"]));
    let blobs: Vec<String> = tree(&h.data_dir().join("files"));
    assert_eq!(blobs, vec![format!("{}/{sha}.png", &sha[..2])]);
}

#[test]
fn a_vietnamese_file_name_with_spaces() {
    let h = Halley::new();
    let p = h.write_file("hộ chiếu 2025.pdf", b"%PDF-1.4 test");
    let url = url::Url::from_file_path(&p).unwrap().to_string();
    assert!(url.contains("%20"));
    let run = h.call("files_store", &json!({"file_path": url}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let f = run.result()["data"]["file"].clone();
    assert_eq!(f["name"], "hộ chiếu 2025.pdf");
    assert_eq!(f["mime"], "application/pdf");
}

#[test]
fn missing_or_unreadable_files_are_clear_errors_and_store_nothing() {
    let h = Halley::new();
    let run = h.call("files_store", &json!({"file_path": "file://nope.png"}));
    assert_eq!(run.code, 1);
    let r = run.result();
    assert_eq!(r["status"], "error");
    assert_eq!(r["error"]["code"], "file_not_found");
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("file not found: ") && msg.contains("nope.png"), "{msg}");
    assert_eq!(r["data"], json!({}));

    let dir = h.call("files_store", &json!({"file_path": h.work_dir().display().to_string()}));
    assert_eq!(dir.result()["error"]["code"], "file_not_found");

    let listed = h.call("files_get", &json!({}));
    assert_eq!(listed.result()["data"]["files"], json!([]));
    assert_eq!(tree(&h.data_dir().join("files")), Vec::<String>::new());

    let unknown = h.call("files_get", &json!({"id": "file-0000"}));
    assert_eq!(unknown.code, 1);
    assert_eq!(unknown.result()["error"]["code"], "not_found");

    let not_stored = h.write_file("other.txt", b"never stored");
    let tag = h.call("files_tag", &json!({"file_path": not_stored.display().to_string(), "tags": ["x"]}));
    assert_eq!(tag.result()["error"]["code"], "not_found");
    let _ = Value::Null;
}

/// `halley tools call files_store` with `HOME` set to `home`, answered by `answer`.
fn store_from(h: &Halley, home: &std::path::Path, path: &str, answer: &[&str]) -> crate::common::Run {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["tools", "call", "files_store", "--args", &json!({"file_path": path}).to_string()])
        .args(answer)
        .current_dir(h.work_dir())
        .env("HOME", home)
        .env_remove("HALLEY_DATA_DIR")
        .output()
        .unwrap();
    crate::common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn files_from_outside_the_ordinary_folders_are_asked_about_showing_the_path() {
    let h = Halley::new();
    let home = h.tmp.path().join("home");
    let write = |rel: &str, bytes: &[u8]| {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let ordinary = write("Documents/hộ chiếu.pdf", b"%PDF passport scan");
    let key = write(".ssh/id_ed25519", b"-----BEGIN OPENSSH PRIVATE KEY-----");
    let cookies = write(".config/chromium/Default/Network/Cookies", b"SQLite cookies");
    let pem = write("Documents/server.pem", b"-----BEGIN PRIVATE KEY-----");
    let settings = write(".config/mail/accounts.json", b"{\"imap\": \"secret\"}");
    let link = home.join("Documents/notes.txt");
    std::os::unix::fs::symlink(&cookies, &link).unwrap();

    // An ordinary document: stored without a question.
    let run = store_from(&h, &home, &ordinary.display().to_string(), &[]);
    assert_eq!(run.code, 0, "{run:?}");

    // Nobody to ask: refused, the path and the reason said.
    for (path, why) in [
        (key.display().to_string(), "key, password or login store"),
        (settings.display().to_string(), "hidden folder or file of your home"),
        (pem.display().to_string(), "key, password or login store"),
        (link.display().to_string(), "(a link to "),
        ("/etc/hostname".to_owned(), "outside your home folder"),
        (format!("file://{}", h.data_dir().join("halley.db").display()), "Halley's own data"),
    ] {
        let run = store_from(&h, &home, &path, &[]);
        assert_eq!(run.code, 1, "{path}: {run:?}");
        let r = run.result();
        assert_eq!(r["error"]["code"], "denied", "{path}: {r}");
        let text = r.to_string();
        assert!(text.contains(why), "{path}: {text}");
    }
    // Asked and approved (`--yes`): taken.
    let run = store_from(&h, &home, &key.display().to_string(), &["--yes"]);
    assert_eq!(run.code, 0, "{run:?}");
    let listed = h.call("files_get", &json!({}));
    let names: Vec<String> = listed.result()["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"hộ chiếu.pdf".to_owned()) && names.contains(&"id_ed25519".to_owned()), "{names:?}");
}
