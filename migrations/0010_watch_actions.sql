-- The buttons of a watch alert's notification (notify.rs, watch/actions.rs):
-- which notification showed the alert (the daemon's id and its unique bus
-- name: ids are the daemon's own), the button pressed, once; and a
-- watch's snooze (its alerts reach the inbox only until then).
ALTER TABLE watch_alerts ADD COLUMN notification_id INTEGER;
ALTER TABLE watch_alerts ADD COLUMN notify_daemon TEXT;
ALTER TABLE watch_alerts ADD COLUMN action TEXT CHECK (action IS NULL OR action IN ('open', 'snooze', 'stop'));
ALTER TABLE watch_alerts ADD COLUMN action_at TEXT;
CREATE INDEX watch_alerts_notification ON watch_alerts (notify_daemon, notification_id)
    WHERE notification_id IS NOT NULL;
ALTER TABLE watches ADD COLUMN snoozed_until TEXT;
