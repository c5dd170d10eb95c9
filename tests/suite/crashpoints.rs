//! The crash-point durability harness: realistic work, SIGKILLed at its
//! named crash points (`src/crashpoint.rs`: every database commit, before
//! and after every side effect), restarted, and checked: the database
//! passes `PRAGMA integrity_check`, nothing is lost or half-written, no
//! side effect happens twice, a cut-short run goes on from its last durable
//! step.
//!
//! A first run of a scenario with `HALLEY_CRASH_LOG` counts and names its
//! points; then each chosen point gets a fresh copy of the scenario's
//! starting data dir and a process started with `HALLEY_CRASH_AT=N`.
//! `HALLEY_CRASHPOINTS` chooses: `all` (`make crashpoints`), or a number of
//! points spread over the scenario (CI: 10 for the watch pass, 6 for the
//! run) plus the points just before and after the side effect that must
//! not happen twice (the notifications, the form's submit). Each sweep
//! prints a table row (scenario, points, kills, checks passed).

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::notify::{NotificationMonitor, monitor};
use crate::suite::soak::driver::{Api, Sse};
use crate::suite::watch::product;

/// One crash point as the first (counting) run logged it.
#[derive(Debug, Clone)]
struct Point {
    n: u64,
    name: String,
}

fn read_points(log: &Path) -> Vec<Point> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (n, name) = l.split_once('\t')?;
            Some(Point { n: n.parse().ok()?, name: name.to_owned() })
        })
        .collect()
}

/// `HALLEY_CRASHPOINTS=all` (`make crashpoints`): every point, of the
/// scenarios at full size.
/// `all:N,M` kills at those points only (a failure found by a sweep, again).
fn full() -> bool {
    std::env::var("HALLEY_CRASHPOINTS").is_ok_and(|v| v == "all" || v.starts_with("all:"))
}

/// The points `HALLEY_CRASHPOINTS=all:N,M` names, if it does.
fn only() -> Option<Vec<u64>> {
    let v = std::env::var("HALLEY_CRASHPOINTS").ok()?;
    let list = v.strip_prefix("all:")?;
    Some(list.split(',').filter_map(|n| n.trim().parse().ok()).collect())
}

/// The points to kill at: all of them, or `HALLEY_CRASHPOINTS` (else
/// `default`) spread evenly, plus every point just before or after the
/// side effect that must not happen twice (`effect`: in the point's name),
/// and the last two points.
fn chosen(points: &[Point], default: usize, effect: &str) -> Vec<Point> {
    if let Some(only) = only() {
        return points.iter().filter(|p| only.contains(&p.n)).cloned().collect();
    }
    if full() {
        return points.to_vec();
    }
    let want = std::env::var("HALLEY_CRASHPOINTS").unwrap_or_default();
    let n: usize = want.parse().unwrap_or(default).max(1);
    let step = (points.len() as f64 / n as f64).max(1.0);
    let mut picked: Vec<Point> = (0..n)
        .filter_map(|i| points.get((i as f64 * step) as usize))
        .chain(points.iter().filter(|p| p.name.contains("side effect") && p.name.contains(effect)))
        // The last two: the work done, its end not yet recorded (a run's
        // answer stored, the run not yet marked completed).
        .chain(points.iter().rev().take(2))
        .cloned()
        .collect();
    picked.sort_by_key(|p| p.n);
    picked.dedup_by_key(|p| p.n);
    picked
}

/// A directory tree copied (a scenario's starting data dir, per kill).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `h`'s data dir with its database made: a scenario's starting data dir
/// (a first start's migrations are not the scenario's points).
fn made_database(h: &Halley) -> PathBuf {
    let template = h.data_dir();
    let (status, _, err) = halley(&template, &["watch", "list"], &[]);
    assert!(status.success(), "{err}");
    template
}

/// The fresh copy of `template` a kill at `point` works on.
fn kill_copy(template: &Path, work: &Path, point: &Point) -> PathBuf {
    let data = work.join(format!("k{}", point.n));
    copy_dir(template, &data);
    data
}

/// The copy of `template` the counting run uses, and its crash log.
fn counting_copy(template: &Path, work: &Path) -> (PathBuf, PathBuf) {
    let counting = work.join("count");
    copy_dir(template, &counting);
    (counting, work.join("count.log"))
}

/// A scenario's process: the data dir and crash points only as `env` says.
fn scenario_env<'c>(cmd: &'c mut Command, env: &[(&str, String)]) -> &'c mut Command {
    cmd.env_remove("HALLEY_DATA_DIR")
        .env_remove("HALLEY_CRASH_AT")
        .env_remove("HALLEY_CRASH_LOG")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
}

/// `halley --data-dir DATA ARGS...` with extra variables; its exit status
/// and output.
fn halley(data: &Path, args: &[&str], env: &[(&str, String)]) -> (std::process::ExitStatus, String, String) {
    let out = scenario_env(Command::new(env!("CARGO_BIN_EXE_halley")).arg("--data-dir").arg(data).args(args), env)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Read-only SQL on a data dir's database (after a kill: its WAL is read
/// as a restarted process reads it).
fn sql<T: Send + Unpin + 'static>(data: &Path, f: impl AsyncFnOnce(&mut sqlx::SqliteConnection) -> T) -> T {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let url = format!("sqlite://{}", data.join("halley.db").display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let out = f(&mut conn).await;
        let _ = conn.close().await;
        out
    })
}

fn integrity_ok(data: &Path) -> bool {
    sql(data, async |c| {
        let rows: Vec<(String,)> = sqlx::query_as("PRAGMA integrity_check").fetch_all(c).await.unwrap();
        rows.len() == 1 && rows[0].0 == "ok"
    })
}

fn count(data: &Path, query: &'static str) -> i64 {
    sql(data, async move |c| sqlx::query_scalar::<_, i64>(query).fetch_one(c).await.unwrap())
}

