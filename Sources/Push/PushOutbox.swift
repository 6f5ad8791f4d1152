import APNsFormat
import Postgres

/// The outbox in PostgreSQL (`push_outbox`, Migrations/Push/0020_push.sql; its payloads once each in `push_payloads`, 0024): features enqueue, every replica claims what is
/// due under a lease and records what APNs answered. The statements are here and nowhere else.
public final class PushOutbox: Sendable {
    /// What one round recorded, by what APNs answered.
    public struct Recorded: Sendable, Equatable {
        public var delivered = 0
        public var retried = 0
        public var failed = 0
        public var rejected = 0
        public var devicesRemoved = 0
    }

    /// The outbox at a glance (metrics, `/health`).
    public struct Depth: Sendable, Equatable {
        public var pending: Int
        /// Seconds since the oldest pending push was enqueued (0 when none is).
        public var oldestPendingAge: Double
        public var devices: Int
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Adds `messages`; one whose key the device already has (pending or done) is left out. Returns how many were added.
    @discardableResult
    public func enqueue(_ messages: [PushMessage]) async throws -> Int {
        guard !messages.isEmpty else { return 0 }
        let payloads = Array(Set(messages.map(\.payload)))
        let number = Dictionary(uniqueKeysWithValues: payloads.enumerated().map { ($0.element, String($0.offset + 1)) })
        return try await pool.transaction { connection in
            try Self.enqueue(
                payloads: payloads,
                selecting: """
                    SELECT m.device, m.key, m.payload, m.collapse, to_timestamp(m.expires), m.priority
                    FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::float8[], $6::int[]) AS m (device, key, payload, collapse, expires, priority)
                    """,
                [
                    PostgresArray.literal(messages.map(\.deviceID)), PostgresArray.literal(messages.map(\.key)),
                    PostgresArray.literal(messages.map { number[$0.payload] ?? "" }), PostgresArray.literal(messages.map(\.collapseID)),
                    PostgresArray.literal(messages.map { String($0.expiresAt) }), PostgresArray.literal(messages.map { String($0.priority) }),
                ],
                on: connection)
        }
    }

    /// Adds the pushes a feature's query selects, in the feature's transaction — for a fan-out to many devices, which
    /// never leaves PostgreSQL. `select` yields, in this order: the device id, the push's key, which of `payloads` it
    /// sends (1 for the first), the collapse id, when it expires (timestamptz) and its priority; a key the device already
    /// has is left out. Each payload is stored once (`push_payloads`) and the rows name it: a warning's three payloads
    /// carried as text through 100,000 rows made a third of the enqueue's time (hashed, joined, spilled to disk).
    /// `payloads` is the parameter after `parameters`. Returns how many were added.
    /// `with` (`WITH a AS (…), b AS (…)`) goes before the insert: PostgreSQL takes a data-modifying `WITH` only there.
    public static func enqueue(
        with: String = "", payloads: [String], selecting select: String, _ parameters: [any PostgresEncodable], on connection: PostgresConnection
    ) throws -> Int {
        let bodies = "$\(parameters.count + 1)::text[]"
        let pushes = "pushes (device_id, push_key, payload, collapse_id, expires_at, priority) AS (\(select))"
        let added = try connection.execute(
            """
            \(with.isEmpty ? "WITH" : with + ",") \(pushes),
            bodies AS (
                INSERT INTO push_payloads (digest, body) SELECT DISTINCT sha256(convert_to(body, 'UTF8')), body FROM unnest(\(bodies)) AS d (body)
                WHERE EXISTS (SELECT 1 FROM pushes)
                ON CONFLICT (digest) DO UPDATE SET used_at = now()
                RETURNING id, body
            ),
            numbered AS (SELECT b.id, d.n FROM unnest(\(bodies)) WITH ORDINALITY AS d (body, n) JOIN bodies b ON b.body = d.body)
            INSERT INTO push_outbox (device_id, push_key, payload_id, collapse_id, expires_at, priority)
            SELECT p.device_id, p.push_key, n.id, p.collapse_id, p.expires_at, p.priority FROM pushes p JOIN numbered n ON n.n = p.payload
            ON CONFLICT (device_id, push_key) DO NOTHING
            """,
            parameters + [PostgresArray.literal(payloads)])
        if added >= analyzeAbove {
            // Fresh statistics before the first claim: planned with the outbox's old ones (a few rows pending), the
            // claim read and sorted every pending row on disk for each batch (46 of its 53 ms at 100,000) instead of
            // reading the first ones from the due index; autovacuum would see the change only after a minute.
            // In this transaction: ANALYZE counts the rows its own transaction inserted.
            try connection.execute("ANALYZE push_outbox")
        }
        return added
    }

