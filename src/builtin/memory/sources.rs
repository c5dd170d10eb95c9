//! Memory's sources (the data model document's section 4): the user's files
//! grouped into knowledge bases ("Visa Nhật 2026"), each file read to text
//! in the background, cut into overlapping passages and stored as archival
//! passages that carry their source, file and page, so archival search
//! finds them by words and (once the embedder has them) by meaning, and the
//! model can cite the file and the page.
//!
//! Reading: PDF with Debian's poppler-utils `pdftotext` (page by page: its
//! pages come apart at form feeds; why poppler in DEVELOPERS.md, "Memory"),
//! HTML through the visible-text reader watches use
//! ([`crate::vocab::html`]), plain text and Markdown as they are. Images
//! are skipped (no OCR), other kinds skipped with their type named; a file
//! that cannot be read (empty, damaged, a binary named `.pdf`) fails with
//! the reason. Nothing here panics on a file's content.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::builtin::memory::blocks as memory;
use crate::error::Result;
use crate::store::Store;
use crate::store::files::FileRow;
use crate::store::sources::{NewPassage, SourceRow};

/// The source `files_store` puts a file in when the call names none.
pub const FILES_SOURCE: &str = "Files";
/// The source the browser's downloads go to.
pub const DOWNLOADS_SOURCE: &str = "Downloads";
/// A passage's length at most, in characters (multilingual-e5 reads 512
/// tokens: about 1,500 characters of Vietnamese).
pub const CHUNK_CHARS: usize = 1_000;
/// How much of the end of a passage the next one repeats, at most.
pub const OVERLAP_CHARS: usize = 200;
/// The largest file read, in bytes.
const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// The most passages one file gives.
const MAX_PASSAGES: usize = 10_000;
/// The longest `pdftotext` may take over one file.
const PDF_TIMEOUT: Duration = Duration::from_secs(180);

/// What reading a file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// The text, page by page (`None` for a file without pages), and how
    /// many pages the file has.
    Text { pages: Option<i64>, parts: Vec<(Option<i64>, String)> },
    /// Nothing to read in a file of this kind (an image), and why.
    Skipped(String),
    /// The file cannot be read, and why.
    Failed(String),
}

/// What one [`read_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadReport {
    pub read: u64,
    pub skipped: u64,
    pub failed: u64,
    pub passages: u64,
}

/// Put stored file `file` into the source named `source` of the default
/// agent (made when `create` and missing; else `not_found`), to be read in
/// the background.
pub async fn attach(store: &Store, source: &str, file: &FileRow, create: bool) -> Result<SourceRow> {
    let agent = memory::default_agent(store).await?;
    let row = if create {
        store.sources().get_or_create(&agent, source).await?
    } else {
        store.sources().named(&agent, source).await?
    };
    store.sources().add_file(&row.id, &file.id).await?;
    Ok(row)
}

/// Read every file waiting (one after another) into passages. A file that
/// cannot be read is `failed` (or `skipped`) with the reason; the rest go on.
pub async fn read_pending(store: &Store) -> Result<ReadReport> {
    let mut report = ReadReport::default();
    while let Some(file) = store.sources().claim().await? {
        match read_file(Path::new(&file.stored_path), &file.name, &file.mime).await {
            // Cutting a long text is CPU work: off the async threads.
            Reading::Text { pages, parts } => match blocking(move || passages_of(&parts)).await {
                Ok(passages) => {
                    report.passages += passages.len() as u64;
                    store.sources().finish(&file, pages, &passages).await?;
                    report.read += 1;
                }
                Err(why) => {
                    store.sources().stop(&file, "failed", &why, pages).await?;
                    report.failed += 1;
                }
            },
            Reading::Skipped(why) => {
                store.sources().stop(&file, "skipped", &why, None).await?;
                report.skipped += 1;
            }
            Reading::Failed(why) => {
                tracing::info!("sources: {} not read: {why}", file.name);
                store.sources().stop(&file, "failed", &why, None).await?;
                report.failed += 1;
            }
        }
    }
    Ok(report)
}

/// `f` on a blocking thread; a panic in it is a reason, not a crash.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::result::Result<T, String> + Send + 'static,
) -> std::result::Result<T, String> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| Err(format!("reading the file failed: {e}")))
}

fn passages_of(parts: &[(Option<i64>, String)]) -> std::result::Result<Vec<NewPassage>, String> {
    let mut passages = Vec::new();
    for (page, text) in parts {
        for chunk in chunks(text, CHUNK_CHARS, OVERLAP_CHARS) {
            passages.push(NewPassage { text: chunk, page: *page });
            if passages.len() > MAX_PASSAGES {
                return Err(format!("too long: more than {MAX_PASSAGES} passages; split the file"));
            }
        }
    }
    if passages.is_empty() {
        let why = if parts.len() > 1 || parts.first().is_some_and(|p| p.0.is_some()) {
            "no text in it: a scanned PDF holds pictures of pages, and Halley reads no text out of images (no OCR)"
        } else {
            "no text in it"
        };
        return Err(why.to_owned());
    }
    Ok(passages)
}

