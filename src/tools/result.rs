//! ToolResultV2: the one envelope every tool call returns (tools.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;
use uuid::Uuid;

use crate::error::{Error, WireError};
use crate::tools::spec::{PermissionScope, RiskLevel};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ResultStatus {
    Ok,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactType {
    Screenshot,
    Html,
    Download,
    Text,
    Json,
}

/// Something a call produced that lives outside the result: a screenshot, a
/// downloaded file, a stored document. `ref` is a `file://` URL or a store id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Artifact {
    #[serde(rename = "type")]
    pub kind: ArtifactType,
    #[serde(rename = "ref")]
    pub reference: String,
}

/// The result envelope. Every key is always present: `current_url` and
/// `error` are `null` when they do not apply, `data` is `{}` on error
/// (docs/tool-results.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolResultV2 {
    pub status: ResultStatus,
    pub trace_id: Uuid,
    /// The call's effective scope: what the gate graded it to really do
    /// (a click on "Mua ngay" is PAYMENT), also when it was refused; the
    /// tool's declared scope only when the call never reached the gate.
    pub permission_scope: PermissionScope,
    /// The risk that goes with that scope (never below the declared risk).
    pub risk_level: RiskLevel,
    pub current_url: Option<String>,
    pub artifacts: Vec<Artifact>,
    pub data: Value,
    pub error: Option<WireError>,
}

/// What a tool's executor hands back on success.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub data: Value,
    pub artifacts: Vec<Artifact>,
    pub current_url: Option<String>,
}

impl ToolOutput {
    pub fn data(data: Value) -> Self {
        Self { data, ..Self::default() }
    }

    pub fn with_artifact(mut self, kind: ArtifactType, reference: impl Into<String>) -> Self {
        self.artifacts.push(Artifact { kind, reference: reference.into() });
        self
    }
}

impl ToolResultV2 {
    pub fn ok(scope: PermissionScope, risk: RiskLevel, output: ToolOutput) -> Self {
        Self {
            status: ResultStatus::Ok,
            trace_id: Uuid::new_v4(),
            permission_scope: scope,
            risk_level: risk,
            current_url: output.current_url,
            artifacts: output.artifacts,
            data: output.data,
            error: None,
        }
    }

    pub fn error(scope: PermissionScope, risk: RiskLevel, err: &Error) -> Self {
        Self {
            status: ResultStatus::Error,
            trace_id: Uuid::new_v4(),
            permission_scope: scope,
            risk_level: risk,
            current_url: None,
            artifacts: Vec::new(),
            data: Value::Object(serde_json::Map::new()),
            error: Some(err.to_wire()),
        }
    }

    pub fn is_ok(&self) -> bool {
        self.status == ResultStatus::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use pretty_assertions::assert_eq;

    #[test]
    fn error_envelope_has_every_key() {
        let r = ToolResultV2::error(
            PermissionScope::ReadOnly,
            RiskLevel::Low,
            &Error::new(ErrorCode::NotAvailable, "needs the browser"),
        );
        let mut v = serde_json::to_value(&r).unwrap();
        assert!(Uuid::parse_str(v["trace_id"].as_str().unwrap()).is_ok());
        v["trace_id"] = Value::Null;
        assert_eq!(
            v,
            serde_json::json!({
                "status": "error", "trace_id": null, "permission_scope": "READ_ONLY",
                "risk_level": "low", "current_url": null, "artifacts": [], "data": {},
                "error": {"code": "not_available", "message": "needs the browser"}
            })
        );
    }

    #[test]
    fn artifact_keys_match_the_spec() {
        let out = ToolOutput::data(serde_json::json!({"id": "f1"}))
            .with_artifact(ArtifactType::Download, "file:///tmp/x.pdf");
        let r = ToolResultV2::ok(PermissionScope::WriteNonDestructive, RiskLevel::Medium, out);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["artifacts"], serde_json::json!([{"type": "download", "ref": "file:///tmp/x.pdf"}]));
        assert_eq!(v["status"], "ok");
        assert_eq!(v["error"], Value::Null);
    }
}