    /// Pushes added at once from which the outbox's statistics are refreshed in the same transaction.
    static let analyzeAbove = 5_000

    /// Claims at most `limit` due pushes for `lease` (no other replica takes them before it ends), after marking those
    /// whose time passed as expired.
    public func claim(limit: Int, lease: Duration) async throws -> [ClaimedPush] {
        let seconds = Double(lease.components.seconds)
        return try await pool.transaction { connection in
            try connection.execute(
                "UPDATE push_outbox SET state = 'expired', finished_at = now(), leased_until = NULL WHERE state = 'pending' AND expires_at <= now()")
            return try connection.query(
                """
                WITH due AS (
                    SELECT id FROM push_outbox
                    WHERE state = 'pending' AND due_at <= now() AND (leased_until IS NULL OR leased_until <= now())
                    ORDER BY due_at, id
                    LIMIT $1
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE push_outbox AS o
                SET leased_until = now() + make_interval(secs => $2), attempts = o.attempts + 1
                FROM due, push_devices AS d, push_payloads AS b
                WHERE o.id = due.id AND d.id = o.device_id AND b.id = o.payload_id
                RETURNING o.id, o.device_id::text AS device, d.app, d.token, d.environment, b.body AS payload, o.collapse_id,
                    extract(epoch FROM o.expires_at)::bigint AS expires, o.priority, o.push_type, o.attempts
                """, [limit, seconds]
            ).map { row in
                ClaimedPush(
                    id: try row.decode(Int64.self, "id"), deviceID: try row.decode(String.self, "device"), app: try row.decode(String.self, "app"),
                    attempts: try row.decode(Int.self, "attempts"),
                    notification: APNsNotification(
                        deviceToken: try row.decode(String.self, "token"),
                        environment: APNsEnvironment(rawValue: try row.decode(String.self, "environment")) ?? .production,
                        payload: Array(try row.decode(String.self, "payload").utf8), collapseID: try row.decode(String?.self, "collapse_id"),
                        expiration: try row.decode(Int64.self, "expires"), priority: try row.decode(Int.self, "priority"),
                        pushType: try row.decode(String.self, "push_type")))
            }
        }
    }

