//! Running the tool calls of one model turn: arguments checked (size, JSON
//! object, repaired as `textcalls::json::arguments` reads them),
//! `_reasoningForCall` taken out and kept, each call gated and
//! executed by the core; the calls of a turn run concurrently only when
//! every one of them is READ_ONLY.

use std::time::Instant;

use serde_json::{Value, json};

use super::ToolCallOut;
use super::textcalls::json;
use crate::context::CallContext;
use crate::core::{Core, error_result};
use crate::error::{Error, ErrorCode};
use crate::tools::registry::CallEffects;
use crate::tools::{Executor, PermissionScope, Registry, ToolResultV2};
use crate::tools::{blueprint, offer};

/// Arguments larger than this are refused unread: no tool takes megabytes
/// inline (files go by `file_ref`), and a model that sends them is broken.
pub const MAX_ARGUMENT_BYTES: usize = 1024 * 1024;

/// One call as the model sent it, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub id: String,
    pub name: String,
    /// The arguments the tool gets (reasoning taken out); for arguments
    /// that could not be used, a short stand-in.
    pub args: Value,
    pub reasoning: Option<String>,
    /// Why the call cannot run, found before running it.
    pub refused: Option<(ErrorCode, String)>,
    /// The arguments as they may be kept in the history: the model's own
    /// string, or a stand-in when it was too large.
    pub history_arguments: String,
}

/// Check a call's arguments without running anything.
pub fn prepare(call: &ToolCallOut) -> Prepared {
    let base = |args: Value, refused: Option<Error>, history: String| Prepared {
        refused: refused.map(|e| (e.code(), e.message().to_owned())),
        id: call.id.clone(),
        name: call.name.clone(),
        args,
        reasoning: None,
        history_arguments: history,
    };
    let len = call.arguments.len();
    if len > MAX_ARGUMENT_BYTES {
        let stand_in = json!({"_elided": format!("{len} bytes of arguments, refused unread")});
        let err = Error::invalid_arguments(format!(
            "the arguments of `{}` were {len} bytes; at most {MAX_ARGUMENT_BYTES} are accepted. \
             Send less: refer to stored files with `file_ref` instead of inlining content",
            call.name
        ));
        return base(stand_in.clone(), Some(err), stand_in.to_string());
    }
    match serde_json::from_str::<Value>(&call.arguments) {
        Ok(mut args) if args.is_object() => {
            let reasoning = blueprint::take_reasoning(&mut args);
            Prepared { reasoning, ..base(args, None, call.arguments.clone()) }
        }
        // What local models get wrong (trailing commas, single quotes,
        // arguments encoded twice...), repaired; the history gets the JSON.
        _ if let Some(mut args) = json::arguments(&call.arguments) => {
            let history = args.to_string();
            let reasoning = blueprint::take_reasoning(&mut args);
            Prepared { reasoning, ..base(args, None, history) }
        }
        _ => {
            let shown: String = call.arguments.chars().take(200).collect();
            let err = Error::invalid_arguments(format!(
                "the arguments of `{}` were not a valid JSON object; send them again as JSON",
                call.name
            ));
            // The history must hold valid JSON arguments for the next request.
            let history = json!({"_invalid": shown}).to_string();
            base(Value::String(shown), Some(err), history)
        }
    }
}

/// The `tool_calls.executor` of a call run by `executor`.
pub fn executor_name(executor: Executor) -> &'static str {
    match executor {
        Executor::Builtin => "builtin",
        Executor::Client => "client",
        Executor::Implicit => "implicit",
        Executor::Mcp => "mcp",
    }
}

/// A call with its result.
#[derive(Debug, Clone)]
pub struct Executed {
    pub call: Prepared,
    pub result: ToolResultV2,
    pub executor: &'static str,
    /// What the result holds and changed, by the declarations of the tool
    /// as it ran.
    pub effects: CallEffects,
    pub duration_ms: i64,
    /// RFC 3339.
    pub started_at: String,
}

/// Whether a turn's calls may run at the same time: all READ_ONLY, none
/// asks the user, all known.
pub fn concurrent(registry: &Registry, calls: &[Prepared]) -> bool {
    calls.len() > 1
        && calls.iter().all(|c| {
            c.refused.is_some()
                || registry
                    .get(&c.name)
                    .is_some_and(|s| s.permission_scope == PermissionScope::ReadOnly && !s.asks_user)
        })
}

