//! `halley rules list|add|remove`: the user's standing gate rules (always
//! allow / ask / never, per site, per tool, or per tool on a site), through
//! the host's `ListRules`/`AddRule`/`RemoveRule` as the panel's.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::{Host, new_rule};
use crate::paths::DataDir;
use crate::protocol::{Op, Reply};
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
        RulesCommand::List { json } => list(dir, json).await,
        RulesCommand::Add { site, tool, min_scope, decision, note } => {
            // Decided before the data directory is touched: bad input writes nothing.
            let min_scope = match min_scope.as_deref().map(parse_scope).transpose() {
                Ok(s) => s,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            let new = match new_rule(site, tool, min_scope, decision.into(), note) {
                Ok(r) => r,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            add(dir, new).await
        }
        RulesCommand::Remove { id } => remove(dir, id).await,
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

/// Carry out `op` on a host over `dir`; `None` when there is no database
/// yet and `create` is false (nothing is created then). Exit code 2 for
/// what the user got wrong (a bad rule, an unknown id), else 1.
async fn handle(dir: DataDir, create: bool, op: Op) -> Result<Option<Vec<GateRuleRow>>, ExitCode> {
    if !create && !dir.db_path().exists() {
        return Ok(None);
    }
    let host = Host::open(dir, BrowserSettings::default()).await.map_err(|e| fail(&e, EXIT_FAILURE))?;
    let reply = host.handle(op).await;
    host.close().await;
    match reply {
        Ok(Reply::Rules { rules }) => Ok(Some(rules)),
        Ok(_) => Err(fail(&Error::internal("the host did not answer with the rules"), EXIT_FAILURE)),
        Err(e) if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::NotFound) => Err(fail(&e, EXIT_USAGE)),
        Err(e) => Err(fail(&e, EXIT_FAILURE)),
    }
}

async fn list(dir: DataDir, json: bool) -> ExitCode {
    let rules = match handle(dir, false, Op::ListRules).await {
        Ok(rules) => rules.unwrap_or_default(),
        Err(code) => return code,
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

async fn add(dir: DataDir, new: NewGateRule) -> ExitCode {
    let op = Op::AddRule {
        site: new.site.clone(),
        tool: new.tool.clone(),
        min_scope: new.min_scope,
        decision: new.decision,
        note: Some(new.note.clone()),
    };
    let rules = match handle(dir, true, op).await {
        Ok(rules) => rules.unwrap_or_default(),
        Err(code) => return code,
    };
    // The one rule with this site, tool and scope: the one just added.
    match rules.iter().find(|r| r.site == new.site && r.tool == new.tool && r.min_scope == new.min_scope) {
        Some(rule) => {
            out(&format!("added rule {}: {}", rule.id, summary(rule)));
            ExitCode::SUCCESS
        }
        None => fail(&Error::internal("the rule was not saved"), EXIT_FAILURE),
    }
}

async fn remove(dir: DataDir, id: String) -> ExitCode {
    let missing = Error::not_found(format!("no gate rule with id {id}"));
    match handle(dir, false, Op::RemoveRule { id: id.clone() }).await {
        Ok(Some(_)) => {
            out(&format!("removed rule {id}"));
            ExitCode::SUCCESS
        }
        Ok(None) => fail(&missing, EXIT_USAGE),
        Err(code) => code,
    }
}

fn summary(rule: &GateRuleRow) -> String {
    format!("{} {}", rule.decision.as_str(), rule.describe())
}