/// What kind of document the bytes at the start of a file and its name say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pdf,
    Html,
    Text,
    Image,
    Other,
}

fn kind_of(head: &[u8], name: &str, mime: &str) -> Kind {
    let starts = |magic: &[u8]| head.starts_with(magic);
    // `%PDF-` may follow some junk within the first kilobyte (the PDF spec allows it).
    if head.windows(5).take(1024).any(|w| w == b"%PDF-") {
        return Kind::Pdf;
    }
    if starts(b"\x89PNG")
        || starts(b"\xff\xd8\xff")
        || starts(b"GIF8")
        || (starts(b"RIFF") && head.get(8..12) == Some(b"WEBP"))
        || mime.starts_with("image/")
    {
        return Kind::Image;
    }
    let lower = name.to_ascii_lowercase();
    let sniff = String::from_utf8_lossy(&head[..head.len().min(512)]).trim_start().to_ascii_lowercase();
    if mime == "text/html"
        || lower.ends_with(".html")
        || lower.ends_with(".htm")
        || sniff.starts_with("<!doctype html")
        || sniff.starts_with("<html")
    {
        return Kind::Html;
    }
    let text_name = [".txt", ".md", ".markdown", ".csv", ".json", ".text", ".log"].iter().any(|e| lower.ends_with(e));
    if mime.starts_with("text/") || mime == "application/json" || text_name {
        return Kind::Text;
    }
    Kind::Other
}

/// Read the file at `path` (named `name`, of type `mime`) to text.
pub async fn read_file(path: &Path, name: &str, mime: &str) -> Reading {
    let size = match tokio::fs::metadata(path).await {
        Ok(m) => m.len(),
        Err(e) => return Reading::Failed(format!("the stored copy cannot be read ({e}): store the file again")),
    };
    if size == 0 {
        return Reading::Failed("the file is empty".to_owned());
    }
    if size > MAX_FILE_BYTES {
        return Reading::Failed(format!(
            "the file is {} MB; Halley reads files of at most {} MB",
            size / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let head = match read_head(path).await {
        Ok(h) => h,
        Err(e) => return Reading::Failed(format!("the stored copy cannot be read: {e}")),
    };
    let named_pdf = name.to_ascii_lowercase().ends_with(".pdf") || mime == "application/pdf";
    match kind_of(&head, name, mime) {
        Kind::Pdf => read_pdf(path).await,
        _ if named_pdf => Reading::Failed(format!(
            "not a PDF: it is named like one but does not start with %PDF- ({})",
            what_it_looks_like(&head)
        )),
        Kind::Image => Reading::Skipped(format!(
            "an image ({mime}): Halley reads no text out of images (no OCR); it stays in the files store"
        )),
        Kind::Html => match tokio::fs::read(path).await {
            Ok(bytes) => {
                let text = blocking(move || Ok(crate::vocab::html::visible_lines(&String::from_utf8_lossy(&bytes))))
                    .await
                    .map(|lines| lines.join("\n"));
                match text {
                    Ok(text) => Reading::Text { pages: None, parts: vec![(None, text)] },
                    Err(why) => Reading::Failed(why),
                }
            }
            Err(e) => Reading::Failed(format!("the stored copy cannot be read: {e}")),
        },
        Kind::Text => match tokio::fs::read(path).await {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) if !text.contains('\0') => Reading::Text { pages: None, parts: vec![(None, text)] },
                _ => Reading::Failed(
                    "not UTF-8 text (a binary file, or text in an old encoding such as TCVN3 or Windows-1258: save \
                     it as UTF-8)"
                        .to_owned(),
                ),
            },
            Err(e) => Reading::Failed(format!("the stored copy cannot be read: {e}")),
        },
        Kind::Other => Reading::Skipped(format!(
            "a {mime} file: Halley reads PDF, HTML and plain text (Markdown, CSV, JSON) into sources"
        )),
    }
}

fn what_it_looks_like(head: &[u8]) -> &'static str {
    if head.starts_with(b"\x7fELF") {
        "a program"
    } else if head.starts_with(b"PK\x03\x04") {
        "a ZIP archive or an Office document"
    } else if head.starts_with(b"\x89PNG") || head.starts_with(b"\xff\xd8\xff") {
        "an image"
    } else if std::str::from_utf8(head).is_ok() {
        "text"
    } else {
        "binary data"
    }
}

async fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(path).await?;
    let mut head = vec![0_u8; 2048];
    let mut filled = 0;
    while filled < head.len() {
        let n = file.read(&mut head[filled..]).await?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    head.truncate(filled);
    Ok(head)
}

/// A PDF's text page by page: `pdftotext` writes a form feed after each page.
async fn read_pdf(path: &Path) -> Reading {
    let mut command = tokio::process::Command::new("pdftotext");
    command
        .args(["-enc", "UTF-8", "-eol", "unix"])
        .arg(path)
        .arg("-")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(PDF_TIMEOUT, command.output()).await {
        Err(_) => return Reading::Failed(format!("reading the PDF took over {} s", PDF_TIMEOUT.as_secs())),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Reading::Failed(
                "pdftotext is not installed (Debian's poppler-utils: scripts/install-deps.sh); add the file again \
                 once it is"
                    .to_owned(),
            );
        }
        Ok(Err(e)) => return Reading::Failed(format!("pdftotext could not run: {e}")),
        Ok(Ok(o)) => o,
    };
    if !output.status.success() {
        let why = pdf_error(&output.stderr, output.status.code());
        return Reading::Failed(format!("the PDF cannot be read: {why}"));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut pages: Vec<&str> = text.split('\u{c}').collect();
    // The form feed after the last page leaves an empty piece.
    if pages.len() > 1 && pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    let count = i64::try_from(pages.len()).unwrap_or(i64::MAX);
    if pages.iter().all(|p| p.trim().is_empty()) {
        // A damaged PDF poppler could not rebuild gives no page and no error.
        return Reading::Failed(if count <= 1 {
            "the PDF cannot be read: no page was found in it (a damaged or cut-short file?)".to_owned()
        } else {
            format!(
                "no text in its {count} pages: a scanned PDF holds pictures of pages, and Halley reads no text out \
                 of images (no OCR)"
            )
        });
    }
    let parts = pages.into_iter().enumerate().map(|(i, p)| (Some(i as i64 + 1), p.to_owned())).collect();
    Reading::Text { pages: Some(count), parts }
}

/// What `pdftotext` said on failing, short (its exit codes: 1 the file
/// cannot be opened, 3 permissions, e.g. encrypted).
fn pdf_error(stderr: &[u8], code: Option<i32>) -> String {
    let said = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = said.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut unique: Vec<&str> = Vec::new();
    for l in lines {
        if !unique.contains(&l) {
            unique.push(l);
        }
    }
    let detail = unique.into_iter().take(3).collect::<Vec<_>>().join("; ");
    match code {
        Some(3) => "it is protected (encrypted or copying not allowed)".to_owned(),
        _ if detail.is_empty() => "it is damaged or not a PDF".to_owned(),
        _ => format!("it is damaged or not a PDF ({detail})"),
    }
}

/// `text` cut into passages of at most `max` characters, each starting
/// with up to `overlap` characters of the end of the one before: cut
/// between sentences, else between words (so a Vietnamese word is never
/// cut), else (a run longer than `max` without a space) between characters.
/// White space is collapsed and the text put in NFC.
pub fn chunks(text: &str, max: usize, overlap: usize) -> Vec<String> {
    let text: String = text.nfc().collect();
    // Sentences, each cut into pieces no longer than `max`.
    let mut pieces: Vec<String> = Vec::new();
    for sentence in text.split_sentence_bounds() {
        let sentence = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
        if sentence.is_empty() {
            continue;
        }
        if sentence.chars().count() <= max {
            pieces.push(sentence);
            continue;
        }
        let mut current = String::new();
        for word in sentence.split(' ') {
            for part in split_long(word, max) {
                if !current.is_empty() && current.chars().count() + 1 + part.chars().count() > max {
                    pieces.push(std::mem::take(&mut current));
                }
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(&part);
            }
        }
        if !current.is_empty() {
            pieces.push(current);
        }
    }
    // Pieces packed into passages; the next passage starts with the last
    // pieces of this one that fit in `overlap`.
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut len = 0_usize;
    let mut fresh = 0_usize;
    for piece in &pieces {
        let n = piece.chars().count();
        if !current.is_empty() && len + 1 + n > max {
            out.push(current.join(" "));
            let mut kept: Vec<&str> = Vec::new();
            let mut kept_len = 0_usize;
            for p in current.iter().rev() {
                let m = p.chars().count();
                if kept_len + m + 1 > overlap || kept_len + m + 1 + n > max {
                    break;
                }
                kept.insert(0, p);
                kept_len += m + 1;
            }
            current = kept;
            len = kept_len.saturating_sub(1);
            fresh = 0;
        }
        if !current.is_empty() {
            len += 1;
        }
        current.push(piece);
        len += n;
        fresh += 1;
    }
    if fresh > 0 {
        out.push(current.join(" "));
    }
    out
}

