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
