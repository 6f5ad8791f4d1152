import APNsFormat
import Foundation
import Metrics
import Postgres
import PostgRESTFormat
import Push

/// The five tables' reads and writes in PostgreSQL, each as the app's row-level security meant it and tighter: a caller
/// reads, writes and deletes only their own rows (check-ins too: other riders are seen only as counts and names, through
/// ``CheckinCounts``); a row for another user is refused; the lake levels are Pier's own and the app's writes change
/// nothing. Every write is one transaction.
final class CommunityStore: Sendable {
    struct Limits: Sendable {
        var checkinsPerUser: Int
        var checkinHorizonDays: Int
        var apnsEnvironment: APNsEnvironment
        /// What a rider's verified sessions may number (the per-day and overall bounds refuse writes past them).
        var rides = RideBounds()
        /// Devices one user keeps (an old phone's token goes when the eleventh comes).
        var devicesPerUser = Self.devicesPerUser
        static let devicesPerUser = 10
    }

    /// What a read or a write answers: the rows as JSON (an array) and how many; with `Prefer: count=exact`, how many
    /// the filters match before `limit` and `offset`.
    struct Rows: Sendable, Equatable {
        var body: String
        var count: Int
        var total: Int? = nil
    }

    private let pool: PostgresPool
    private let limits: Limits
    /// Told after what memory holds answers of changed (counts, boards, figures).
    private let changed: @Sendable (CommunityChange) -> Void
    /// Writes refused for a bound on what a rider holds, by bound.
    private let refused: [Bound: Counter]

    init(pool: PostgresPool, limits: Limits, metrics: MetricsRegistry? = nil, changed: @escaping @Sendable (CommunityChange) -> Void = { _ in }) {
        self.pool = pool
        self.limits = limits
        self.changed = changed
        refused = Dictionary(uniqueKeysWithValues: Bound.allCases.compactMap { bound in
            metrics.map {
                (bound, $0.counter(
                    "pier_nextwave_bounds_refused_total", help: "Next Wave community writes refused for a bound on what one rider holds, by bound.",
                    labels: [("bound", bound.rawValue)]))
            }
        })
    }

    /// The bounds on what one rider holds.
    enum Bound: String, CaseIterable {
        case checkins
        case verifiedPerDay = "verified_per_day"
        case verifiedInAll = "verified_in_all"
    }

    /// A write past `bound`, counted; thrown inside the transaction, so nothing of it is stored.
    private func refusal(_ bound: Bound, _ message: String) -> PostgRESTError {
        refused[bound]?.increment()
        return PostgRESTError(status: 400, code: "P0001", message: message)
    }

    /// The rows `query` names of `table` (the caller's own where the table is per user); `countExact` counts them all
    /// too, past the limit (a bounded count: a caller reads only their own rows or a small public table).
    func read(_ table: CommunityTable, _ query: PostgRESTQuery, user: String?, countExact: Bool = false) async throws -> Rows {
        var sql = CommunitySQL(table: table)
        let select = try sql.selectList(query.select)
        guard let conditions = try sql.conditions(query, user: user) else { return Rows(body: "[]", count: 0, total: countExact ? 0 : nil) }
        let total = countExact ? ", (SELECT count(*) FROM \(table.source) WHERE \(conditions))::int AS total" : ""
        let statement = CommunitySQL.aggregate("SELECT \(select) FROM \(table.source) WHERE \(conditions)\(try sql.tail(query))", also: total)
        let row = try await pool.query(statement, sql.parameters)[0]
        return Rows(
            body: try row.decode(String.self, "body"), count: try row.decode(Int.self, "rows"),
            total: countExact ? try row.decode(Int.self, "total") : nil)
    }