/// A word longer than `max` characters cut into parts of `max`.
fn split_long(word: &str, max: usize) -> Vec<String> {
    if word.chars().count() <= max {
        return vec![word.to_owned()];
    }
    let chars: Vec<char> = word.chars().collect();
    chars.chunks(max.max(1)).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn passages_overlap_and_never_cut_a_word() {
        let sentence = |i: usize| format!("Câu số {i} nói về hồ sơ xin thị thực Nhật Bản và giấy tờ cần nộp.");
        let text: String = (0..40).map(sentence).collect::<Vec<_>>().join(" ");
        let out = chunks(&text, 300, 80);
        assert!(out.len() > 5, "{out:?}");
        for c in &out {
            assert!(c.chars().count() <= 300, "{c}");
            // Every passage is whole sentences: it ends with a full stop.
            assert!(c.ends_with('.'), "{c}");
        }
        // Each passage after the first starts with the last sentence of the one before.
        for pair in out.windows(2) {
            let last = pair[0].rsplit(". ").next().unwrap();
            assert!(pair[1].starts_with(last.trim_end_matches('.')), "{:?} / {:?}", pair[0], pair[1]);
        }
        // Everything is kept.
        let joined = out.join(" ");
        for i in 0..40 {
            assert!(joined.contains(&sentence(i)), "{i}");
        }
    }

    #[test]
    fn a_long_sentence_is_cut_between_words() {
        let words: Vec<String> = (0..200).map(|i| format!("nghiêng{i}")).collect();
        let text = words.join(" ");
        let out = chunks(&text, 100, 20);
        for c in &out {
            assert!(c.chars().count() <= 100, "{c}");
            for w in c.split(' ') {
                assert!(words.contains(&w.to_owned()), "{w:?} was cut");
            }
        }
        // A run without a space longer than a passage is cut, not lost.
        let out = chunks(&"x".repeat(250), 100, 20);
        assert_eq!(out.iter().map(|c| c.len()).sum::<usize>(), 250);
        assert_eq!(chunks("  \n\t ", 100, 20), Vec::<String>::new());
    }

    #[test]
    fn decomposed_vietnamese_is_put_in_one_form() {
        let out = chunks("Kha\u{301}ch sa\u{323}n", 100, 10);
        assert_eq!(out, vec!["Khách sạn".to_owned()]);
    }

    #[test]
    fn kinds_come_from_the_bytes_first() {
        assert_eq!(kind_of(b"%PDF-1.7\n", "a.bin", "application/octet-stream"), Kind::Pdf);
        assert_eq!(kind_of(b"\x89PNG\r\n", "scan.pdf", "application/pdf"), Kind::Image);
        assert_eq!(kind_of(b"<!DOCTYPE html><p>x", "page", "application/octet-stream"), Kind::Html);
        assert_eq!(kind_of(b"# Ghi chu", "notes.md", "text/markdown"), Kind::Text);
        assert_eq!(kind_of(b"PK\x03\x04", "a.docx", "application/vnd.openxml"), Kind::Other);
    }

    #[tokio::test]
    async fn bad_files_fail_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let empty = write("empty.pdf", b"");
        assert_eq!(
            read_file(&empty, "empty.pdf", "application/pdf").await,
            Reading::Failed("the file is empty".into())
        );
        let elf = write("ls.pdf", b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0");
        let Reading::Failed(why) = read_file(&elf, "ls.pdf", "application/pdf").await else { panic!("read") };
        assert!(why.contains("not a PDF") && why.contains("a program"), "{why}");
        let png = write("scan.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let Reading::Skipped(why) = read_file(&png, "scan.png", "image/png").await else { panic!("read") };
        assert!(why.contains("no OCR"), "{why}");
        let latin = write("old.txt", b"Kh\xe1ch s\xf2n");
        let Reading::Failed(why) = read_file(&latin, "old.txt", "text/plain").await else { panic!("read") };
        assert!(why.contains("UTF-8"), "{why}");
        let html = write("p.html", "<html><head><title>x</title><script>var a=1</script></head><body><p>Giá vé: 1.200.000 ₫</p><div hidden>ẩn</div></body></html>".as_bytes());
        let Reading::Text { parts, .. } = read_file(&html, "p.html", "text/html").await else { panic!("read") };
        assert_eq!(parts, vec![(None, "Giá vé: 1.200.000 ₫".to_owned())]);
        let missing = dir.path().join("gone.pdf");
        let Reading::Failed(why) = read_file(&missing, "gone.pdf", "application/pdf").await else { panic!("read") };
        assert!(why.contains("cannot be read"), "{why}");
    }
}
