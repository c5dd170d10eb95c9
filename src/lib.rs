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

/// Stack size of the async runtime's threads: 8 MiB, where Rust's default
/// is 2 MiB. In an unoptimised build (`make run` starts the debug desktop
/// app) an async call chain's futures are many times their release size,
/// and a watch pass's chain (the pass, its browser checks, their tools)
/// overflowed 2 MiB.
pub const THREAD_STACK: usize = 8 << 20;

/// The multi-threaded async runtime every front end (the CLI, the desktop
/// app) runs the core on, its threads given [`THREAD_STACK`].
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(THREAD_STACK).build()
}
