//! Tools: the declaration model ([`ToolSpec`]), the result envelope
//! ([`ToolResultV2`]), the registry with argument validation, the built-in
//! catalogue with each tool's argument and output types and declared
//! effects, blueprints and client tools' Python source. What runs a tool is
//! a handler (`crate::handler`), registered by the host.

pub mod blueprint;
pub mod catalogue;
pub mod offer;
pub mod python;
pub mod registry;
pub mod result;
pub mod spec;

pub use registry::Registry;
pub use result::{Artifact, ArtifactType, ResultStatus, ToolOutput, ToolResultV2};
pub use spec::{Effects, Executor, PermissionScope, RiskLevel, ToolKind, ToolSpec, ToolStatus};