/// `halley ARGS...` on a terminal (`script` gives it a pty) answering `y`
/// to `answers` questions; its exit status (`script -e`: 128 + the signal
/// for a killed one) and everything it printed.
fn in_terminal(args: Vec<String>, env: &[(&str, String)], answers: usize) -> (std::process::ExitStatus, String) {
    let line = std::iter::once(env!("CARGO_BIN_EXE_halley").to_owned())
        .chain(args)
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child =
        scenario_env(Command::new("script").args(["-q", "-e", "-c", &format!("exec {line}"), "/dev/null"]), env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all("y\n".repeat(answers).as_bytes());
        // Kept open: `script` ends the session when its input does.
        std::mem::forget(stdin);
    }
    let out = child.wait_with_output().unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What a sweep did, printed as a table row.
struct Sweep {
    scenario: &'static str,
    points: usize,
    kills: usize,
    checks: usize,
    /// Points a killing run finished before reaching.
    missed: usize,
    started: Instant,
    /// Kinds of points killed at (`commit: INSERT watch_alerts` ...), with counts.
    kinds: BTreeMap<String, usize>,
}

impl Sweep {
    fn new(scenario: &'static str, points: usize) -> Sweep {
        Sweep { scenario, points, kills: 0, checks: 0, missed: 0, started: Instant::now(), kinds: BTreeMap::new() }
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        assert!(ok, "{}: {}", self.scenario, what());
        self.checks += 1;
    }

    fn killed(&mut self, point: &Point) {
        self.kills += 1;
        // Counted by kind: an OAuth account's name stands for any.
        let kind: Vec<&str> =
            point.name.split(' ').map(|w| if w.starts_with("oauth:") { "oauth:<account>" } else { w }).collect();
        *self.kinds.entry(kind.join(" ")).or_default() += 1;
    }

    fn report(&self) {
        eprintln!(
            "CRASHPOINTS | {:<22} | points {:>4} | kills {:>4} | not reached {:>3} | checks passed {:>6} | {:>5.1} s",
            self.scenario,
            self.points,
            self.kills,
            self.missed,
            self.checks,
            self.started.elapsed().as_secs_f64()
        );
        for (name, n) in &self.kinds {
            eprintln!("CRASHPOINTS |   killed {n:>3} x at {name}");
        }
    }
}

/// The notifications seen since `from`, once the bus is quiet.
fn notified_since(m: &NotificationMonitor, from: usize) -> Vec<String> {
    let mut seen = m.notifications().len();
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let now = m.notifications().len();
        if now == seen {
            break;
        }
        seen = now;
    }
    m.notifications().into_iter().skip(from).map(|n| n.summary).collect()
}

/// Watches in the pass: a little under 2 crash points each (its check's
/// one-transaction write; the alerts' claims, a transaction per delivery;
/// the notifications), so the full sweep has more than 200.
fn watches() -> usize {
    if full() { 200 } else { 12 }
}

