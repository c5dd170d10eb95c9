use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::*;
use crate::context::{FrontEnd, Language, StepSink};
use crate::core::Core;
use crate::paths::DataDir;
use crate::tools::Registry;

/// The model, scripted: its answers in order (the last one repeats), and
/// the user messages it was sent.
#[derive(Debug, Default)]
struct Scripted {
    answers: Vec<&'static str>,
    asked: Mutex<Vec<String>>,
}

impl Language for Scripted {
    fn complete<'a>(&'a self, _system: &'a str, user: &'a str) -> BoxFuture<'a, Result<String>> {
        let mut asked = self.asked.lock().unwrap();
        asked.push(user.to_owned());
        let answer = self.answers.get(asked.len() - 1).or(self.answers.last()).copied().unwrap_or_default();
        Box::pin(async move { Ok(answer.to_owned()) })
    }
}

#[derive(Debug, Default)]
struct Heard(Mutex<Vec<AgentEvent>>);

impl StepSink for Heard {
    fn step(&self, event: AgentEvent) {
        self.0.lock().unwrap().push(event);
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct Pick {
    winner: String,
}

fn schema() -> Value {
    json!({"type": "object", "required": ["winner"], "properties": {"winner": {"type": "string", "minLength": 1}}})
}

async fn core() -> (tempfile::TempDir, Core) {
    let tmp = tempfile::tempdir().unwrap();
    let core =
        crate::host::open_core_with(DataDir::at(tmp.path().join("data")), Registry::builtin().unwrap()).await.unwrap();
    (tmp, core)
}

#[tokio::test]
async fn a_malformed_answer_is_asked_again_and_the_step_is_told() {
    let (_tmp, core) = core().await;
    let registry = core.registry();
    let model = Arc::new(Scripted {
        answers: vec!["Sure! {\"winner\": ", "{\"winner\": \"\"}", "{\"winner\": \"Shop A\"}"],
        ..Scripted::default()
    });
    let heard = Arc::new(Heard::default());
    let cx = CallContext::new(FrontEnd::Cli)
        .for_call("call_7")
        .with_language(Some(model.clone()))
        .with_steps(Some(heard.clone()));
    let caller = core.caller(&registry);
    let skill = Skill::new(&caller, core.services(), &cx);
    let pick: Option<Pick> =
        skill.write("pick the best offer", &json!({"offers": ["Shop A"]}), &schema()).await.unwrap();
    assert_eq!(pick, Some(Pick { winner: "Shop A".into() }));
    let asked = model.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 3);
    assert!(asked[0].contains("<<<DATA") && asked[0].contains("Shop A"), "{}", asked[0]);
    assert!(asked[1].contains("not a JSON object"), "{}", asked[1]);
    assert!(asked[2].contains("/winner"), "the schema's complaint is passed on: {}", asked[2]);
    let ids: Vec<(String, bool)> = heard
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|e| match e {
            AgentEvent::ToolCall { id, .. } => (id.clone(), false),
            AgentEvent::ToolResult { id, result, .. } => (id.clone(), result.is_ok()),
            other => panic!("unexpected event {other:?}"),
        })
        .collect();
    assert_eq!(ids, vec![("call_7.1".into(), false), ("call_7.1".into(), true)]);
    assert!(skill.notes().is_empty());
}

#[tokio::test]
async fn without_a_usable_answer_or_a_model_the_skill_goes_on_with_a_note() {
    let (_tmp, core) = core().await;
    let registry = core.registry();
    let model = Arc::new(Scripted { answers: vec!["no idea"], ..Scripted::default() });
    let cx = CallContext::new(FrontEnd::Cli).with_language(Some(model.clone()));
    let caller = core.caller(&registry);
    let skill = Skill::new(&caller, core.services(), &cx);
    let pick: Option<Pick> = skill.write("pick", &json!({}), &schema()).await.unwrap();
    assert_eq!((pick, model.asked.lock().unwrap().len()), (None, WRITE_ATTEMPTS));
    assert!(skill.notes()[0].contains("no usable answer"), "{:?}", skill.notes());

    let cx = CallContext::new(FrontEnd::Cli);
    let caller = core.caller(&registry);
    let skill = Skill::new(&caller, core.services(), &cx);
    let pick: Option<Pick> = skill.write("pick", &json!({}), &schema()).await.unwrap();
    assert_eq!(pick, None);
    assert!(skill.notes()[0].contains("no model"), "{:?}", skill.notes());
}

#[tokio::test]
async fn a_step_goes_through_the_core_and_is_recorded_with_the_run() {
    let (_tmp, core) = core().await;
    let registry = core.registry();
    let agent = crate::builtin::memory::blocks::default_agent(core.store()).await.unwrap();
    let run = core.store().runs().create(&agent, None).await.unwrap();
    let heard = Arc::new(Heard::default());
    let cx =
        CallContext::new(FrontEnd::Cli).with_run(run.id.clone()).for_call("call_1").with_steps(Some(heard.clone()));
    let caller = core.caller(&registry);
    let skill = Skill::new(&caller, core.services(), &cx);
    let args =
        json!({"schema": {"total_cost": "number"}, "items": [{"source": "a", "raw": {"price": "21.490.000 ₫"}}]});
    let out: Value = skill.data("normalize_compare", args).await.unwrap();
    assert!(out.to_string().contains("21490000"), "{out}");
    // A refusal is the step's error, and the skill hears it.
    let bad = skill.call("normalize_compare", json!({"items": "nope"})).await;
    assert_eq!(bad.error.as_ref().map(|e| e.code), Some(ErrorCode::InvalidArguments));
    let rows = core.store().tool_calls().for_run(&run.id).await.unwrap();
    let rows: Vec<(String, ToolCallStatus)> = rows.into_iter().map(|r| (r.call_id, r.status)).collect();
    assert_eq!(rows, vec![("call_1.1".into(), ToolCallStatus::Ok), ("call_1.2".into(), ToolCallStatus::Error)]);
    assert_eq!(heard.0.lock().unwrap().len(), 4);
}

#[test]
fn the_first_object_of_an_answer_is_read() {
    assert_eq!(first_object("<think>{\"x\":1}</think> ok {\"winner\":\"B\"} tail"), Some(json!({"winner": "B"})));
    assert_eq!(first_object("[1,2]"), None);
}
