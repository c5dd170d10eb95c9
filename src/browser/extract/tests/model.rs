//! The model-assisted pass (`fallback::ask`) with a scripted fallback:
//! what the model reads is named as such, a wrong answer or a failure
//! leaves the rules' output standing, with a note.

use std::sync::Mutex;

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

use super::{expected, schema};
use crate::browser::extract::fallback::{FallbackRequest, FieldFallback, MAX_PAGE_CHARS, ask, request};
use crate::browser::extract::{PageFacts, extract};
use crate::error::{Error, ErrorCode, Result};
use crate::tools::catalogue::capture::{BrowserExtractOutput, ExtractSourceType};

/// Answers every request with `answer` and keeps what it was asked.
#[derive(Debug)]
struct Scripted {
    answer: Result<Value>,
    asked: Mutex<Vec<FallbackRequest>>,
}

impl Scripted {
    fn new(answer: Result<Value>) -> Self {
        Scripted { answer, asked: Mutex::new(Vec::new()) }
    }
}

impl FieldFallback for Scripted {
    fn fill<'a>(&'a self, request: &'a FallbackRequest) -> BoxFuture<'a, Result<Map<String, Value>>> {
        self.asked.lock().unwrap().push(request.clone());
        let answer = match &self.answer {
            Ok(v) => Ok(v.as_object().cloned().unwrap()),
            Err(e) => Err(Error::new(e.code(), e.message().to_owned())),
        };
        Box::pin(async move { answer })
    }
}

fn rice_cooker() -> PageFacts {
    PageFacts::from_value(json!({
        "title": "Nồi cơm điện Sharp KS-COM18V 1.8 lít | Bếp Việt",
        "url": "https://bepviet.vn/noi-com-sharp",
        "lang": "vi",
        "pairs": [["Thương hiệu", "Sharp"]],
        "prices": [{"text": "1.890.000 ₫", "struck": false}],
        "text": "Nồi cơm điện Sharp KS-COM18V\n1.890.000 ₫\nSản phẩm được hãng đổi mới và sửa miễn phí trong hai năm kể từ ngày mua."
    }))
}

/// The rules' output and the request for what they missed.
async fn run(fallback: Option<&dyn FieldFallback>) -> BrowserExtractOutput {
    let facts = rice_cooker();
    let fields = schema(json!({"price": "number", "brand": "string", "warranty_months": "number"}));
    let mut out = extract(&facts, &fields, ExtractSourceType::Dom);
    assert_eq!(out.missing_fields, vec!["warranty_months".to_string()], "the rules miss it: {out:?}");
    let req = request(&facts, &fields, &out, None, MAX_PAGE_CHARS).unwrap();
    ask(fallback, &req, &mut out, &fields, &facts).await;
    out
}

fn rules_only(missing: &[&str], notes: &[&str]) -> BrowserExtractOutput {
    expected(json!({
        "data": {"brand": "Sharp", "price": 1890000},
        "confidence": {"brand": 0.75, "price": 0.7},
        "sources": {"brand": "label", "price": "text"},
        "missing_fields": missing,
        "notes": notes,
    }))
}

#[tokio::test]
async fn fields_the_rules_miss_are_read_by_the_model_with_lower_confidence() {
    let model = Scripted::new(Ok(json!({"warranty_months": 24, "price": 1})));
    let out = run(Some(&model)).await;
    assert_eq!(
        out,
        expected(json!({
            "data": {"brand": "Sharp", "price": 1890000, "warranty_months": 24},
            "confidence": {"brand": 0.75, "price": 0.7, "warranty_months": 0.6},
            "sources": {"brand": "label", "price": "text", "warranty_months": "model"},
            "missing_fields": [],
            "notes": [
                "warranty_months: not found by the rules; read by the model from the page text (confidence 0.6, \
                 lower than the rules': check it if it matters)"
            ],
        }))
    );
    let asked = model.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].fields.keys().collect::<Vec<_>>(), vec!["warranty_months"]);
    assert!(asked[0].page.contains("sửa miễn phí trong hai năm"), "{}", asked[0].page);
}

#[tokio::test]
async fn an_answer_of_the_wrong_type_is_dropped_and_the_field_stays_missing() {
    let out = run(Some(&Scripted::new(Ok(json!({"warranty_months": "many"}))))).await;
    assert_eq!(
        out,
        rules_only(&["warranty_months"], &["warranty_months: the model's answer was dropped: no duration in \"many\""])
    );
}

#[tokio::test]
async fn a_field_the_model_does_not_find_either_stays_missing() {
    let out = run(Some(&Scripted::new(Ok(json!({"warranty_months": "N/A"}))))).await;
    assert_eq!(out, rules_only(&["warranty_months"], &["warranty_months: not found by the rules, nor by the model"]));
}

#[tokio::test]
async fn a_failing_model_leaves_the_rules_output_with_a_note() {
    let down = Error::new(ErrorCode::ModelUnavailable, "no model server is reachable at http://127.0.0.1:9/v1");
    let out = run(Some(&Scripted::new(Err(down)))).await;
    assert_eq!(
        out,
        rules_only(
            &["warranty_months"],
            &["model-assisted extraction failed, so warranty_months stays missing: [model_unavailable] no model \
               server is reachable at http://127.0.0.1:9/v1"]
        )
    );
}

#[tokio::test]
async fn without_a_model_the_note_says_the_pass_is_not_available() {
    let out = run(None).await;
    assert_eq!(
        out,
        rules_only(
            &["warranty_months"],
            &["model-assisted extraction is not available here (no model is configured; `halley run` and \
               `halley chat` use theirs), so warranty_months stays missing"]
        )
    );
}
