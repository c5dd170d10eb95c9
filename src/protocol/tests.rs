use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn ops_read_from_the_json_a_front_end_sends() {
    let op: Op = serde_json::from_value(json!({"type": "send_message", "text": "Giá laptop?"})).unwrap();
    assert_eq!(op, Op::SendMessage { text: "Giá laptop?".into(), conversation_id: None, tabs: vec![] });
    let op: Op = serde_json::from_value(json!({"type": "answer_confirmation", "id": "c1", "approved": true})).unwrap();
    assert_eq!(
        op,
        Op::AnswerConfirmation { id: "c1".into(), approved: true, user_edits: Map::new(), reason: String::new() }
    );
    assert!(serde_json::from_value::<Op>(json!({"type": "format_disk"})).is_err());
    let op: Op =
        serde_json::from_value(json!({"type": "add_rule", "tool": "browser_click", "decision": "never"})).unwrap();
    let tool = Some("browser_click".into());
    assert_eq!(op, Op::AddRule { site: None, tool, min_scope: None, decision: RuleDecision::Never, note: None });
    let maybe = json!({"type": "add_rule", "tool": "browser_click", "decision": "maybe"});
    assert!(serde_json::from_value::<Op>(maybe).is_err());
    let op: Op = serde_json::from_value(json!({"type": "list_alerts"})).unwrap();
    assert_eq!(op, Op::ListAlerts { limit: 50 });
    let op: Op = serde_json::from_value(json!({"type": "mark_alerts_read"})).unwrap();
    assert_eq!(op, Op::MarkAlertsRead { ids: None });
    let op: Op = serde_json::from_value(json!({"type": "mark_alerts_read", "ids": [3, 4]})).unwrap();
    assert_eq!(op, Op::MarkAlertsRead { ids: Some(vec![3, 4]) });
    assert!(serde_json::from_value::<Op>(json!({"type": "mark_alerts_read", "ids": ["3"]})).is_err());
    assert_eq!(serde_json::from_value::<Op>(json!({"type": "current_tab"})).unwrap(), Op::CurrentTab);
}

#[test]
fn statuses_and_codes_are_the_strings_front_ends_know() {
    let ended = Event::RunEnded {
        run_id: "r".into(),
        conversation_id: "c".into(),
        status: RunStatus::Failed,
        stop_reason: StopReason::TooManyFailures,
        answer: None,
    };
    assert_eq!(
        serde_json::to_value(ended).unwrap(),
        json!({"type": "run_ended", "run_id": "r", "conversation_id": "c", "status": "failed",
               "stop_reason": "too_many_failures", "answer": null})
    );
    let error = AgentEvent::Error { run_id: "r".into(), code: ErrorCode::ModelUnavailable, message: "m".into() };
    assert_eq!(
        serde_json::to_value(error).unwrap(),
        json!({"type": "error", "run_id": "r", "code": "model_unavailable", "message": "m"})
    );
    let call = TimelineCall {
        call_id: "c1".into(),
        tool: "browser_click".into(),
        arguments: json!({}),
        reasoning: None,
        status: ToolCallStatus::Error,
        error_code: Some(ErrorCode::Denied),
        duration_ms: 3,
        started_at: "t".into(),
        result: None,
    };
    let v = serde_json::to_value(call).unwrap();
    assert_eq!((&v["status"], &v["error_code"]), (&json!("error"), &json!("denied")));
    let message =
        ChatMessage { role: Role::Assistant, content: None, run_id: None, tool_name: None, created_at: "t".into() };
    assert_eq!(serde_json::to_value(message).unwrap()["role"], "assistant");
}

#[test]
fn events_carry_their_type() {
    let ev = Event::Agent { run_id: "r".into(), event: AgentEvent::Token { text: "Xin ".into() } };
    assert_eq!(
        serde_json::to_value(ev).unwrap(),
        json!({"type": "agent", "run_id": "r", "event": {"type": "token", "text": "Xin "}})
    );
}
