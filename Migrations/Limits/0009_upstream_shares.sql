-- Each client group's use of an upstream's day (docs/operations.md, "Fair shares"): a request that spends quota
-- counts against every group its address belongs to (an IPv4 address and its /24; an IPv6 /64, /56 and /48), and
-- no group may pass its share of the day. `client_group` is the group in CIDR text (`203.0.113.0/24`). Rows are
-- written only when a call spends quota, so a day holds at most three rows per call the quota allows; the
-- counting code deletes rows older than yesterday.
CREATE TABLE upstream_share (
    upstream     text    NOT NULL,
    day          date    NOT NULL,
    client_group text    NOT NULL,
    used         integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (upstream, day, client_group)
);

-- Takes `p_units` of an upstream's day for a call counted against `p_groups`: all of it or nothing. Granted
-- only while the day's count stays within `p_limit` (the whole quota, or the part outside the reserve) and each
-- group's within its limit. The day's row is locked first, so every taker of one upstream queues on it and
-- concurrent replicas can never pass a limit together. Answers whether it was granted, the day's count, the
-- (1-based) position of the first group whose share was spent, and each checked group's count.
CREATE FUNCTION pier_take_quota(p_upstream text, p_day date, p_units integer, p_limit integer,
                                p_groups text[], p_group_limits integer[])
RETURNS TABLE (granted boolean, day_used integer, spent_group integer, group_used integer[])
LANGUAGE plpgsql AS $$
DECLARE
    total integer;
    counted integer;
    counts integer[] := '{}';
BEGIN
    INSERT INTO upstream_quota (upstream, day, used) VALUES (p_upstream, p_day, 0) ON CONFLICT DO NOTHING;
    SELECT q.used INTO total FROM upstream_quota q WHERE q.upstream = p_upstream AND q.day = p_day FOR UPDATE;
    FOR i IN 1 .. coalesce(array_length(p_groups, 1), 0) LOOP
        SELECT s.used INTO counted FROM upstream_share s
        WHERE s.upstream = p_upstream AND s.day = p_day AND s.client_group = p_groups[i];
        counts := counts || coalesce(counted, 0);
        IF coalesce(counted, 0) + p_units > p_group_limits[i] THEN
            RETURN QUERY SELECT false, total, i, counts;
            RETURN;
        END IF;
    END LOOP;
    IF total + p_units > p_limit THEN
        RETURN QUERY SELECT false, total, NULL::integer, counts;
        RETURN;
    END IF;
    UPDATE upstream_quota q SET used = q.used + p_units WHERE q.upstream = p_upstream AND q.day = p_day;
    INSERT INTO upstream_share AS s (upstream, day, client_group, used)
    SELECT p_upstream, p_day, g, p_units FROM unnest(p_groups) AS g
    ON CONFLICT (upstream, day, client_group) DO UPDATE SET used = s.used + p_units;
    RETURN QUERY SELECT true, total + p_units, NULL::integer, array(SELECT c + p_units FROM unnest(counts) WITH ORDINALITY AS t (c, n) ORDER BY n);
END
$$;
