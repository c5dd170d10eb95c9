//! The built-in tools' handlers (the profile, files, memory, confirmation,
//! OAuth and comparison tools, the browser tools in `browser/`, client
//! tools in `client.rs`) and what other handlers share with them (the gated
//! HTTP fetch, `fetch.rs`). [`handlers`] registers them by name.

pub mod auth;
pub mod browser;
pub mod client;
pub mod confirm;
pub mod fetch;
pub mod files;
pub mod memory;
pub mod profile;

use std::sync::Arc;

use crate::handler::{FnHandler, Handler, Invocation, RunFn, to_output};
use browser::BrowserTool;

/// A handler for one built-in tool: `$run(services, cx?, args)` over its
/// typed arguments.
macro_rules! handle {
    (|$call:ident| $body:expr) => {{
        let run: RunFn = |$call: Invocation<'_>| Box::pin(async move { $body });
        Arc::new(FnHandler(run)) as Arc<dyn Handler>
    }};
}
pub(crate) use handle;

/// Every built-in tool's handler, by tool name.
pub fn handlers() -> Vec<(String, Arc<dyn Handler>)> {
    let mut all: Vec<(&str, Arc<dyn Handler>)> = vec![
        ("normalize_compare", handle!(|c| to_output(&crate::compare::normalize_compare(&c.parse()?)?))),
        ("user_profile_get", handle!(|c| to_output(&profile::get(&c.services.store, c.parse()?).await?))),
        ("user_profile_set", handle!(|c| to_output(&profile::set(&c.services.store, c.parse()?).await?))),
        ("files_store", handle!(|c| to_output(&files::store_tool(c.services, c.parse()?).await?))),
        ("files_get", handle!(|c| to_output(&files::get(c.services, c.parse()?).await?))),
        ("files_tag", handle!(|c| to_output(&files::tag(c.services, c.parse()?).await?))),
        ("request_user_confirmation", handle!(|c| to_output(&confirm::request(c.services, c.cx, c.parse()?).await?))),
        ("core_memory_append", handle!(|c| to_output(&memory::append(&c.services.store, c.parse()?).await?))),
        ("core_memory_replace", handle!(|c| to_output(&memory::replace(&c.services.store, c.parse()?).await?))),
        ("archival_memory_insert", handle!(|c| to_output(&memory::insert(&c.services.store, c.parse()?).await?))),
        ("archival_memory_search", handle!(|c| to_output(&memory::search(&c.services.store, c.parse()?).await?))),
        ("auth_oauth_connect", handle!(|c| to_output(&auth::connect(c.services, c.parse()?).await?))),
    ];
    all.extend(BrowserTool::ALL.iter().map(|&tool| (tool.name(), Arc::new(tool) as Arc<dyn Handler>)));
    all.into_iter().map(|(name, handler)| (name.to_owned(), handler)).collect()
}
