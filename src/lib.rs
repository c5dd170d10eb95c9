//! Halley's core: the tool model and registry, the SQLite store, and the
//! [`Core`] every front end (CLI, desktop app, local API) talks to.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod api;
pub mod browser;
pub mod builtin;
pub mod cli;
pub mod compare;
pub mod context;
pub mod core;
pub mod crashpoint;
pub mod error;
pub mod gate;
pub mod handler;
pub mod host;
pub mod mcp;
pub mod notify;
pub mod oauth;
pub mod paths;
pub mod protocol;
pub mod routine;
pub mod search;
pub mod secrets;
pub mod skills;
pub mod store;
pub mod tools;
pub mod vocab;
pub mod watch;

pub use crate::context::{CallContext, Cancel, FrontEnd};
pub use crate::core::Core;
pub use error::{Error, ErrorCode, Result};
pub use paths::DataDir;