/// (b) A watch pass with alerts: `halley watch poll --all` over watches
/// whose prices dropped under their targets since the last pass. Killed
/// at every chosen point, then a pass that finishes: every watch kept,
/// exactly one alert and one firing observation per watch, each alert
/// handed to the desktop, no notification shown twice.
#[test]
fn crash_points_watch_pass_with_alerts() {
    let server = FixtureServer::start();
    let n_watches = watches();
    let notes = monitor();
    let h = Halley::new();
    let tag = &uuid::Uuid::new_v4().to_string()[..8];
    let mut entries = Vec::new();
    for i in 0..n_watches {
        let name = format!("crash-{tag}-{i}");
        server.set_page(&name, product(&format!("Sản phẩm {i}"), 3_000_000 + i as u64));
        entries.push(json!({
            "target": {"url": server.url(&format!("watched/{name}"))},
            "trigger_rules": [{"op": "<=", "value": 2_000_000}],
            "frequency": "1h",
            "label": format!("Crash {tag} #{i}"),
        }));
    }
    let file = h.write_file("watches.json", Value::Array(entries).to_string().as_bytes());
    assert_eq!(h.run(&["watch", "import", file.to_str().unwrap()]).code, 0);
    let first = h.run(&["watch", "poll", "--all", "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The prices drop: the next pass alerts on every watch.
    for i in 0..n_watches {
        server.set_page(&format!("crash-{tag}-{i}"), product(&format!("Sản phẩm {i}"), 1_500_000 + i as u64));
    }
    let template = h.data_dir();
    let work = h.tmp.path().join("kills");

    let (counting, log) = counting_copy(&template, &work);
    let (status, _, err) = halley(&counting, &["watch", "poll", "--all"], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{err}");
    let points = read_points(&log);
    assert!(points.iter().any(|p| p.name.contains("notification")), "{points:?}");
    let mut sweep = Sweep::new("watch pass + alerts", points.len());

    for point in chosen(&points, 10, "notification") {
        let data = kill_copy(&template, &work, &point);
        let before = notes.as_ref().map_or(0, |m| m.notifications().len());
        let at = [("HALLEY_CRASH_AT", point.n.to_string())];
        let (status, _, err) = halley(&data, &["watch", "poll", "--all"], &at);
        // The alerts' claims are batched by time (a delivery every 100 ms),
        // so a pass may reach a few points fewer than the counting one: a
        // pass that finished is checked all the same, not counted a kill.
        if status.signal() == Some(9) {
            sweep.killed(&point);
        } else {
            sweep.check(status.success(), || format!("point {point:?}: {status:?} {err}"));
            sweep.missed += 1;
        }
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let (status, _, err) = halley(&data, &["watch", "poll", "--all"], &[]);
        sweep.check(status.success(), || format!("the pass after a kill at {point:?}: {err}"));

        let watches = count(&data, "SELECT COUNT(*) FROM watches WHERE status = 'active'");
        sweep.check(watches == n_watches as i64, || format!("{watches} watches after a kill at {point:?}"));
        let alerts = count(&data, "SELECT COUNT(*) FROM watch_alerts WHERE rule = 'price<=2000000'");
        sweep.check(alerts == n_watches as i64, || format!("{alerts} alerts after a kill at {point:?}"));
        let per_watch = count(
            &data,
            "SELECT COUNT(*) FROM (SELECT watch_id FROM watch_alerts GROUP BY watch_id HAVING COUNT(*) > 1)",
        );
        sweep.check(per_watch == 0, || format!("a watch alerted twice after a kill at {point:?}"));
        let firing = count(&data, "SELECT COUNT(*) FROM watch_observations WHERE triggered = 1");
        sweep.check(firing == n_watches as i64, || format!("{firing} firing observations after a kill at {point:?}"));
        // Each alert points at the observation that fired it (written together).
        let orphans = count(
            &data,
            "SELECT COUNT(*) FROM watch_alerts a LEFT JOIN watch_observations o ON o.id = a.observation_id
             WHERE o.id IS NULL OR o.triggered = 0",
        );
        sweep.check(orphans == 0, || format!("{orphans} alerts without their observation after {point:?}"));
        let unsent = count(&data, "SELECT COUNT(*) FROM watch_alerts WHERE sent_at IS NULL");
        sweep.check(unsent == 0, || format!("{unsent} alerts never handed over after {point:?}"));
        let checked = count(&data, "SELECT COUNT(*) FROM watches WHERE last_checked_at IS NULL");
        sweep.check(checked == 0, || format!("{checked} watches never checked after {point:?}"));
        if let Some(m) = notes.as_ref() {
            let seen = notified_since(m, before);
            let mut by_label: BTreeMap<&str, usize> = BTreeMap::new();
            for s in seen.iter().filter(|s| s.contains(tag)) {
                *by_label.entry(s.as_str()).or_default() += 1;
            }
            sweep.check(by_label.values().all(|n| *n == 1), || {
                format!("a notification shown twice after a kill at {point:?}: {by_label:?}")
            });
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
}

/// A SIGKILLed Halley cannot close its browser: the Chromium it started
/// (its profile in `data`) is killed here, by pid.
fn kill_left_behind(data: &Path) {
    let needle = path(data);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

/// A run's calls and messages, for a failure's message.
fn timeline(data: &Path) -> String {
    sql(data, async |c| {
        let calls: Vec<(String, String, String, Option<String>)> =
            sqlx::query_as("SELECT call_id, tool, status, error_code FROM tool_calls ORDER BY id")
                .fetch_all(&mut *c)
                .await
                .unwrap();
        let messages: Vec<(String, Option<String>)> =
            sqlx::query_as("SELECT role, substr(content, 1, 300) FROM messages ORDER BY seq")
                .fetch_all(&mut *c)
                .await
                .unwrap();
        format!("calls {calls:?}\nmessages {messages:#?}")
    })
}

/// The run of `data` ended `completed`, every call the model asked for has
/// exactly one result message and one row in the timeline, and no step is
/// left running.
fn run_is_whole(sweep: &mut Sweep, data: &Path, point: &Point) {
    let status: String = sql(data, async |c| sqlx::query_scalar("SELECT status FROM runs").fetch_one(c).await.unwrap());
    sweep.check(status == "completed", || format!("the run is {status} after a kill at {point:?}: {}", timeline(data)));
    for call in model_calls(data).into_iter().map(|(id, _, _)| id) {
        let (results, rows) = sql(data, {
            let call = call.clone();
            async move |c| {
                let results: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE tool_call_id = ?1")
                    .bind(&call)
                    .fetch_one(&mut *c)
                    .await
                    .unwrap();
                let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tool_calls WHERE call_id = ?1")
                    .bind(&call)
                    .fetch_one(&mut *c)
                    .await
                    .unwrap();
                (results, rows)
            }
        });
        sweep.check(results == 1 && rows == 1, || {
            format!("call {call}: {results} results, {rows} timeline rows after a kill at {point:?}")
        });
    }
    let running = count(data, "SELECT COUNT(*) FROM steps WHERE status = 'running'");
    sweep.check(running == 0, || format!("{running} steps left running after a kill at {point:?}"));
}

/// Every call the model asked for in `data`'s conversations: its id, tool
/// and arguments.
fn model_calls(data: &Path) -> Vec<(String, String, Value)> {
    let rows: Vec<(Option<String>,)> = sql(data, async |c| {
        sqlx::query_as("SELECT tool_calls FROM messages WHERE role = 'assistant' ORDER BY seq")
            .fetch_all(c)
            .await
            .unwrap()
    });
    rows.into_iter()
        .filter_map(|(t,)| t)
        .flat_map(|t| serde_json::from_str::<Value>(&t).unwrap().as_array().cloned().unwrap_or_default())
        .map(|c| {
            let args = c["function"]["arguments"].as_str().and_then(|a| serde_json::from_str(a).ok());
            (
                c["id"].as_str().unwrap().to_owned(),
                c["function"]["name"].as_str().unwrap_or_default().to_owned(),
                args.unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The run scenario's model, a careful agent reading the conversation:
/// it notes facts about the user (one turn each), then fills and submits the feedback form in
/// one turn. When that turn did not get the form sent (a call failed: a
/// resumed run's browser is a new one, the page and what was typed are
/// gone) it does the whole form again; when the submit itself was
/// interrupted (it may have gone through) it says so instead of sending
/// twice. The same answer from any process, so a run resumed after a kill
/// anywhere gets a sensible next turn.
fn feedback_model(form_url: String, notes: usize) -> impl Fn(&Value) -> Turn + Send + Sync + 'static {
    move |request| {
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let turns = messages.iter().filter(|m| m["role"] == "assistant").count();
        if turns < notes {
            return Turn::tool_calls(vec![ToolCall::new(
                "core_memory_append",
                json!({"label": "human", "content": format!("Ghi chú {turns}: Nguyễn Văn An")}),
            )]);
        }
        let last = messages.iter().rposition(|m| m["role"] == "assistant").unwrap_or_default();
        let form = Turn::tool_calls(vec![
            ToolCall::new("browser_navigate", json!({"url": form_url})),
            ToolCall::new("browser_type", json!({"selector": "#ho_ten", "text": "Nguyễn Văn An"})),
            ToolCall::new("browser_type", json!({"selector": "#noi_dung", "text": "Thủ tục nhanh, cảm ơn."})),
            ToolCall::new("browser_click", json!({"selector": "text=Gửi góp ý"})),
        ]);
        let calls = messages[last]["tool_calls"].as_array().cloned().unwrap_or_default();
        let Some(click) = calls.iter().find(|c| c["function"]["name"] == "browser_click") else { return form };
        let result = messages[last + 1..]
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == click["id"])
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        if result.contains("\"status\":\"ok\"") {
            Turn::text("Đã gửi góp ý.")
        } else if result.contains("Halley stopped") {
            Turn::text("Việc gửi góp ý bị gián đoạn: hãy kiểm tra trước khi gửi lại.")
        } else {
            form
        }
    }
}

const TASK: &str = "Gửi góp ý cho cổng dịch vụ công";

/// (a) A run with tool calls and a confirmation: `halley run` with the
/// scripted model writing memory, filling a form on the fixture site and
/// submitting it (the gate asks; the user answers yes on the terminal).
/// Killed at every chosen point, then `halley run --resume`: the run
/// ends completed from its last durable step, every call in the timeline
/// once with its result, the form POSTed at most once (exactly once when
/// the kill came before the submit began).
#[test]
fn crash_points_run_with_a_confirmed_submit() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let model = ModelServer::responding(feedback_model(site.url("feedback.html"), if full() { 24 } else { 1 }));
    let h = Halley::new();
    let work = h.tmp.path().join("kills");
    let base = model.base_url();
    let run = |data: &Path, extra: &[&str], env: &[(&str, String)]| {
        // A terminal for the confirmation (`script` gives the run a pty),
        // answered yes to each question.
        let mut args: Vec<String> =
            vec!["--data-dir".into(), path(data), "--headless".into(), "run".into(), "--json".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        // Room for the full mode's 24 notes, the form and a second try.
        args.extend([
            "--base-url".into(),
            base.clone(),
            "--model".into(),
            "m".into(),
            "--max-steps".into(),
            "64".into(),
        ]);
        in_terminal(args, env, 4)
    };

    let template = made_database(&h);
    let (counting, log) = counting_copy(&template, &work);
    let posts = site.posts().len();
    let (status, out) = run(&counting, &[TASK], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{status:?} {out}");
    assert_eq!(site.posts().len(), posts + 1, "{out}");
    let points = read_points(&log);
    let submit = points.iter().find(|p| p.name == "before side effect: tool browser_click").unwrap().n;
    let mut sweep = Sweep::new("run + confirmed submit", points.len());

    for point in chosen(&points, 6, "browser_click") {
        let data = kill_copy(&template, &work, &point);
        let posts = site.posts().len();
        let (status, out) = run(&data, &[TASK], &[("HALLEY_CRASH_AT", point.n.to_string())]);
        // What each process printed, for a failure's message.
        let mut said = format!("killed run: {out}");
        // `script -e` reports the child's death by signal as 128 + 9.
        sweep.check(status.code() == Some(137), || format!("point {point:?} did not kill: {status:?} {out}"));
        sweep.killed(&point);
        kill_left_behind(&data);
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let run_id: Option<String> = sql(&data, async |c| {
            sqlx::query_scalar("SELECT id FROM runs ORDER BY started_at DESC LIMIT 1").fetch_optional(c).await.unwrap()
        });
        if run_id.is_none() {
            // Killed before the run was recorded: the user starts it again.
            let (status, out) = run(&data, &[TASK], &[]);
            sweep.check(status.success(), || format!("the task again after a kill at {point:?}: {out}"));
            said.push_str(&format!("\nthe task again: {out}"));
        }
        let run_id: Option<String> = sql(&data, async |c| {
            sqlx::query_scalar("SELECT id FROM runs ORDER BY started_at DESC LIMIT 1").fetch_optional(c).await.unwrap()
        });
        if let Some(run_id) = run_id.as_deref() {
            let ended = count(&data, "SELECT COUNT(*) FROM runs WHERE status IN ('completed', 'failed', 'cancelled')");
            if ended == 0 {
                let (status, out) = run(&data, &["--resume", run_id], &[]);
                sweep.check(status.success(), || format!("resume after a kill at {point:?}: {out}"));
                said.push_str(&format!("\nresumed: {out}"));
            }
            run_is_whole(&mut sweep, &data, &point);
        }
        let sent = site.posts().len() - posts;
        sweep.check(sent <= 1, || {
            format!("the form was POSTed {sent} times after a kill at {point:?}: {}\n{said}", timeline(&data))
        });
        if point.n < submit {
            sweep.check(sent == 1, || {
                format!("the form was never POSTed after a kill at {point:?}: {}", timeline(&data))
            });
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
    let _: PathBuf = work;
}

// ------------------------------------------------ (c) client tools over the API

/// The client application's id (`X-Halley-Client`).
const CLIENT: &str = "so-cai";

/// Tools the client registers (a registration each), entries its run
/// writes through them, and entries a turn (a run has at most 20 steps):
/// about 5 crash points an entry (the call's placeholder, before and after
/// the client runs it, its result; the turn's step and messages), so the
/// full sweep has more than 200.
fn client_tools() -> usize {
    if full() { 4 } else { 2 }
}

fn entries() -> usize {
    if full() { 48 } else { 4 }
}

fn per_turn() -> usize {
    if full() { 4 } else { 2 }
}

/// The Python source of ledger tool `k`, as the client registers it.
fn ledger_source(k: usize) -> String {
    format!(
        "def ghi_so_{k}(entry: int, note: str) -> str:\n    \"\"\"Write an entry into ledger {k} of the shop.\n\n    Args:\n        entry: The entry's number.\n        note: What the entry says.\n    \"\"\"\n"
    )
}

/// The model of scenario (c): `per_turn` entries a turn, each through
/// ledger `entry % tools`, then the summary; a function of the conversation (the
/// assistant turns so far), so a run resumed after a kill anywhere gets the
/// turn it would have got. An interrupted call is not asked again.
fn ledger_model(tools: usize, entries: usize, per_turn: usize) -> impl Fn(&Value) -> Turn + Send + Sync + 'static {
    move |request| {
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let turns = messages.iter().filter(|m| m["role"] == "assistant").count();
        if turns * per_turn >= entries {
            return Turn::text(&format!("Đã ghi {entries} mục vào sổ."));
        }
        Turn::tool_calls(
            (turns * per_turn..((turns + 1) * per_turn).min(entries))
                .map(|e| {
                    ToolCall::new(
                        &format!("ghi_so_{}", e % tools),
                        json!({"entry": e, "note": format!("Mục {e}: {} ₫", 19_990_000 + e)}),
                    )
                })
                .collect(),
        )
    }
}

/// A `halley serve` of the harness and, once it listens, its API.
struct Serving {
    child: std::process::Child,
    api: Option<Api>,
}

/// `halley --data-dir DATA serve --port 0` with the scripted model, its
/// API token made first; `api` is none when it died before listening.
fn start_serve(data: &Path, model: &ModelServer, env: &[(&str, String)]) -> Serving {
    let (status, token, err) = halley(data, &["api", "token"], &[]);
    assert!(status.success(), "{err}");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_halley"));
    serve
        .arg("--data-dir")
        .arg(data)
        .args(["--headless", "serve", "--port", "0"])
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", model.base_url())
        .env("HALLEY_MODEL", crate::common::model_server::MODEL_ID);
    let mut child = scenario_env(&mut serve, env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        // Read to the end: a full pipe would stall the server.
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(addr) = line.split("listens on ").nth(1) {
                let _ = tx.send(addr.split_whitespace().next().unwrap_or_default().to_owned());
            }
        }
    });
    let api = rx.recv_timeout(Duration::from_secs(30)).ok().map(|base| Api {
        http: reqwest::Client::new(),
        base,
        token: token.trim().to_owned(),
    });
    Serving { child, api }
}

/// How a client session starts its run.
enum Start {
    Task,
    Resume(String),
    /// The run has ended: only the tools are registered again.
    Nothing,
}

/// What the client received: each call's id and arguments (a call sent
/// again to a reconnected stream has the same id).
type Received = std::sync::Mutex<BTreeMap<String, Value>>;

/// The client application, against one `halley serve`: it listens for
/// its calls, registers its tools (again: a client registers when it
/// starts), starts or resumes the run, and answers each call it gets once,
/// until the run is no longer going. An error: the server went away.
async fn client_session(api: &Api, tools: usize, start: Start, received: &Received) -> anyhow::Result<()> {
    use anyhow::{Context, ensure};
    let listen = api.http.get(format!("{}/api/v1/clients/{CLIENT}/events", api.base));
    let r = listen.bearer_auth(&api.token).header("X-Halley-Client", CLIENT).send().await?;
    ensure!(r.status().is_success(), "listening: {}", r.status());
    let mut calls = Sse::new(r);
    for k in 0..tools {
        let body = json!({"name": format!("ghi_so_{k}"), "sourceCode": ledger_source(k), "timeoutSeconds": 60});
        let r = api.post("/api/letta/agents/tools", &body, Some(CLIENT)).send().await?;
        ensure!(r.status().is_success(), "registering ghi_so_{k}: {}", r.status());
    }
    let started = match start {
        Start::Task => api.post("/api/v1/runs", &json!({"text": "Ghi các mục vào sổ"}), None),
        Start::Resume(run) => api.post(&format!("/api/v1/runs/{run}/resume"), &json!({}), None),
        Start::Nothing => return Ok(()),
    };
    let r = started.send().await?;
    ensure!(r.status().is_success(), "starting the run: {} {}", r.status(), r.text().await.unwrap_or_default());
    let run_id = r.json::<Value>().await?["run_id"].as_str().context("a run id")?.to_owned();
    loop {
        match tokio::time::timeout(Duration::from_millis(300), calls.next(Duration::from_secs(600))).await {
            Ok(call) => {
                let call = call?.context("the client's stream ended")?;
                let id = call["tool_call_id"].as_str().context("a call id")?.to_owned();
                let entry = call["arguments"]["entry"].clone();
                if received.lock().unwrap().insert(id.clone(), call["arguments"].clone()).is_some() {
                    continue;
                }
                let body = json!({"tool_call_id": id, "result": {"saved": entry}});
                let r = api.post("/api/v1/tool_results", &body, Some(CLIENT)).send().await?;
                ensure!(r.status().is_success(), "answering {id}: {}", r.status());
            }
            Err(_) => {
                let r = api.http.get(format!("{}/api/v1/runs", api.base)).bearer_auth(&api.token).send().await?;
                let going: Value = r.json().await?;
                if !going.to_string().contains(&run_id) {
                    return Ok(());
                }
            }
        }
    }
}

/// Stop a server: SIGTERM, then its exit status.
fn stop_serve(mut serving: Serving) -> std::process::ExitStatus {
    if serving.child.try_wait().unwrap().is_none() {
        let _ = Command::new("kill").args(["-TERM", &serving.child.id().to_string()]).status();
    }
    serving.child.wait().unwrap()
}

/// The latest run of `data` and whether it has ended.
fn last_run(data: &Path) -> Option<(String, bool)> {
    let row: Option<(String, String)> = sql(data, async |c| {
        sqlx::query_as("SELECT id, status FROM runs ORDER BY started_at DESC LIMIT 1").fetch_optional(c).await.unwrap()
    });
    row.map(|(id, status)| (id, ["completed", "failed", "cancelled"].contains(&status.as_str())))
}

/// (c) A client-tool registration and call: `halley serve` with the
/// scripted model; the test is the client application (its tools
/// registered over `POST /api/letta/agents/tools`, its calls heard on
/// `/api/v1/clients/{id}/events`, answered on `POST /api/v1/tool_results`)
/// and starts a run over `POST /api/v1/runs` whose model calls them. Killed
/// at every chosen point, restarted: the client registers again and resumes
/// the run (`POST /api/v1/runs/{id}/resume`; the task again when the kill
/// came before the run was recorded). Then: each registration once and
/// whole, the run completed with every call once in the timeline, each
/// entry received by the client at most once (a call whose answer was lost
/// with the process is reported to the model as interrupted, not sent
/// again), every other entry exactly once.
#[test]
fn crash_points_client_tool_registration_and_call() {
    let (tools, n_entries) = (client_tools(), entries());
    let model = ModelServer::responding(ledger_model(tools, n_entries, per_turn()));
    let h = Halley::new();
    let work = h.tmp.path().join("kills");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let template = made_database(&h);
    let (counting, log) = counting_copy(&template, &work);
    let serving = start_serve(&counting, &model, &[("HALLEY_CRASH_LOG", path(&log))]);
    let received = Received::default();
    let api = serving.api.as_ref().expect("halley serve listens");
    rt.block_on(client_session(api, tools, Start::Task, &received)).unwrap();
    // What cannot be resumed: a clear error (a run nobody made, one that ended).
    let (ended, _) = last_run(&counting).unwrap();
    rt.block_on(async {
        for (id, want) in [("run-nobody", 404), (ended.as_str(), 400)] {
            let r = api.post(&format!("/api/v1/runs/{id}/resume"), &json!({}), None).send().await.unwrap();
            assert_eq!(r.status().as_u16(), want);
            let body: Value = r.json().await.unwrap();
            assert!(body["error"]["message"].as_str().is_some_and(|m| m.contains(id)), "{body}");
        }
    });
    assert!(stop_serve(serving).code().is_some());
    assert_eq!(received.lock().unwrap().len(), n_entries);
    let points = read_points(&log);
    assert!(points.iter().any(|p| p.name.contains("side effect: tool ghi_so_")), "{points:?}");
    let mut sweep = Sweep::new("client tools over the API", points.len());

    for point in chosen(&points, 10, "ghi_so_") {
        let data = kill_copy(&template, &work, &point);
        let received = Received::default();
        let serving = start_serve(&data, &model, &[("HALLEY_CRASH_AT", point.n.to_string())]);
        if let Some(api) = serving.api.as_ref() {
            // The server dies under the client: its errors are expected.
            let _ = rt.block_on(client_session(api, tools, Start::Task, &received));
        }
        let status = stop_serve(serving);
        if status.signal() == Some(9) {
            sweep.killed(&point);
        } else {
            sweep.missed += 1;
        }
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));

        let start = match last_run(&data) {
            None => Start::Task,
            Some((id, false)) => Start::Resume(id),
            Some((_, true)) => Start::Nothing,
        };
        let serving = start_serve(&data, &model, &[]);
        let api = serving.api.as_ref().unwrap_or_else(|| panic!("halley serve restarts after a kill at {point:?}"));
        let done = rt.block_on(client_session(api, tools, start, &received));
        sweep.check(done.is_ok(), || format!("the client after a kill at {point:?}: {done:?}"));
        let status = stop_serve(serving);
        sweep
            .check(status.code() == Some(143), || format!("halley serve's exit after a kill at {point:?}: {status:?}"));

        // Each registration once and whole.
        for k in 0..tools {
            let name = format!("ghi_so_{k}");
            let rows: Vec<(String, Option<String>, String)> = sql(&data, {
                let name = name.clone();
                async move |c| {
                    sqlx::query_as("SELECT executor, source_code, json_schema FROM tools WHERE name = ?1")
                        .bind(&name)
                        .fetch_all(c)
                        .await
                        .unwrap()
                }
            });
            let whole = rows.len() == 1 && {
                let (executor, source, schema) = &rows[0];
                let schema: Value = serde_json::from_str(schema).unwrap_or_default();
                executor == "client"
                    && source.as_deref() == Some(ledger_source(k).as_str())
                    && schema["properties"]["entry"]["type"] == "integer"
                    && schema["properties"]["note"]["type"] == "string"
            };
            sweep.check(whole, || format!("registration {name} after a kill at {point:?}: {rows:?}"));
        }
        let tool_rows = count(&data, "SELECT COUNT(*) FROM tools");
        sweep.check(tool_rows == tools as i64, || format!("{tool_rows} tool rows after a kill at {point:?}"));
        run_is_whole(&mut sweep, &data, &point);

        // Each entry: asked once by the model; received by the client at
        // most once; exactly once unless its call was interrupted.
        let calls = model_calls(&data);
        let mut interrupted = 0;
        for e in 0..n_entries {
            let asked: Vec<&(String, String, Value)> = calls.iter().filter(|(_, _, a)| a["entry"] == e).collect();
            sweep.check(asked.len() == 1, || format!("entry {e} asked {} times after {point:?}", asked.len()));
            let got = received.lock().unwrap().values().filter(|a| a["entry"] == e).count();
            sweep.check(got <= 1, || format!("entry {e} sent to the client {got} times after a kill at {point:?}"));
            let result: String = sql(&data, {
                let id = asked[0].0.clone();
                async move |c| {
                    sqlx::query_scalar("SELECT content FROM messages WHERE tool_call_id = ?1")
                        .bind(&id)
                        .fetch_one(c)
                        .await
                        .unwrap()
                }
            });
            if result.contains("Halley stopped") {
                interrupted += 1;
            } else {
                sweep.check(got == 1 && result.contains(&format!("\"saved\":{e}")), || {
                    format!("entry {e}: received {got} times, result {result} after a kill at {point:?}")
                });
            }
        }
        sweep.check(interrupted <= 1, || format!("{interrupted} calls interrupted by one kill at {point:?}"));
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
}

// ------------------------------------------------------- (d) OAuth refresh

/// Accounts refreshed by one `halley auth check --all`: 3 crash points
/// each (before and after the token request, the keyring write), so the
/// full sweep has more than 200.
fn oauth_accounts() -> usize {
    if full() { 70 } else { 4 }
}

/// Every value Halley keeps in the session's keyring, by account
/// (`secret-tool search --all`: one process for all of them).
fn keyring() -> BTreeMap<String, String> {
    let out = Command::new("secret-tool")
        .args(["search", "--all", "--unlock", "service", "halley"])
        .output()
        .expect("secret-tool (libsecret-tools) is part of the test session");
    // The secrets are on stdout, the attributes on stderr, item by item
    // in the same order.
    let lines = |bytes: &[u8], prefix: &str| -> Vec<String> {
        String::from_utf8_lossy(bytes).lines().filter_map(|l| l.strip_prefix(prefix).map(str::to_owned)).collect()
    };
    let secrets = lines(&out.stdout, "secret = ");
    let accounts = lines(&out.stderr, "attribute.username = ");
    assert_eq!(secrets.len(), accounts.len(), "secret-tool's items");
    accounts.into_iter().zip(secrets).collect()
}

/// Connect `who` at `issuer` into `h`'s data dir (`halley auth connect`,
/// the user's sign-in played over HTTP).
async fn connect_account(h: &Halley, issuer: &str, who: &str) {
    use crate::common::oidc::{Consent, User, visit};
    let pending = super::oauth::connect(h, issuer, &[], &[]).await.expect("a sign-in URL");
    let callback = User::new().sign_in(&pending.url, who, Consent::Grant).await;
    let (status, page) = visit(&callback).await.expect("the listener answers");
    assert_eq!(status, 200, "{page}");
    let done = pending.finish().await;
    assert_eq!(done.code, 0, "{done:?}");
}

/// (d) An OAuth refresh: accounts connected against the real oidc-provider
/// (which rotates refresh tokens on use), then `halley auth check --all`,
/// which refreshes each account's access token (a token request, the
/// rotated refresh token written to the keyring) and asks who signed in.
/// Killed at every chosen point, then checked: integrity, every account row
/// whole, each keyring entry the old token or the new one (the new one
/// exactly for the accounts whose write was reached), and a restarted
/// `halley auth check --all` works for every account but, when the kill
/// came between the provider's answer and the keyring write, the account
/// whose rotated token was lost: it is marked `needs_reconnect` with a
/// message saying to connect again. A refresh token used twice would make
/// the provider revoke its grant, so any other account needing reconnection
/// fails the sweep.
#[test]
fn crash_points_oauth_refresh() {
    if !crate::common::in_session() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = crate::common::oidc::OidcServer::start(3600);
    let h = Halley::new();
    let accounts: Vec<(String, String)> = (0..oauth_accounts()).map(|_| super::oauth::login()).collect();
    for (who, _) in &accounts {
        rt.block_on(connect_account(&h, &server.issuer, who));
    }
    let template = h.data_dir();
    let work = h.tmp.path().join("kills");
    let (counting, log) = counting_copy(&template, &work);
    let (status, out, err) = halley(&counting, &["auth", "check", "--all"], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{out}{err}");
    assert_eq!(out.lines().filter(|l| l.contains("signed in as")).count(), accounts.len(), "{out}");
    let points = read_points(&log);
    let mut sweep = Sweep::new("OAuth refresh", points.len());
    let name_of =
        |p: &Point| p.name.split_whitespace().find_map(|w| w.strip_prefix("oauth:")).unwrap_or_default().to_owned();

    for point in chosen(&points, 10, "token request") {
        let data = kill_copy(&template, &work, &point);
        let before = keyring();
        let (status, _, err) = halley(&data, &["auth", "check", "--all"], &[("HALLEY_CRASH_AT", point.n.to_string())]);
        sweep.check(status.signal() == Some(9), || format!("point {point:?} did not kill: {status:?} {err}"));
        sweep.killed(&point);
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let rows: Vec<(String, String, String, String, String)> = sql(&data, async |c| {
            sqlx::query_as("SELECT name, provider, account, token_endpoint, status FROM oauth_accounts ORDER BY name")
                .fetch_all(c)
                .await
                .unwrap()
        });
        let whole = rows.len() == accounts.len()
            && rows.iter().all(|(name, provider, account, endpoint, status)| {
                name == &format!("{provider}:{account}")
                    && endpoint.starts_with(&server.issuer)
                    && status == "connected"
            });
        sweep.check(whole, || format!("the account rows after a kill at {point:?}: {rows:?}"));

        // The keyring: the new token for the accounts whose write was
        // reached (the points before this one), the old one for the rest.
        let after = keyring();
        let hit = name_of(&point);
        let written: Vec<String> =
            points.iter().filter(|p| p.n <= point.n && p.name.starts_with("keyring: ")).map(&name_of).collect();
        for (_, name) in &accounts {
            let account = format!("oauth:{name}");
            let (old, new) = (before.get(&account), after.get(&account));
            let fine = new.is_some_and(|t| t.len() > 20 && !t.starts_with("halley-parts"))
                && (written.contains(name) == (old != new));
            sweep.check(fine, || format!("{account} in the keyring after a kill at {point:?}: {old:?} -> {new:?}"));
        }

        // The one window: the provider answered (and retired the old
        // token), the new one was not written yet.
        let lost = point.name.starts_with("after side effect: token request").then_some(hit.clone());
        // Restarted: every account works but that one (in full, the
        // account the kill was refreshing: the others' tokens were checked
        // above, and a token used twice would fail a later kill's run,
        // which refreshes them all, and the last check below).
        let checked = if full() { 1 } else { accounts.len() };
        let args = if full() { ["auth", "check", hit.as_str()] } else { ["auth", "check", "--all"] };
        let (status, out, err) = halley(&data, &args, &[]);
        let worked = out.lines().filter(|l| l.contains("signed in as")).count();
        sweep.check(worked == checked - usize::from(lost.is_some()), || {
            format!("{worked} accounts work after a kill at {point:?}: {out}{err}")
        });
        match &lost {
            None => sweep.check(status.success(), || format!("auth check after a kill at {point:?}: {err}")),
            Some(name) => sweep.check(
                status.code() == Some(1)
                    && err.contains(&format!("the account `{name}` needs reconnecting"))
                    && err.contains("halley auth connect"),
                || format!("the lost refresh of {name} after a kill at {point:?}: {status:?} {err}"),
            ),
        }
        let marked = count(&data, "SELECT COUNT(*) FROM oauth_accounts WHERE status = 'needs_reconnect'");
        sweep.check(marked == i64::from(lost.is_some()), || format!("{marked} accounts to reconnect after {point:?}"));
        if let Some(name) = lost {
            // Its grant is gone at the provider: the user connects it again
            // (into the template, for the next kills).
            let (who, _) = accounts.iter().find(|(_, n)| *n == name).unwrap();
            rt.block_on(connect_account(&h, &server.issuer, who));
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    // After all the kills, every account still works.
    let last = work.join("last");
    copy_dir(&template, &last);
    let (status, out, err) = halley(&last, &["auth", "check", "--all"], &[]);
    let worked = out.lines().filter(|l| l.contains("signed in as")).count();
    sweep.check(status.success() && worked == accounts.len(), || format!("after the sweep: {out}{err}"));
    sweep.report();
    assert!(sweep.kills > 0);
}

// ------------------------------------------------ (e) a routine's replay

/// (e) A routine's replay with an approved order (`halley routine run` on
/// a terminal answered yes), killed at its chosen points, then replayed
/// again as the user would: the form is never POSTed twice on its own. A
/// replay cut during the order step (or after an approval) is reported
/// and refused until `--after-interrupted`; one cut earlier is done again.
#[test]
fn crash_points_routine_replay_with_an_order() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let work = h.tmp.path().join("kills");
    crate::suite::routine::record_order(&h, &site);
    let template = h.data_dir();
    let replay = |data: &Path, extra: &[&str], env: &[(&str, String)]| {
        let mut args: Vec<String> = ["--data-dir", &path(data), "--headless", "routine", "run", "đặt hàng", "--json"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        // A terminal for the order's question, answered yes.
        in_terminal(args, env, 2)
    };

    let (counting, log) = counting_copy(&template, &work);
    let posts = site.posts().len();
    let (status, out) = replay(&counting, &[], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{status:?} {out}");
    assert_eq!(site.posts().len(), posts + 1, "the approved replay orders once: {out}");
    let points = read_points(&log);
    let order = points.iter().find(|p| p.name == "before side effect: tool browser_click").unwrap().n;
    let mut sweep = Sweep::new("routine replay + order", points.len());

    for point in chosen(&points, 6, "browser_click") {
        let data = kill_copy(&template, &work, &point);
        let posts = site.posts().len();
        let (status, out) = replay(&data, &[], &[("HALLEY_CRASH_AT", point.n.to_string())]);
        sweep.check(status.code() == Some(137), || format!("point {point:?} did not kill: {status:?} {out}"));
        sweep.killed(&point);
        kill_left_behind(&data);
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let killed_sent = site.posts().len() - posts;
        sweep.check(killed_sent <= 1, || format!("the killed replay POSTed {killed_sent} times at {point:?}"));

        // The user replays again, without saying they checked anything.
        let (status, again) = replay(&data, &[], &[]);
        let sent = site.posts().len() - posts;
        sweep.check(sent <= 1, || format!("the order was POSTed {sent} times after a kill at {point:?}: {again}"));
        if status.success() {
            sweep.check(sent == 1, || format!("a completed replay after {point:?} sent {sent}: {again}"));
        } else {
            // Refused: the cut replay is reported, naming its order step.
            sweep.check(again.contains("[cancelled]") && again.contains("after step 3 (browser_click"), || {
                format!("after a kill at {point:?} the replay neither ran nor said why: {again}")
            });
            sweep.check(sent == killed_sent, || format!("the refused replay sent something after {point:?}"));
            // The user checked: told so, the routine replays.
            let (status, checked) = replay(&data, &["--after-interrupted"], &[]);
            sweep.check(status.success(), || format!("--after-interrupted after {point:?}: {checked}"));
        }
        if point.n < order {
            // Killed before the order left: nothing of it reached the site.
            sweep.check(killed_sent == 0, || format!("POSTed before its side effect point {point:?}"));
        }
        let unsettled = count(&data, "SELECT COUNT(*) FROM routine_replays WHERE status = 'running'");
        sweep.check(unsettled == 0, || format!("{unsettled} replays left running after {point:?}"));
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
}