    /// Inserts `body`'s rows for `user` (merging or ignoring those whose key exists, as `resolution` says); returns the
    /// rows written as `select` reads them.
    ///
    /// `shape` `.object` (PostgREST's singular media type): anything but exactly one row written is refused and undone.
    func write(
        _ table: CommunityTable, _ body: PostgRESTRows, user: String, resolution: PostgRESTPreference.Resolution?, select: [String]?,
        shape: PostgRESTShape = .array
    ) async throws -> Rows {
        var body = body
        for column in body.columns {
            guard let known = table.column(column) else {
                throw PostgRESTError(status: 400, code: "PGRST204", message: "Could not find the '\(column.prefix(64))' column of '\(table.name)' in the schema cache")
            }
            guard known.writable else { throw PostgRESTError(status: 400, code: "428C9", message: "column \"\(column)\" can only be updated to DEFAULT") }
        }
        // Row-level security as the app's tables had it: a row is the caller's own.
        if table.owner != nil {
            guard let owners = body.values("user_id"), owners.allSatisfy({ $0.text?.lowercased() == user }) else { throw PostgRESTError.forbidden(table: table.name) }
        }
        if let names = body.values("display_name") { body.set("display_name", try names.map(DisplayName.normalized)) }
        let merging: Bool
        switch table.writes {
        case .ignored:
            // Pier records the levels itself; nothing a phone sends rewrites a lake's history.
            return Rows(body: "[]", count: 0)
        case .devices:
            return try await writeDevices(body, user: user, select: select, shape: shape)
        case .rows(let allowed):
            merging = allowed && resolution == .mergeDuplicates
        }
        var sql = CommunitySQL(table: table)
        let select = try sql.selectList(select)
        let typed = body.columns.map { column in "\(sql.parameter(PostgresArray.literal(body.values(column)?.map(\.text) ?? [])))::\(table.column(column)?.type ?? "text")[]" }
        let columns = body.columns.joined(separator: ", ")
        var statement = "INSERT INTO \(table.source) (\(columns)) SELECT * FROM unnest(\(typed.joined(separator: ", ")))"
        if resolution != nil {
            let updates = body.columns.filter { !table.key.contains($0) }
            if merging && !updates.isEmpty {
                let touch = table.column("updated_at") != nil ? ", updated_at = now()" : ""
                statement += " ON CONFLICT (\(table.key.joined(separator: ", "))) DO UPDATE SET "
                    + updates.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ") + touch
            } else {
                statement += " ON CONFLICT (\(table.key.joined(separator: ", "))) DO NOTHING"
            }
        }
        let held = table.held
        // A departure in the past, or further ahead than the horizon, is refused (checking in after the ship left would
        // credit a ride nobody announced): read from the rows written, and undone with them. Verified sessions: the
        // days they were ridden on, for the bounds.
        let also = switch held {
        case .checkins?:
            ", (SELECT coalesce(bool_and(departure_at >= now() - interval '10 minutes' AND departure_at <= now() + make_interval(days => \(limits.checkinHorizonDays))), true) FROM w) AS in_horizon"
        case .rides?:
            ", (SELECT coalesce(array_agg(DISTINCT \(RideBounds.day(RideBounds.verifiedStart))), '{}')::text FROM w) AS days"
        case .names?, nil: ""
        }
        let change = held.map { Self.change($0, user: user) }
        let written = "WITH w AS (\(statement) RETURNING *) " + CommunitySQL.aggregate("SELECT \(select) FROM w", also: also)
        let (parameters, limits) = (sql.parameters, limits)
        let rows = try await pool.transaction { connection in
            let row = try connection.query(written, parameters)[0]
            let count = try row.decode(Int.self, "rows")
            if held == .checkins {
                guard try row.decode(Bool.self, "in_horizon") else {
                    throw PostgRESTError(status: 400, code: "23514", message: "departure_at must lie between now and \(limits.checkinHorizonDays) days ahead")
                }
                // Every check-in not yet archived counts, a departed one too: the archive makes each a ride.
                let held = try connection.query("SELECT count(*)::int AS n FROM nextwave_checkins WHERE user_id = $1::uuid", [user])[0]
                guard try held.decode(Int.self, "n") <= limits.checkinsPerUser else {
                    throw self.refusal(.checkins, "a rider holds at most \(limits.checkinsPerUser) check-ins until they are archived")
                }
            }
            if shape == .object && count != 1 { throw PostgRESTError.notSingular(count) }
            if held == .rides && count > 0 { try self.checkVerified(of: user, days: row.decode(String.self, "days"), on: connection) }
            if count > 0, let change { try change.announce(on: connection) }
            return Rows(body: try row.decode(String.self, "body"), count: count)
        }
        if rows.count > 0, let change { changed(change) }
        return rows
    }

    /// The change a write by `user` to a table whose writes change `held` makes.
    private static func change(_ held: CommunityTable.Held, user: String) -> CommunityChange {
        switch held {
        case .checkins: .checkins
        case .rides: .history([user])
        case .names: .names
        }
    }

    /// Refuses verified sessions past the bounds: on the days just written, and in all. Rows stored before (an import)
    /// stay; a rider already past a bound writes no more there.
    private func checkVerified(of user: String, days: String, on connection: PostgresConnection) throws {
        let rides = limits.rides
        let held = try connection.query(
            """
            SELECT (SELECT count(*) FROM nextwave_verified_sessions WHERE user_id = $1::uuid)::int AS total,
                   coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM nextwave_verified_sessions
                       WHERE user_id = $1::uuid AND \(RideBounds.day(RideBounds.verifiedStart)) = ANY($2::date[]) GROUP BY \(RideBounds.day(RideBounds.verifiedStart))) d), 0)::int AS most
            """, [user, days])[0]
        guard try held.decode(Int.self, "most") <= rides.verifiedPerDay else {
            throw refusal(.verifiedPerDay, "a rider holds at most \(rides.verifiedPerDay) verified sessions a day")
        }
        guard try held.decode(Int.self, "total") <= rides.verifiedInAll else {
            throw refusal(.verifiedInAll, "a rider holds at most \(rides.verifiedInAll) verified sessions")
        }
    }

