//! The watch tools (`watch_create`, `watch_poll`, `watch_list`,
//! `watch_pause`, `watch_resume`, `watch_update`, `watch_delete`,
//! `watch_history`) and `notify_send`, over `crate::watch` and the store.

use std::collections::BTreeMap;

use std::sync::Arc;

use crate::builtin::handle;
use crate::error::{Error, ErrorCode, Result};
use crate::handler::{FnHandler, Handler, Invocation, RunFn, Services, to_output};
use crate::store::watch_alerts::{AlertChannel, AlertRow, NewAlert};
use crate::store::watch_observations::ObservationRow;
use crate::store::watches::{NewWatch, WatchEdit, WatchRow, WatchStatus, add_secs};
use crate::store::{new_id, now};
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::tools::catalogue::data::{
    NotifyChannel, NotifySendArgs, NotifySendOutput, TriggerRule, WatchCreateArgs, WatchCreateOutput, WatchPollArgs,
    WatchPollOutput, WatchWindow,
};
use crate::tools::catalogue::watches::{
    WatchAlert, WatchDeleteOutput, WatchHistoryArgs, WatchHistoryOutput, WatchIdArgs, WatchListArgs, WatchListOutput,
    WatchObservation, WatchSummary, WatchUpdateArgs,
};
use crate::watch::rules::{Reading, check_rule};
use crate::watch::{self, check_url, normalize_time, parse_period, period_text, wants_price};

/// The default cooldown between two alerts of a watch.
const DEFAULT_COOLDOWN: &str = "1h";

fn check_rules(rules: &[TriggerRule]) -> Result<()> {
    if rules.is_empty() {
        return Err(Error::invalid_arguments("a watch needs at least one trigger rule"));
    }
    rules.iter().try_for_each(check_rule)
}

fn check_schema(schema: &BTreeMap<String, ExtractFieldType>) -> Result<()> {
    for name in schema.keys() {
        if name.trim().is_empty() || name.len() > 60 {
            return Err(Error::invalid_arguments(format!("bad field name {name:?} in `target.schema`")));
        }
    }
    Ok(())
}

fn window_of(w: Option<&WatchWindow>) -> Result<(Option<String>, Option<String>)> {
    let Some(w) = w else { return Ok((None, None)) };
    let start = w.start.as_deref().map(normalize_time).transpose()?;
    let end = w.end.as_deref().map(normalize_time).transpose()?;
    if let (Some(s), Some(e)) = (&start, &end)
        && s >= e
    {
        return Err(Error::invalid_arguments("the window's `end` must come after its `start`"));
    }
    Ok((start, end))
}

fn kind_of(rules: &[TriggerRule], schema: &BTreeMap<String, ExtractFieldType>) -> &'static str {
    if wants_price(rules, schema) { "price" } else { "fields" }
}

/// Validates `watch_create`'s arguments into a new watch (nothing written).
pub fn new_watch(args: &WatchCreateArgs) -> Result<NewWatch> {
    check_url(&args.target.url)?;
    let frequency_secs = parse_period(&args.frequency, false)?;
    let cooldown_secs = parse_period(args.cooldown.as_deref().unwrap_or(DEFAULT_COOLDOWN), true)?;
    check_rules(&args.trigger_rules)?;
    check_schema(&args.target.schema)?;
    let (window_start, window_end) = window_of(args.window.as_ref())?;
    let selector = args.target.selector.clone().filter(|s| !s.trim().is_empty());
    let at = now();
    let first = match &window_start {
        Some(s) if *s > at => s.clone(),
        _ => at,
    };
    Ok(NewWatch {
        kind: kind_of(&args.trigger_rules, &args.target.schema).to_owned(),
        title: args.label.clone().unwrap_or_default().trim().to_owned(),
        target_url: args.target.url.clone(),
        selector,
        trigger_rules: serde_json::to_value(&args.trigger_rules)
            .map_err(|e| Error::internal("cannot store rules").with_source(e))?,
        frequency_secs,
        first_check_at: Some(first),
        schema: serde_json::to_value(&args.target.schema)
            .map_err(|e| Error::internal("cannot store a schema").with_source(e))?,
        window_start,
        window_end,
        cooldown_secs,
    })
}

/// How long a watch being created and checked at once is left to that
/// check before a scheduler pass may check it too (a crash in between
/// delays its first check that much).
const FIRST_CHECK_GRACE_SECS: i64 = 120;

