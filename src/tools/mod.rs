//! Tools: the declaration model ([`ToolSpec`]), the result envelope
//! ([`ToolResultV2`]), the registry with argument validation, the built-in
//! catalogue and the executors of the built-in tools.

pub mod blueprint;
pub mod catalogue;
pub mod python;
pub mod registry;
pub mod result;
pub mod spec;

pub use registry::Registry;
pub use result::{Artifact, ArtifactType, ResultStatus, ToolOutput, ToolResultV2};
pub use spec::{Effects, Executor, PermissionScope, RiskLevel, ToolKind, ToolSpec, ToolStatus};