    /// Records what APNs answered for claimed pushes, in one transaction: delivered and refused ones are done; one to
    /// retry is due again after `backoff` (or failed after `maximumAttempts`); a device whose token is gone is deleted
    /// with its pushes — unless it registered again after the moment APNs gave for a `410`.
    public func record(
        _ outcomes: [(push: ClaimedPush, result: APNsResult)], backoff: RetryBackoff, maximumAttempts: Int,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) async throws -> Recorded {
        guard !outcomes.isEmpty else { return Recorded() }
        var recorded = Recorded()
        var deliveredList: [Int64] = []
        var finishedList: [(id: Int64, state: String, reason: String)] = []
        var retriesList: [(id: Int64, delay: Double, reason: String)] = []
        var goneList: [(device: String, since: Double?)] = []
        for (push, result) in outcomes {
            switch result {
            case .delivered:
                deliveredList.append(push.id)
                recorded.delivered += 1
            case .retry(_, let reason):
                if push.attempts >= maximumAttempts {
                    finishedList.append((push.id, "failed", reason))
                    recorded.failed += 1
                } else {
                    retriesList.append((push.id, backoff.delay(afterAttempt: push.attempts, random: random()), reason))
                    recorded.retried += 1
                }
            case .rejected(_, let reason):
                finishedList.append((push.id, "rejected", reason))
                recorded.rejected += 1
            case .deviceGone(_, let reason, let since):
                finishedList.append((push.id, "rejected", reason))
                goneList.append((push.deviceID, since.map { Double($0) / 1000 }))
                recorded.rejected += 1
            }
        }
        let (delivered, finished, retries, gone) = (deliveredList, finishedList, retriesList, goneList)
        let removed = try await pool.transaction { connection -> Int in
            if !delivered.isEmpty {
                try connection.execute(
                    "UPDATE push_outbox SET state = 'delivered', finished_at = now(), leased_until = NULL, last_reason = NULL WHERE id = ANY($1::bigint[])",
                    [PostgresArray.literal(delivered.map(String.init))])
            }
            if !finished.isEmpty {
                try connection.execute(
                    """
                    UPDATE push_outbox AS o SET state = f.state, last_reason = f.reason, finished_at = now(), leased_until = NULL
                    FROM unnest($1::bigint[], $2::text[], $3::text[]) AS f(id, state, reason) WHERE o.id = f.id
                    """,
                    [PostgresArray.literal(finished.map { String($0.id) }), PostgresArray.literal(finished.map(\.state)), PostgresArray.literal(finished.map(\.reason))])
            }
            if !retries.isEmpty {
                try connection.execute(
                    """
                    UPDATE push_outbox AS o SET due_at = now() + make_interval(secs => r.delay), leased_until = NULL, last_reason = r.reason
                    FROM unnest($1::bigint[], $2::float8[], $3::text[]) AS r(id, delay, reason) WHERE o.id = r.id
                    """,
                    [PostgresArray.literal(retries.map { String($0.id) }), PostgresArray.literal(retries.map { String($0.delay) }), PostgresArray.literal(retries.map(\.reason))])
            }
            guard !gone.isEmpty else { return 0 }
            return try connection.execute(
                """
                DELETE FROM push_devices AS d USING unnest($1::uuid[], $2::float8[]) AS g(id, since)
                WHERE d.id = g.id AND (g.since IS NULL OR d.seen_at <= to_timestamp(g.since))
                """,
                [PostgresArray.literal(gone.map(\.device)), PostgresArray.literal(gone.map { $0.since.map { String($0) } })])
        }
        recorded.devicesRemoved = removed
        return recorded
    }

    public func depth() async throws -> Depth {
        let row = try await pool.query(
            """
            SELECT (SELECT count(*) FROM push_outbox WHERE state = 'pending') AS pending,
                COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM push_outbox WHERE state = 'pending'), 0)::float8 AS age,
                (SELECT count(*) FROM push_devices) AS devices
            """)[0]
        return Depth(pending: try row.decode(Int.self, "pending"), oldestPendingAge: try row.decode(Double.self, "age"), devices: try row.decode(Int.self, "devices"))
    }

    /// Deletes devices not seen for `deviceRetention` (with their pushes) and finished pushes older than `keep`.
    @discardableResult
    public func prune(deviceRetention: Duration, keep: Duration) async throws -> (devices: Int, pushes: Int) {
        try await pool.transaction { connection in
            let devices = try connection.execute(
                "DELETE FROM push_devices WHERE seen_at < now() - make_interval(secs => $1)", [Double(deviceRetention.components.seconds)])
            let pushes = try connection.execute(
                "DELETE FROM push_outbox WHERE state <> 'pending' AND finished_at < now() - make_interval(secs => $1)", [Double(keep.components.seconds)])
            try connection.execute(
                """
                DELETE FROM push_payloads AS b WHERE b.used_at < now() - make_interval(secs => $1)
                    AND NOT EXISTS (SELECT 1 FROM push_outbox AS o WHERE o.payload_id = b.id)
                """, [Double(keep.components.seconds)])
            return (devices, pushes)
        }
    }
}