    /// Deletes the caller's rows the filters name (check-outs, device tokens); other tables keep theirs (the app's had
    /// no delete policy: `DELETE /auth/v1/user` deletes everything).
    func delete(_ table: CommunityTable, _ query: PostgRESTQuery, user: String, select: [String]?, shape: PostgRESTShape = .array) async throws -> Rows {
        var sql = CommunitySQL(table: table)
        let select = try sql.selectList(select)
        guard let conditions = try sql.conditions(query, user: user) else { return Rows(body: "[]", count: 0) }
        guard table.deletes else { return Rows(body: "[]", count: 0) }
        let statement: String
        if case .devices = table.writes {
            // The token is the push engine's device: deleting it takes its pending pushes along. The rows answered are
            // read from the statement's snapshot, before the deletion.
            statement = "WITH w AS (\(PushDevices.deletion(of: "SELECT device_id FROM \(table.source) WHERE \(conditions)"))) "
                + CommunitySQL.aggregate("SELECT \(select) FROM \(table.source) WHERE \(conditions)")
        } else {
            statement = "WITH w AS (DELETE FROM \(table.source) WHERE \(conditions) RETURNING *) " + CommunitySQL.aggregate("SELECT \(select) FROM w")
        }
        let parameters = sql.parameters
        let change: CommunityChange? = table.held == .checkins ? .checkins : nil
        let rows = try await pool.transaction { connection in
            let row = try connection.query(statement, parameters)[0]
            let count = try row.decode(Int.self, "rows")
            if shape == .object && count != 1 { throw PostgRESTError.notSingular(count) }
            try change?.announce(on: connection)
            return Rows(body: try row.decode(String.self, "body"), count: count)
        }
        if let change { changed(change) }
        return rows
    }

    /// Keeps the `cap` newest devices of each user `users` (a condition on `nextwave_devices`, its parameters
    /// `parameters`) selects; older ones are deleted from the push engine with their pending pushes.
    static func capDevices(of users: String, _ parameters: [any PostgresEncodable], keeping cap: Int, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            \(PushDevices.deletion(of: """
                SELECT device_id FROM (
                    SELECT device_id, row_number() OVER (PARTITION BY user_id ORDER BY updated_at DESC) AS n FROM nextwave_devices WHERE \(users)) ranked
                WHERE n > $\(parameters.count + 1)
                """))
            """, parameters + [cap])
    }

    /// A device token is the push engine's device under one user: registered again under another user (a new anonymous
    /// identity on the same phone), it moves — one device's pushes go to one user.
    private func writeDevices(_ body: PostgRESTRows, user: String, select: [String]?, shape: PostgRESTShape) async throws -> Rows {
        guard let tokens = body.values("token") else { throw PostgRESTError(status: 400, code: "23502", message: "token is required") }
        let platforms = body.values("platform")
        var entries: [(token: String, platform: String)] = []
        for (index, value) in tokens.enumerated() {
            guard case .text(let text) = value, APNsNotification.isDeviceToken(text) else {
                throw PostgRESTError(status: 400, code: "23514", message: "token is the APNs device token in hex (16 to 200 hex digits)")
            }
            let platform = platforms?[index].text ?? "ios"
            guard (1...20).contains(platform.utf8.count) else { throw PostgRESTError(status: 400, code: "23514", message: "platform is at most 20 characters") }
            entries.append((text.lowercased(), platform))
        }
        let selectList = try CommunitySQL(table: .deviceTokens).selectList(select)
        let (environment, cap) = (limits.apnsEnvironment, limits.devicesPerUser)
        let written = entries.map(\.token)
        let registered = entries
        return try await pool.transaction { connection in
            for entry in registered {
                // The token as this app's device: another app's registration of the same token is never touched.
                let id: String
                if let found = try PushDevices.device(token: entry.token, app: NextWaveFeature.app, on: connection) {
                    try PushDevices.touch(found, on: connection)
                    id = found
                } else {
                    id = try PushDevices.register(token: entry.token, app: NextWaveFeature.app, environment: environment, on: connection)
                }
                try connection.execute(
                    """
                    INSERT INTO nextwave_devices (device_id, user_id, platform) VALUES ($1::uuid, $2::uuid, $3)
                    ON CONFLICT (device_id) DO UPDATE SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform, updated_at = now()
                    """, [id, user, entry.platform])
            }
            try Self.capDevices(of: "user_id = $1::uuid", [user], keeping: cap, on: connection)
            let row = try connection.query(
                CommunitySQL.aggregate("SELECT \(selectList) FROM \(CommunityTable.deviceTokens.source) WHERE user_id = $1::uuid AND token = ANY($2::text[])"),
                [user, PostgresArray.literal(written)])[0]
            let count = try row.decode(Int.self, "rows")
            if shape == .object && count != 1 { throw PostgRESTError.notSingular(count) }
            return Rows(body: try row.decode(String.self, "body"), count: count)
        }
    }
}