/// `watch_create`.
pub async fn create(ctx: &Services, args: WatchCreateArgs) -> Result<WatchCreateOutput> {
    let mut new = new_watch(&args)?;
    let at = now();
    let check_now = args.check_now.unwrap_or(true) && new.window_start.as_deref().is_none_or(|s| *s <= *at);
    if check_now {
        // This call makes the first check: not due before it is done.
        new.first_check_at = Some(add_secs(&at, FIRST_CHECK_GRACE_SECS)?);
    }
    let row = ctx.store.watches().create(&new).await?;
    let check = if check_now { Some(watch::check_watch(ctx, &row).await?) } else { None };
    let row = watch::get_watch(&ctx.store, &row.id).await?;
    Ok(WatchCreateOutput {
        watch_id: row.id.clone(),
        current_value: check.as_ref().and_then(|c| c.value.clone()),
        next_check_at: row.next_check_at.clone(),
        check,
    })
}

/// `watch_poll`.
pub async fn poll(ctx: &Services, args: WatchPollArgs) -> Result<WatchPollOutput> {
    watch::poll(ctx, &args).await
}

/// A watch as the tools show it.
pub fn summary(row: &WatchRow) -> WatchSummary {
    let reading: Option<Reading> = row.last_value.clone().and_then(|v| serde_json::from_value(v).ok());
    let window = (row.window_start.is_some() || row.window_end.is_some())
        .then(|| WatchWindow { start: row.window_start.clone(), end: row.window_end.clone() });
    WatchSummary {
        watch_id: row.id.clone(),
        label: row.title.clone(),
        name: reading.as_ref().and_then(|r| r.name.clone()).filter(|n| !n.trim().is_empty()),
        url: row.target_url.clone(),
        selector: row.selector.clone(),
        schema: serde_json::from_value(row.schema.clone()).unwrap_or_default(),
        trigger_rules: serde_json::from_value(row.trigger_rules.clone()).unwrap_or_default(),
        frequency: period_text(row.frequency_secs),
        cooldown: period_text(row.cooldown_secs),
        window,
        status: match row.status {
            WatchStatus::Active => "active",
            WatchStatus::Paused => "paused",
            WatchStatus::Deleted => "deleted",
        }
        .to_owned(),
        health: row.health,
        last_error: row.last_error.clone(),
        check_method: row.check_method.clone(),
        last_checked_at: row.last_checked_at.clone(),
        next_check_at: row.next_check_at.clone(),
        price: reading.as_ref().and_then(|r| r.price),
        currency: reading.as_ref().and_then(|r| r.currency.clone()).or_else(|| row.currency.clone()),
        in_stock: reading.as_ref().and_then(|r| r.in_stock),
        fields: reading.map(|r| r.fields).unwrap_or_default(),
        baseline_price: row.baseline_price,
        all_time_low: row.all_time_low,
        last_alerted_price: row.last_alerted_price,
        snoozed_until: row.snoozed_until.clone().filter(|until| *until > now()),
        created_at: row.created_at.clone(),
    }
}

/// `watch_list`.
pub async fn list(ctx: &Services, args: WatchListArgs) -> Result<WatchListOutput> {
    let rows = ctx.store.watches().list(args.limit).await?;
    Ok(WatchListOutput {
        watches: rows.iter().map(summary).collect(),
        unread_alerts: ctx.store.watch_alerts().unread_count().await?,
    })
}

/// `watch_pause` / `watch_resume`.
pub async fn set_active(ctx: &Services, args: WatchIdArgs, active: bool) -> Result<WatchSummary> {
    watch::get_watch(&ctx.store, &args.watch_id).await?;
    let status = if active { WatchStatus::Active } else { WatchStatus::Paused };
    Ok(summary(&ctx.store.watches().set_status(&args.watch_id, status).await?))
}

/// `watch_update`.
pub async fn update(ctx: &Services, args: WatchUpdateArgs) -> Result<WatchSummary> {
    let row = watch::get_watch(&ctx.store, &args.watch_id).await?;
    let mut edit = WatchEdit::default();
    if let Some(rules) = &args.trigger_rules {
        check_rules(rules)?;
        edit.trigger_rules =
            Some(serde_json::to_value(rules).map_err(|e| Error::internal("cannot store rules").with_source(e))?);
    }
    if let Some(f) = &args.frequency {
        edit.frequency_secs = Some(parse_period(f, false)?);
    }
    if let Some(c) = &args.cooldown {
        edit.cooldown_secs = Some(parse_period(c, true)?);
    }
    if let Some(schema) = &args.schema {
        check_schema(schema)?;
        edit.schema =
            Some(serde_json::to_value(schema).map_err(|e| Error::internal("cannot store a schema").with_source(e))?);
    }
    if args.window.is_some() {
        edit.window = Some(window_of(args.window.as_ref())?);
    }
    edit.title = args.label.map(|l| l.trim().to_owned());
    edit.selector = args.selector.map(|s| Some(s).filter(|s| !s.trim().is_empty()));
    let rules: Vec<TriggerRule> = match &args.trigger_rules {
        Some(r) => r.clone(),
        None => serde_json::from_value(row.trigger_rules.clone()).unwrap_or_default(),
    };
    let schema: BTreeMap<String, ExtractFieldType> = match &args.schema {
        Some(s) => s.clone(),
        None => serde_json::from_value(row.schema.clone()).unwrap_or_default(),
    };
    edit.kind = Some(kind_of(&rules, &schema).to_owned());
    Ok(summary(&ctx.store.watches().update(&args.watch_id, &edit).await?))
}