/// Run one prepared call through the core (validation, gate, executor), in
/// the run's context, on the tools as they are when it starts (it keeps
/// them to its end). A tool `offered` to the model that was unregistered
/// since is refused with `not_found`.
pub async fn execute(core: &Core, offered: &Registry, cx: &CallContext, call: Prepared) -> Executed {
    let started = Instant::now();
    let started_at = crate::store::now();
    let registry = core.registry();
    let spec = registry.get(&call.name);
    let gone = spec.is_none() && offered.get(&call.name).is_some();
    let loader = call.name == offer::LOADER;
    let executor = match (spec, &call.refused) {
        (_, Some(_)) => "none",
        (None, None) if loader => "builtin",
        (None, None) => "none",
        (Some(s), None) => executor_name(s.executor),
    };
    let result = match &call.refused {
        Some((code, message)) => error_result(spec, &Error::new(*code, message.clone())),
        // The agent's own: more tools offered from the next turn on.
        None if loader => offer::load(&registry, &call.args),
        None if gone => error_result(
            offered.get(&call.name),
            &Error::not_found(format!(
                "`{}` was unregistered while this run went on; it cannot be called any more. Nothing was done.",
                call.name
            )),
        ),
        None => core.call_in(&registry, &cx.clone().for_call(&call.id), &call.name, call.args.clone()).await,
    };
    let effects = registry.effects_of(&call.name, &call.args);
    let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    Executed { call, result, executor, effects, duration_ms, started_at }
}

/// Run a turn's calls: together when [`concurrent`] allows, else in order;
/// each written in `journal` before it starts and as soon as it ends.
pub(crate) async fn execute_all(
    core: &Core,
    registry: &Registry,
    cx: &CallContext,
    calls: Vec<Prepared>,
    journal: &super::run::Journal<'_>,
) -> crate::error::Result<Vec<Executed>> {
    let mut done = Vec::with_capacity(calls.len());
    if concurrent(registry, &calls) {
        for c in &calls {
            journal.before(c).await?;
        }
        done = futures::future::join_all(calls.into_iter().map(|c| execute(core, registry, cx, c))).await;
        for d in &done {
            journal.after(d).await?;
        }
    } else {
        for c in calls {
            journal.before(&c).await?;
            let d = execute(core, registry, cx, c).await;
            journal.after(&d).await?;
            done.push(d);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &str) -> ToolCallOut {
        ToolCallOut { id: "call_1".into(), name: "browser_navigate".into(), arguments: args.into() }
    }

    #[test]
    fn reasoning_is_kept_apart_and_arguments_are_checked() {
        let p = prepare(&call(r#"{"url":"http://shop.vn","_reasoningForCall":"mở trang"}"#));
        assert_eq!(
            (p.args.clone(), p.reasoning.as_deref(), p.refused.is_none()),
            (json!({"url": "http://shop.vn"}), Some("mở trang"), true)
        );

        // Repaired: JSON5 spellings, arguments encoded twice; never completed.
        let p = prepare(&call("{'url': 'http://shop.vn',}"));
        assert_eq!(
            (p.args.clone(), p.history_arguments.as_str()),
            (json!({"url": "http://shop.vn"}), r#"{"url":"http://shop.vn"}"#)
        );
        let p = prepare(&call(r#""{\"url\": \"http://shop.vn\"}""#));
        assert_eq!(p.args, json!({"url": "http://shop.vn"}));
        assert!(prepare(&call(r#"{"url": "http://shop.vn", "wait": 1"#)).refused.is_some());

        let p = prepare(&call("{\"url\": "));
        assert_eq!(p.refused.as_ref().map(|r| r.0), Some(ErrorCode::InvalidArguments));
        assert_eq!(serde_json::from_str::<Value>(&p.history_arguments).unwrap(), json!({"_invalid": "{\"url\": "}));

        let huge = format!(r#"{{"url":"{}"}}"#, "a".repeat(10 * 1024 * 1024));
        let p = prepare(&call(&huge));
        assert!(p.refused.as_ref().unwrap().1.contains("at most 1048576"));
        assert!(p.history_arguments.len() < 100, "{}", p.history_arguments);
    }
}
