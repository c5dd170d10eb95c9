-- A routine scheduled at a time of day (`halley routine schedule NAME
-- --every 1d --at 08:00`, the panel's "at" field): `HH:MM` in the
-- computer's local time. Its replays fall on that time, each next run the
-- last one's plus the period (missed ones skipped), so the time of day does
-- not drift with the scheduler's ticks. NULL: due at once, then every
-- period from the last claim.
ALTER TABLE routine_schedules ADD COLUMN at_time TEXT
    CHECK (at_time IS NULL OR (length(at_time) = 5 AND substr(at_time, 3, 1) = ':'));
