//! The API's OpenAPI 3.1 document, served at `/api/v1/openapi.json`: the
//! request bodies' and the tool result's schemas come from the Rust types
//! the routes deserialize and answer (schemars, JSON Schema 2020-12, which
//! OpenAPI 3.1 uses as is), so the document cannot drift from the code.

use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Value, json};

use super::client_tools::ResultBody;
use super::routes::{AnswerBody, CallBody, RegisterBody, RunBody};
use crate::builtin::client::ClientCall;
use crate::tools::ToolResultV2;

fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Value {
    serde_json::to_value(generator.subschema_for::<T>()).unwrap_or(Value::Null)
}

fn body(schema: Value) -> Value {
    json!({"required": true, "content": {"application/json": {"schema": schema}}})
}

fn answer(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

fn error_answers() -> Value {
    let error = json!({"$ref": "#/components/schemas/Error"});
    json!({
        "400": answer("Bad request (bad JSON, wrong fields, bad arguments)", error.clone()),
        "401": answer("Missing or wrong bearer token", error.clone()),
        "403": answer("A Host that is not this machine's loopback, or a request from a web page (Origin)", error.clone()),
        "404": answer("No such tool, run or route", error.clone()),
        "413": answer("Body too large", error.clone()),
        "415": answer("Body not sent as JSON", error),
    })
}

/// The whole document.
pub(super) fn document() -> Value {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    let mut generator = SchemaGenerator::new(settings);
    let call = schema::<CallBody>(&mut generator);
    let run = schema::<RunBody>(&mut generator);
    let confirm = schema::<AnswerBody>(&mut generator);
    let register = schema::<RegisterBody>(&mut generator);
    let result = schema::<ToolResultV2>(&mut generator);
    let client_result = schema::<ResultBody>(&mut generator);
    let client_call = schema::<ClientCall>(&mut generator);
    let mut schemas = serde_json::to_value(generator.take_definitions(true)).unwrap_or_else(|_| json!({}));
    if let Some(map) = schemas.as_object_mut() {
        map.insert(
            "Error".into(),
            json!({
                "type": "object", "required": ["error"],
                "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {
                    "code": {"type": "string", "description": "e.g. invalid_arguments, not_found, unauthorized, forbidden_origin"},
                    "message": {"type": "string"}}}}
            }),
        );
    }
    let any = json!({"type": "object"});
    let name = json!([{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}]);
    let id = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
    let with_errors = |mut ok: Value| {
        if let (Some(map), Some(errors)) = (ok.as_object_mut(), error_answers().as_object()) {
            map.extend(errors.clone());
        }
        ok
    };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Halley local API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Drive Halley's agent and its gated tools from programs on this machine. \
                Loopback only; `Authorization: Bearer <token>` (`halley api token`); requests from web pages are refused."
        },
        "servers": [{"url": "http://127.0.0.1:4000"}],
        "security": [{"bearer": []}],
        "paths": {
            "/api/v1/tools": {"get": {
                "summary": "The tools the model may call now",
                "responses": with_errors(json!({"200": answer("`{type: tools, tools: [ToolSpec]}`", any.clone())}))
            }},
            "/api/v1/tools/{name}/call": {"post": {
                "summary": "Call one tool through the gate (a question waits for its answer)",
                "parameters": name.clone(), "requestBody": body(call),
                "responses": with_errors(json!({"200": answer("The tool's result (a failure is `status: error` with a code)", result)}))
            }},
            "/api/v1/runs": {
                "get": {"summary": "The runs going on",
                        "responses": with_errors(json!({"200": answer("`{type: runs, runs: [RunInfo]}`", any.clone())}))},
                "post": {"summary": "Start a run (with `stream: true`, its events as server-sent events)",
                         "requestBody": body(run),
                         "responses": with_errors(json!({
                             "201": answer("`{run_id, conversation_id, front_end}`", any.clone()),
                             "200": {"description": "With `stream: true`: `text/event-stream`, one JSON event per `data:` line until the run ends"}
                         }))}
            },
            "/api/v1/runs/{id}/events": {"get": {
                "summary": "A run's events from now on (server-sent events) until it ends",
                "parameters": id.clone(),
                "responses": with_errors(json!({"200": {"description": "`text/event-stream`"}}))
            }},
            "/api/v1/runs/{id}/resume": {"post": {
                "summary": "Go on with a run cut short (the process ended while it ran): a call that may have taken effect is reported interrupted, not run again",
                "parameters": id.clone(),
                "responses": with_errors(json!({"201": answer("`{run_id, conversation_id, front_end}`", any.clone())}))
            }},
            "/api/v1/runs/{id}/stop": {"post": {
                "summary": "Cancel one run", "parameters": id.clone(),
                "responses": with_errors(json!({"200": answer("`{type: done}`", any.clone())}))
            }},
            "/api/v1/confirmations/{id}": {"post": {
                "summary": "Answer a question a run asked", "parameters": id, "requestBody": body(confirm),
                "responses": with_errors(json!({"200": answer("`{type: done}`", any.clone())}))
            }},
            "/api/letta/agents/tools": {
                "get": {"summary": "The client tools registered",
                        "responses": with_errors(json!({"200": answer("`{tools: [...]}`", any.clone())}))},
                "post": {"summary": "Register a client tool from its Python source (type hints and an `Args:` docstring; parsed, never run), or replace it by name",
                         "requestBody": body(register),
                         "responses": with_errors(json!({"201": answer("The tool, with its JSON Schema and `flagged`: the lines of its description and its parameters' that address the assistant ({place, line}), withheld from the model", any.clone()),
                                                         "200": answer("Replaced", any.clone())}))}
            },
            "/api/letta/agents/tools/{name}": {"delete": {
                "summary": "Remove a registered tool", "parameters": name.clone(),
                "responses": with_errors(json!({"200": answer("`{type: done}`", any.clone())}))
            }},
            "/api/v1/clients/{client}/events": {"get": {
                "summary": "The calls of the tools this client registered (`X-Halley-Client`), as server-sent events: \
                    one `tool_call_message` per `data:` line, those still waiting first (a reconnecting client gets them again)",
                "parameters": [{"name": "client", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": with_errors(json!({"200": answer("`text/event-stream` of ClientCall", client_call)}))
            }},
            "/api/v1/tool_results": {"post": {
                "summary": "A client's answer to a call: `result` or `error`; an unknown call is 404, one already answered or timed out 400",
                "requestBody": body(client_result),
                "responses": with_errors(json!({"200": answer("`{type: done}`", any.clone())}))
            }},
            "/api/v1/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1"}}}}
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": schemas
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_document_describes_every_route_from_its_types() {
        let doc = super::document();
        assert_eq!(doc["openapi"], "3.1.0");
        let call = &doc["paths"]["/api/v1/tools/{name}/call"]["post"];
        let args = &call["requestBody"]["content"]["application/json"]["schema"];
        let text = serde_json::to_string(args).unwrap();
        assert!(text.contains("CallBody"), "{text}");
        assert!(doc["components"]["schemas"]["RunBody"]["properties"]["text"].is_object());
        assert!(doc["components"]["schemas"]["ToolResultV2"].is_object());
        assert!(doc["components"]["schemas"]["Error"].is_object());
        let results = &doc["paths"]["/api/v1/tool_results"]["post"]["requestBody"];
        assert!(results.to_string().contains("ResultBody"), "{results}");
        assert!(doc["components"]["schemas"]["ClientCall"]["properties"]["tool_call_id"].is_object());
    }
}
