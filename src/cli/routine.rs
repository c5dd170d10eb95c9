//! `halley routine save|list|show|params|delete|run|schedule|pause|resume|repair`,
//! through a [`Host`]'s ops (`SaveRoutine`, `ListRoutines`, `ShowRoutine`,
//! `EditRoutineParams`, `DeleteRoutine`, `RunRoutine`, `ScheduleRoutine`,
//! `UnscheduleRoutine`, `PauseRoutine`, `SetRoutineRepair`). A replay's questions (a SUBMIT step) are
//! asked on the terminal, or refused with `--confirm deny` or without one:
//! there is no `--yes`, every replay asks.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use serde_json::Value;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, close_for};
use super::tools::{asks_nobody, cli_caller, print_json};
use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::{Caller, Host};
use crate::paths::DataDir;
use crate::protocol::{Op, Reply};
use crate::routine::parse_pairs;

#[derive(Debug, Subcommand)]
pub enum RoutineCommand {
    /// Keep a finished run (`halley runs list`) as a routine: its steps,
    /// the parameters proposed from it, its answer as a template.
    Save {
        run_id: String,
        /// The routine's name (what `halley routine run NAME` takes).
        #[arg(long)]
        name: String,
        /// Print the routine as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Every routine with its steps and parameters.
    List {
        #[arg(long)]
        json: bool,
    },
    /// One routine: its steps, parameters, answer template and latest replays.
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Show a routine's parameters, or edit them.
    Params {
        name: String,
        /// Rename a parameter: `--rename OLD=NEW`. Repeatable.
        #[arg(long, value_name = "OLD=NEW")]
        rename: Vec<String>,
        /// Set a parameter's default: `--set NAME=VALUE`. Repeatable.
        #[arg(long, value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Make a parameter required at each replay (its default dropped).
        #[arg(long, value_name = "NAME")]
        require: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Delete a routine.
    Delete { name: String },
    /// Replay a routine without the model; every step passes the gate (a
    /// submit, a payment, a post asks each time). Exit 0 when it completed,
    /// 1 when it stopped or failed (the report says at which step and why),
    /// 2 for bad input.
    Run {
        name: String,
        /// A parameter's value: `--param NAME=VALUE`. Repeatable.
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Print the replay's report as JSON.
        #[arg(long)]
        json: bool,
        /// `ask` on the terminal (refused when there is none) or `deny`.
        #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
        confirm: ConfirmMode,
        /// Stay on these sites: acting on any other origin asks first. Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origins: Vec<String>,
        /// The last replay was cut short at a step that may have taken
        /// effect and you checked it: settle it and replay.
        #[arg(long)]
        after_interrupted: bool,
        /// What you approve in this replay is approved for the next ones,
        /// bound to the exact request (destination, fields and values, an
        /// amount no higher): anything different asks again.
        #[arg(long)]
        remember_approval: bool,
    },
    /// Drop a routine's standing approvals: every replay asks again.
    ForgetApprovals { name: String },
    /// Replay a routine on a schedule, in the long-lived host (the desktop
    /// app, `halley serve`): the first replay at once, then every `--every`.
    /// Its questions go to the panel and a notification (nobody answering
    /// is a refusal), its result to the inbox; a change of the values it
    /// reads, or a stop, is also a notification. `--off` removes the schedule.
    Schedule {
        name: String,
        /// `1d`, `6h`, `30m` (at least a minute).
        #[arg(long, value_name = "PERIOD", required_unless_present = "off", conflicts_with = "off")]
        every: Option<String>,
        /// At a time of day, the computer's local time (`08:00`, `20:30`):
        /// the first replay the next time the clock shows it, the others a
        /// period after each other on that time.
        #[arg(long, value_name = "HH:MM", conflicts_with = "off")]
        at: Option<String>,
        /// Take the routine off its schedule.
        #[arg(long)]
        off: bool,
        #[arg(long)]
        json: bool,
    },
    /// Allow (`on`) or forbid (`off`) the model set in the settings to
    /// repair a step whose element cannot be found any more (never a
    /// submit, a payment or a post): the repaired step is kept as a new
    /// version of the routine.
    Repair {
        name: String,
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Pause a routine's schedule (its replays stop until `resume`).
    Pause { name: String },
    /// Resume a paused schedule: the next replay is due at once.
    Resume { name: String },
}

pub async fn run(cmd: RoutineCommand, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    match cmd {
        RoutineCommand::Save { run_id, name, json } => {
            let op = Op::SaveRoutine { run_id: run_id.clone(), name };
            match ask(&dir, browser, op, &format!("no run `{run_id}`: this data directory has no runs yet")).await {
                Ok(Reply::Routine { routine }) => {
                    if json {
                        return print_json(&routine);
                    }
                    out(&format!("saved routine `{}` from run {run_id}", routine["name"].as_str().unwrap_or("")));
                    print_routine(&routine);
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::List { json } => {
            if !dir.db_path().exists() {
                return if json { print_json(&Vec::<Value>::new()) } else { none_yet() };
            }
            match ask(&dir, browser, Op::ListRoutines, "").await {
                Ok(Reply::Routines { routines }) if json => print_json(&routines),
                Ok(Reply::Routines { routines }) if routines.is_empty() => none_yet(),
                Ok(Reply::Routines { routines }) => {
                    for r in &routines {
                        let plan = &r["plan"];
                        let params: Vec<&str> = plan["params"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|p| p["name"].as_str())
                            .collect();
                        out(&format!(
                            "{}  {} steps  params: {}  (from {})  {}",
                            r["name"].as_str().unwrap_or(""),
                            plan["steps"].as_array().map_or(0, Vec::len),
                            if params.is_empty() { "none".to_owned() } else { params.join(", ") },
                            r["source_run_id"].as_str().unwrap_or("?"),
                            schedule_line(r)
                        ));
                        if let Some(last) = last_line(r) {
                            out(&format!("    last: {last}"));
                        }
                    }
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Show { name, json } => {
            match ask(&dir, browser, Op::ShowRoutine { name: name.clone() }, &unknown(&name)).await {
                Ok(Reply::Routine { routine }) if json => print_json(&routine),
                Ok(Reply::Routine { routine }) => {
                    print_routine(&routine);
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Params { name, rename, set, require, json } => {
            let (rename, set) = match (parse_pairs(&rename, "--rename"), parse_pairs(&set, "--set")) {
                (Ok(r), Ok(s)) => (r, s),
                (Err(e), _) | (_, Err(e)) => return fail(&e, EXIT_USAGE),
            };
            let op = if rename.is_empty() && set.is_empty() && require.is_empty() {
                Op::ShowRoutine { name: name.clone() }
            } else {
                Op::EditRoutineParams { name: name.clone(), rename, set, require }
            };
            match ask(&dir, browser, op, &unknown(&name)).await {
                Ok(Reply::Routine { routine }) if json => print_json(&routine["plan"]["params"]),
                Ok(Reply::Routine { routine }) => {
                    print_params(&routine["plan"]);
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Delete { name } => {
            match ask(&dir, browser, Op::DeleteRoutine { name: name.clone() }, &unknown(&name)).await {
                Ok(Reply::Done) => {
                    out(&format!("deleted routine `{name}`"));
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::ForgetApprovals { name } => {
            match ask(&dir, browser, Op::ForgetRoutineApprovals { name: name.clone() }, &unknown(&name)).await {
                Ok(Reply::Routine { .. }) => {
                    out(&format!("routine `{name}` has no standing approval now: its replays ask again"));
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Schedule { name, every, at, off, json } => {
            let op = match every {
                Some(every) if !off => Op::ScheduleRoutine { name: name.clone(), every, at },
                _ => Op::UnscheduleRoutine { name: name.clone() },
            };
            match ask(&dir, browser, op, &unknown(&name)).await {
                Ok(Reply::Routine { routine }) if json => print_json(&routine),
                Ok(Reply::Routine { routine }) => {
                    print_schedule(&routine);
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Repair { name, state } => {
            let allowed = state == "on";
            match ask(&dir, browser, Op::SetRoutineRepair { name: name.clone(), allowed }, &unknown(&name)).await {
                Ok(Reply::Routine { .. }) => {
                    out(&if allowed {
                        format!("routine `{name}`: the model may repair a step whose element is gone (never a submit)")
                    } else {
                        format!(
                            "routine `{name}`: no repair by the model; a step whose element is gone stops the replay"
                        )
                    });
                    ExitCode::SUCCESS
                }
                other => done(other),
            }
        }
        RoutineCommand::Pause { name } => pause(&dir, browser, name, true).await,
        RoutineCommand::Resume { name } => pause(&dir, browser, name, false).await,
        RoutineCommand::Run { name, params, json, confirm, allow_origins, after_interrupted, remember_approval } => {
            let params = match parse_pairs(&params, "--param") {
                Ok(p) => p,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            if !dir.db_path().exists() {
                return fail(&Error::not_found(unknown(&name)), EXIT_USAGE);
            }
            let caller = cli_caller(confirmer(confirm, false), allow_origins);
            let op = Op::RunRoutine { name, params, after_interrupted, remember_approval };
            replay(dir, browser, caller, op, json).await
        }
    }
}

async fn pause(dir: &DataDir, browser: BrowserSettings, name: String, paused: bool) -> ExitCode {
    match ask(dir, browser, Op::PauseRoutine { name: name.clone(), paused }, &unknown(&name)).await {
        Ok(Reply::Routine { routine }) => {
            print_schedule(&routine);
            ExitCode::SUCCESS
        }
        other => done(other),
    }
}

/// `every 1d, next 2026-…` / `paused` / `not scheduled`.
fn schedule_line(routine: &Value) -> String {
    let s = &routine["schedule"];
    match s["every"].as_str() {
        None => "not scheduled".to_owned(),
        Some(every) => {
            let every = match s["at"].as_str() {
                Some(at) => format!("every {every} at {at}"),
                None => format!("every {every}"),
            };
            if s["paused"] == true {
                format!("{every}, paused")
            } else {
                format!("{every}, next run {}", s["next_run_at"].as_str().unwrap_or("?"))
            }
        }
    }
}

fn print_schedule(routine: &Value) {
    out(&format!("routine `{}`: {}", routine["name"].as_str().unwrap_or(""), schedule_line(routine)));
}

/// The last replay: `completed 2026-…: the answer` / `stopped …: why`.
fn last_line(routine: &Value) -> Option<String> {
    let last = routine["last"].as_object()?;
    let status = last.get("status").and_then(Value::as_str).unwrap_or("");
    let when = last.get("ended_at").or_else(|| last.get("started_at")).and_then(Value::as_str).unwrap_or("");
    let what = match last.get("answer").and_then(Value::as_str) {
        Some(a) => a.to_owned(),
        None => last
            .get("stopped")
            .and_then(|s| s.get("why"))
            .and_then(Value::as_str)
            .map_or_else(String::new, str::to_owned),
    };
    Some(format!("{status} {when}: {what}"))
}

fn unknown(name: &str) -> String {
    format!("no routine `{name}`: this data directory has none yet")
}

fn none_yet() -> ExitCode {
    out("no routines yet: `halley routine save RUN_ID --name NAME` keeps a finished run");
    ExitCode::SUCCESS
}

/// One op for a command that asks nobody; `absent` is the `not_found`
/// message when the data directory has no database (nothing is created).
async fn ask(dir: &DataDir, browser: BrowserSettings, op: Op, absent: &str) -> Result<Reply, Error> {
    if !dir.db_path().exists() {
        return Err(Error::not_found(absent));
    }
    let host = Host::open(dir.clone(), browser).await?;
    let reply = host.handle_as(&asks_nobody(), op).await;
    host.close().await;
    reply
}

/// An op's error as the exit: 2 for what the user got wrong.
fn done(reply: Result<Reply, Error>) -> ExitCode {
    match reply {
        Ok(_) => fail(&Error::internal("the host answered something else"), EXIT_FAILURE),
        Err(e) => fail(&e, usage_or_failure(&e)),
    }
}

fn usage_or_failure(e: &Error) -> u8 {
    if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::NotFound) { EXIT_USAGE } else { EXIT_FAILURE }
}

async fn replay(dir: DataDir, browser: BrowserSettings, caller: Caller, op: Op, json: bool) -> ExitCode {
    let mut signals = Signals::install();
    let host: Arc<Host> = match signals.during(Host::open(dir, browser)).await {
        Ok(Ok(h)) => h,
        Ok(Err(e)) => return fail(&e, EXIT_FAILURE),
        Err(stop) => return stop.exit_code(),
    };
    let reply = match signals.during(host.handle_as(&caller, op)).await {
        Ok(reply) => reply,
        Err(stop) => return close_for(host.core(), stop).await,
    };
    host.close().await;
    let report = match reply {
        Ok(Reply::RoutineReplayed { report }) => report,
        other => return done(other),
    };
    if json {
        let printed = print_json(&report);
        if printed != ExitCode::SUCCESS {
            return printed;
        }
    } else {
        print_report(&report);
    }
    if report["status"] == "completed" {
        return ExitCode::SUCCESS;
    }
    let stopped = &report["stopped"];
    let code = stopped["code"].as_str().unwrap_or("internal");
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "halley: error [{code}]: the replay {} at step {} ({}): {}",
            report["status"].as_str().unwrap_or("stopped"),
            stopped["step"],
            stopped["tool"].as_str().unwrap_or(""),
            stopped["why"].as_str().unwrap_or("")
        );
    }
    ExitCode::from(EXIT_FAILURE)
}

fn print_report(report: &Value) {
    for s in report["steps"].as_array().into_iter().flatten() {
        let target = s["target"].as_str().map(|t| format!(" {t}")).unwrap_or_default();
        let how = s["found_by"].as_str().map(|h| format!(" (found by {h})")).unwrap_or_default();
        let err = s["error"]["message"].as_str().map(|m| format!(": {m}")).unwrap_or_default();
        out(&format!(
            "{:>2}. {} {}{target}{how} [{}]{err}",
            s["step"],
            s["status"].as_str().unwrap_or(""),
            s["tool"].as_str().unwrap_or(""),
            s["scope"].as_str().unwrap_or("")
        ));
    }
    if let Some(stopped) = report["stopped"].as_object() {
        out(&format!(
            "stopped at step {} ({}): {}",
            stopped.get("step").cloned().unwrap_or_default(),
            stopped.get("tool").and_then(Value::as_str).unwrap_or(""),
            stopped.get("why").and_then(Value::as_str).unwrap_or("")
        ));
        if let Some(shot) = stopped.get("screenshot").and_then(Value::as_str) {
            out(&format!("screenshot: {shot}"));
        }
    }
    for n in report["notes"].as_array().into_iter().flatten() {
        out(&format!("note: {}", n.as_str().unwrap_or("")));
    }
    if let Some(a) = report["answer"].as_str() {
        out(a);
    }
}

fn print_routine(routine: &Value) {
    let plan = &routine["plan"];
    out(&format!("routine {}  (from run {})", routine["name"].as_str().unwrap_or(""), routine["source_run_id"]));
    for (i, s) in plan["steps"].as_array().into_iter().flatten().enumerate() {
        let target = s["target"]["role"]
            .as_str()
            .map(|role| {
                let name = s["target"]["name"].as_str().map(|n| format!(" \"{n}\"")).unwrap_or_default();
                format!(" {role}{name}")
            })
            .unwrap_or_default();
        out(&format!(
            "{:>2}. {}{target} {} [{}]",
            i + 1,
            s["tool"].as_str().unwrap_or(""),
            s["args"],
            s["recorded_scope"].as_str().unwrap_or("")
        ));
    }
    print_params(plan);
    for a in plan["standing"].as_array().into_iter().flatten() {
        out(&format!(
            "standing approval: {} ({}) since {}",
            a["summary"].as_str().unwrap_or(""),
            a["scope"].as_str().unwrap_or(""),
            a["approved_at"].as_str().unwrap_or("")
        ));
    }
    if let Some(t) = plan["answer"]["text"].as_str() {
        out(&format!("answer: {t}"));
    }
    out(&format!(
        "version {}; repair by the model: {}",
        plan["revision"].as_u64().unwrap_or(1),
        if plan["repair"] == true { "allowed" } else { "off" }
    ));
    for v in routine["versions"].as_array().into_iter().flatten() {
        out(&format!(
            "version {} replaced {}: {}",
            v["revision"],
            v["replaced_at"].as_str().unwrap_or(""),
            v["replaced_because"].as_str().unwrap_or("")
        ));
    }
    out(&format!("schedule: {}", schedule_line(routine)));
    if let Some(last) = last_line(routine) {
        out(&format!("last result: {last}"));
    }
    for r in routine["replays"].as_array().into_iter().flatten() {
        let what = r["report"]["answer"]
            .as_str()
            .or_else(|| r["report"]["stopped"]["why"].as_str())
            .or_else(|| r["report"]["interrupted_at"].as_str())
            .unwrap_or("");
        out(&format!(
            "replay {}  {}  {} ({})  {what}",
            r["id"].as_str().unwrap_or(""),
            r["started_at"].as_str().unwrap_or(""),
            r["status"].as_str().unwrap_or(""),
            r["trigger"].as_str().unwrap_or("")
        ));
    }
}

fn print_params(plan: &Value) {
    let params = plan["params"].as_array().cloned().unwrap_or_default();
    if params.is_empty() {
        out("parameters: none");
    }
    for p in &params {
        let default = p["default"].as_str().map_or_else(|| "(required)".to_owned(), |d| format!("= {d}"));
        out(&format!(
            "param {} ({}) {default}  used in {}",
            p["name"].as_str().unwrap_or(""),
            p["kind"].as_str().unwrap_or(""),
            p["used_in"].as_str().unwrap_or("")
        ));
    }
}
