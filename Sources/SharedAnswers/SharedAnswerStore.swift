import Foundation
import Geography
import Postgres

/// `upstream_answers`: answers fetched on demand, one row per (kind, key), shared by every replica.
public struct SharedAnswerStore: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func answer(kind: String, key: String) async throws -> StoredAnswer? {
        let rows = try await pool.query(
            "SELECT status, body, fetched_at, expires_at FROM upstream_answers WHERE kind = $1 AND key = $2", [kind, key])
        guard let row = rows.first else { return nil }
        // An outcome this build does not know is an answer it cannot serve.
        guard let outcome = StoredAnswer.Outcome(rawValue: try row.decode(Int.self, "status")) else { return nil }
        return StoredAnswer(
            outcome, body: Array(try row.decode(String.self, "body").utf8),
            fetchedAt: try row.decode(Date.self, "fetched_at"), expiresAt: try row.decode(Date.self, "expires_at"))
    }

    /// Stores (replaces) the answer for `key`.
    public func store(_ answer: StoredAnswer, kind: String, key: String, location: SharedAnswerLocation?) async throws {
        _ = try await pool.execute(
            """
            INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at, near_params, latitude, longitude)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (kind, key) DO UPDATE SET status = EXCLUDED.status, body = EXCLUDED.body,
                fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at
            """,
            [kind, key, answer.outcome.rawValue, String(decoding: answer.body, as: UTF8.self), answer.fetchedAt, answer.expiresAt,
             location?.parameters, location?.latitude, location?.longitude])
    }

    /// The stored point nearest to (`latitude`, `longitude`) with the same other parameters, within `metres`.
    public func nearest(kind: String, parameters: String, latitude: Double, longitude: Double, within metres: Double) async throws
        -> (latitude: Double, longitude: Double, metres: Double)?
    {
        try await nearby(kind: kind, parameters: parameters, latitude: latitude, longitude: longitude, within: metres).any
            .map { ($0.latitude, $0.longitude, $0.metres) }
    }

    /// A stored answer's point near another: its key, where, how far and when it was fetched.
    public struct Nearby: Sendable, Equatable {
        public var key: String
        public var latitude: Double
        public var longitude: Double
        public var metres: Double
        public var fetchedAt: Date
    }

    /// The one "nearest stored answer" lookup: among the kind's answers with the same other parameters within `metres`
    /// (a box on the indexed latitude, then great-circle distances), the nearest fetched at or after `freshSince` (when
    /// given) and the nearest of any age; `excluding`: a key left out (the point's own).
    public func nearby(
        kind: String, parameters: String, latitude: Double, longitude: Double, within metres: Double, freshSince: Date? = nil,
        excluding: String? = nil
    ) async throws -> (fresh: Nearby?, any: Nearby?) {
        let box = GreatCircle.box(latitude: latitude, longitude: longitude, metres: metres)
        let rows = try await pool.query(
            """
            SELECT key, latitude, longitude, fetched_at FROM upstream_answers
            WHERE kind = $1 AND near_params = $2 AND latitude BETWEEN $3 AND $4 AND longitude BETWEEN $5 AND $6
            """, [kind, parameters, box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude])
        var found: (fresh: Nearby?, any: Nearby?) = (nil, nil)
        for row in rows {
            let key = try row.decode(String.self, "key")
            guard key != excluding else { continue }
            let point = (latitude: try row.decode(Double.self, "latitude"), longitude: try row.decode(Double.self, "longitude"))
            let distance = GreatCircle.metres(latitude, longitude, point.latitude, point.longitude)
            guard distance <= metres else { continue }
            let nearby = Nearby(key: key, latitude: point.latitude, longitude: point.longitude, metres: distance, fetchedAt: try row.decode(Date.self, "fetched_at"))
            if distance < found.any?.metres ?? .infinity { found.any = nearby }
            if let freshSince, nearby.fetchedAt >= freshSince, distance < found.fresh?.metres ?? .infinity { found.fresh = nearby }
        }
        return found
    }

    /// Deletes the kind's answers that expired before `cutoff` (its retention) and, beyond `maxRows`, those that
    /// expire first; returns how many.
    @discardableResult
    public func prune(kind: String, expiredBefore cutoff: Date, maxRows: Int = .max) async throws -> Int {
        var deleted = try await pool.execute("DELETE FROM upstream_answers WHERE kind = $1 AND expires_at < $2", [kind, cutoff])
        if maxRows < .max {
            deleted += try await pool.execute(
                """
                DELETE FROM upstream_answers WHERE kind = $1 AND key IN (
                    SELECT key FROM upstream_answers WHERE kind = $1 ORDER BY expires_at DESC OFFSET $2)
                """, [kind, max(0, maxRows)])
        }
        return deleted
    }

    /// How many answers of the kind are stored, and when the newest was fetched.
    public func summary(kind: String) async throws -> (count: Int, lastFetch: Date?) {
        let row = try await pool.query("SELECT count(*) AS n, max(fetched_at) AS last FROM upstream_answers WHERE kind = $1", [kind]).first
        return (try row?.decode(Int.self, "n") ?? 0, try row?.decode(Date?.self, "last"))
    }
}
