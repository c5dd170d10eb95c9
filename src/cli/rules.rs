//! `halley rules list|add|remove`: the user's standing gate rules (always
//! allow / ask / never, per site, per tool, or per tool on a site).

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::error::{Error, ErrorCode};
use crate::paths::DataDir;
use crate::store::Store;
use crate::store::gate_rules::{GateRuleRow, NewGateRule, RuleDecision};
use crate::tools::PermissionScope;

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List the rules, oldest first.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Add a rule (replacing one with the same site, tool and min scope).
    /// An allow rule reaches PAYMENT and DESTRUCTIVE only with
    /// --min-scope PAYMENT or DESTRUCTIVE.
    Add {
        /// An origin (https://shop.vn) or a host pattern (*.shop.vn).
        #[arg(long, value_name = "ORIGIN")]
        site: Option<String>,
        /// A tool name (browser_click).
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Only for actions of at least this effective scope (READ_ONLY,
        /// WRITE_NON_DESTRUCTIVE, SUBMIT, PUBLISH, PAYMENT, DESTRUCTIVE).
        #[arg(long, value_name = "SCOPE")]
        min_scope: Option<String>,
        /// allow, ask or never.
        #[arg(value_enum)]
        decision: DecisionArg,
        /// Why (shown in `rules list`).
        #[arg(long, value_name = "TEXT", default_value = "")]
        note: String,
    },
    /// Remove the rule with this id.
    Remove { id: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecisionArg {
    Allow,
    Ask,
    Never,
}

impl From<DecisionArg> for RuleDecision {
    fn from(d: DecisionArg) -> RuleDecision {
        match d {
            DecisionArg::Allow => RuleDecision::Allow,
            DecisionArg::Ask => RuleDecision::Ask,
            DecisionArg::Never => RuleDecision::Never,
        }
    }
}

pub async fn run(cmd: RulesCommand, data_dir: Option<&Path>) -> ExitCode {
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    match cmd {
        RulesCommand::List { json } => list(&dir, json).await,
        RulesCommand::Add { site, tool, min_scope, decision, note } => {
            // Decided before the data directory is touched: bad input writes nothing.
            let min_scope = match min_scope.as_deref().map(parse_scope).transpose() {
                Ok(s) => s,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            if site.is_none() && tool.is_none() {
                return fail(&Error::invalid_arguments("a rule needs --site ORIGIN, --tool NAME or both"), EXIT_USAGE);
            }
            if let Some(Err(e)) = site.as_deref().map(crate::vocab::origin::SitePattern::parse) {
                return fail(&e, EXIT_USAGE);
            }
            let new = NewGateRule { site, tool, min_scope, decision: decision.into(), note };
            add(&dir, &new).await
        }
        RulesCommand::Remove { id } => remove(&dir, &id).await,
    }
}

/// A scope by name, in any case, `-` or `_` between words.
fn parse_scope(raw: &str) -> Result<PermissionScope, Error> {
    let wanted = raw.trim().to_ascii_uppercase().replace('-', "_");
    PermissionScope::ALL.into_iter().find(|s| s.as_str() == wanted).ok_or_else(|| {
        let names: Vec<&str> = PermissionScope::ALL.iter().map(|s| s.as_str()).collect();
        Error::invalid_arguments(format!("unknown scope `{raw}`; use one of {}", names.join(", ")))
    })
}

/// Open the store, creating the data directory when `create`; `None` when
/// there is no database yet and `create` is false.
async fn open(dir: &DataDir, create: bool) -> Result<Option<Store>, Error> {
    if !create && !dir.db_path().exists() {
        return Ok(None);
    }
    dir.ensure()?;
    Ok(Some(Store::open(&dir.db_path()).await?))
}

async fn list(dir: &DataDir, json: bool) -> ExitCode {
    let rules = match open(dir, false).await {
        Ok(None) => Vec::new(),
        Ok(Some(store)) => {
            let rules = store.gate_rules().list().await;
            store.close().await;
            match rules {
                Ok(r) => r,
                Err(e) => return fail(&e, EXIT_FAILURE),
            }
        }
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if json {
        return super::audit::print_json(&rules);
    }
    if rules.is_empty() {
        out("no rules; add one with `halley rules add --site ORIGIN|--tool NAME allow|ask|never`");
        return ExitCode::SUCCESS;
    }
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(2);
    out(&format!("{:width$}  {:8}  {:40}  NOTE", "ID", "DECISION", "APPLIES TO"));
    for r in &rules {
        out(&format!("{:width$}  {:8}  {:40}  {}", r.id, r.decision.as_str(), r.describe(), r.note));
    }
    ExitCode::SUCCESS
}

async fn add(dir: &DataDir, new: &NewGateRule) -> ExitCode {
    let store = match open(dir, true).await {
        Ok(Some(s)) => s,
        Ok(None) => return fail(&Error::internal("the store was not opened"), EXIT_FAILURE),
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let added = store.gate_rules().add(new).await;
    store.close().await;
    match added {
        Ok(rule) => {
            out(&format!("added rule {}: {}", rule.id, summary(&rule)));
            ExitCode::SUCCESS
        }
        Err(e) if e.code() == ErrorCode::InvalidArguments => fail(&e, EXIT_USAGE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

async fn remove(dir: &DataDir, id: &str) -> ExitCode {
    let store = match open(dir, false).await {
        Ok(Some(s)) => s,
        Ok(None) => return fail(&Error::not_found(format!("no gate rule with id {id}")), EXIT_USAGE),
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let removed = store.gate_rules().remove(id).await;
    store.close().await;
    match removed {
        Ok(()) => {
            out(&format!("removed rule {id}"));
            ExitCode::SUCCESS
        }
        Err(e) if e.code() == ErrorCode::NotFound => fail(&e, EXIT_USAGE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

fn summary(rule: &GateRuleRow) -> String {
    format!("{} {}", rule.decision.as_str(), rule.describe())
}