/// `watch_delete` (the gate asked the user before it runs).
pub async fn delete(ctx: &Services, args: WatchIdArgs) -> Result<WatchDeleteOutput> {
    watch::get_watch(&ctx.store, &args.watch_id).await?;
    ctx.store.watches().set_status(&args.watch_id, WatchStatus::Deleted).await?;
    Ok(WatchDeleteOutput { watch_id: args.watch_id, deleted: true })
}

fn observation(o: ObservationRow) -> WatchObservation {
    WatchObservation {
        checked_at: o.observed_at,
        price: o.price,
        currency: o.currency,
        in_stock: o.in_stock,
        value: o.value,
        health: o.health,
        method: o.method,
        fired_rules: serde_json::from_value(o.fired_rules).unwrap_or_default(),
        error: o.error,
    }
}

/// An alert as the inbox shows it.
pub fn alert(a: AlertRow) -> WatchAlert {
    WatchAlert {
        id: a.id,
        watch_id: a.watch_id,
        rule: a.rule,
        title: a.title,
        message: a.body,
        created_at: a.created_at,
        sent_at: a.sent_at,
        read: a.read_at.is_some(),
        action: a.action,
        routine_id: a.routine_id,
    }
}

/// `watch_history`.
pub async fn history(ctx: &Services, args: WatchHistoryArgs) -> Result<WatchHistoryOutput> {
    let row = watch::get_watch(&ctx.store, &args.watch_id).await?;
    let observations = ctx.store.watch_observations().for_watch(&row.id, args.limit).await?;
    let alerts = ctx.store.watch_alerts().list(Some(&row.id), args.limit).await?;
    Ok(WatchHistoryOutput {
        watch: summary(&row),
        observations: observations.into_iter().map(observation).collect(),
        alerts: alerts.into_iter().map(alert).collect(),
    })
}

/// `notify_send`: recorded in the inbox; `push` also as a native notification.
pub async fn notify_send(ctx: &Services, args: NotifySendArgs) -> Result<NotifySendOutput> {
    let channel = match args.channel {
        NotifyChannel::Push => AlertChannel::Push,
        NotifyChannel::InApp => AlertChannel::InApp,
        NotifyChannel::Email => {
            return Err(Error::new(
                ErrorCode::NotAvailable,
                "e-mail notifications are not available; use `push` (a desktop notification) or `in-app`",
            ));
        }
    };
    if let Some(url) = &args.url {
        check_url(url)?;
    }
    let id = new_id("notification");
    let row = ctx
        .store
        .watch_alerts()
        .insert(&NewAlert {
            watch_id: None,
            rule: "notify".into(),
            value: id.clone(),
            title: args.title.clone(),
            body: args.message.clone(),
            url: args.url.clone(),
            channel,
            routine_id: None,
        })
        .await?
        .ok_or_else(|| Error::internal("the notification was recorded twice"))?;
    let delivered = match channel {
        AlertChannel::InApp => true,
        // Claimed first, so a pass sending pending alerts meanwhile does not send it too.
        AlertChannel::Push => {
            crate::notify::deliver(&ctx.store, vec![row.clone()]).await?.recorded.await.unwrap_or(0) == 1
        }
    };
    Ok(NotifySendOutput { notification_id: row.id.to_string(), delivered })
}

/// The watch tools' handlers, by tool name.
pub fn handlers() -> Vec<(String, Arc<dyn Handler>)> {
    let all: Vec<(&str, Arc<dyn Handler>)> = vec![
        ("watch_create", handle!(|c| to_output(&create(c.services, c.parse()?).await?))),
        ("watch_poll", handle!(|c| to_output(&poll(c.services, c.parse()?).await?))),
        ("watch_list", handle!(|c| to_output(&list(c.services, c.parse()?).await?))),
        ("watch_pause", handle!(|c| to_output(&set_active(c.services, c.parse()?, false).await?))),
        ("watch_resume", handle!(|c| to_output(&set_active(c.services, c.parse()?, true).await?))),
        ("watch_update", handle!(|c| to_output(&update(c.services, c.parse()?).await?))),
        ("watch_delete", handle!(|c| to_output(&delete(c.services, c.parse()?).await?))),
        ("watch_history", handle!(|c| to_output(&history(c.services, c.parse()?).await?))),
        ("notify_send", handle!(|c| to_output(&notify_send(c.services, c.parse()?).await?))),
    ];
    all.into_iter().map(|(name, handler)| (name.to_owned(), handler)).collect()
}
