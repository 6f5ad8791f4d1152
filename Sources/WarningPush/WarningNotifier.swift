import Foundation
import Logging
import Parsing
import Postgres
import Push
import Warnings
import WarningsFormat

/// Decides who is told what about the warnings in force, and hands the pushes to the engine. CAP's semantics, decided
/// here and nowhere else (docs/api.md has the examples):
/// - A warning is known by its **root**: the identifier of the Alert its Updates reference (an Alert is its own root).
/// - A device is told when the warning's area contains one of its places and its severity is at least the device's
///   threshold: once per warning (three places in the area are one push), in its language.
/// - An **Update** tells a device again only when the severity rose above what it was told, or when the area now covers
///   a place it did not (a device not told before is told now); otherwise nothing.
/// - When the warning ends — a **Cancel**, gone from the feed, or past its expiry — the devices that were told and asked
///   for an all-clear get one.
/// - Nothing already expired is sent; what was told is kept in PostgreSQL (`warning_notified`), so a restart, a second
///   replica or the same publication read again never tells anyone twice.
/// One replica works at a time (a transaction-scoped advisory lock; the others skip that look).
public final class WarningNotifier: Sendable {
    /// What one look did.
    public struct Summary: Sendable, Equatable {
        public var warnings = 0
        public var pushes = 0
        public var allClears = 0
        public var ended = 0
        /// `false` when another replica was looking at the same time.
        public var ran = true
    }

    static let lockKey = 7_219_041
    /// Roots that ended are forgotten after this (the feed lists a document for at most a few days after it ends).
    static let forgetAfter: Duration = .seconds(7 * 86_400)

    private let pool: PostgresPool
    private let logger: Logger

    public init(pool: PostgresPool, logger: Logger = Logger(label: "pier.warning-push")) {
        self.pool = pool
        self.logger = logger
    }

    /// One look at the warnings in force against the registrations.
    public func notify() async throws -> Summary {
        try await pool.transaction { connection -> Summary in
            guard try connection.query("SELECT pg_try_advisory_xact_lock($1) AS locked", [Self.lockKey])[0].decode(Bool.self, "locked") else {
                return Summary(ran: false)
            }
            var summary = Summary()
            let documents = try ListedWarning.all(on: connection)
            let roots = Self.roots(documents)
            var live: Set<String> = []
            for document in documents where document.live && document.severity >= 2 {
                guard let root = roots[document.identifier] else { continue }
                live.insert(root)
                summary.warnings += 1
                summary.pushes += try self.tell(document, root: root, on: connection)
            }
            let ended = try connection.query(
                """
                SELECT root, headline_en, headline_fi, headline_sv FROM warning_push_roots
                WHERE ended_at IS NULL AND (expires <= now() OR NOT (root = ANY($1::text[])))
                """, [PostgresArray.literal(live.sorted())])
            for row in ended {
                let root = try row.decode(String.self, "root")
                let headlines = try ["en": row.decode(String.self, "headline_en"), "fi": row.decode(String.self, "headline_fi"), "sv": row.decode(String.self, "headline_sv")]
                summary.allClears += try self.clear(root, headlines: headlines, on: connection)
                summary.ended += 1
            }
            // The roots' rows of warning_notified with them (no foreign key: Migrations/0026; Push deletes them with their devices, Migrations/Push/0041).
            try connection.execute(
                """
                WITH forgotten AS (DELETE FROM warning_push_roots WHERE ended_at < now() - make_interval(secs => $1) RETURNING root)
                DELETE FROM warning_notified AS n USING forgotten AS f WHERE n.root = f.root
                """, [Double(Self.forgetAfter.components.seconds)])
            return summary
        }
    }

    /// Tells the devices `document` concerns that were not told as much; returns how many pushes were enqueued.
    private func tell(_ document: ListedWarning, root: String, on connection: PostgresConnection) throws -> Int {
        let payloads = WarningLanguage.allCases.map { language in
            (language, document.entries[language].flatMap { WarningPushPayload.warning(entry: $0, root: root) })
        }
        guard payloads.allSatisfy({ $0.1 != nil }) else {
            logger.warning("a warning's stored entry could not be read; not pushed", metadata: ["root": "\(root)"])
            return 0
        }
        let text = Dictionary(uniqueKeysWithValues: payloads.map { ($0.0, $0.1 ?? "") })
        let headline = Dictionary(uniqueKeysWithValues: WarningLanguage.allCases.map { language in
            (language, document.entries[language].flatMap(Self.headline) ?? "")
        })
        // A root that already ended (cancelled, then listed again) is not told again.
        let open = try connection.query(
            """
            INSERT INTO warning_push_roots (root, headline_en, headline_fi, headline_sv, expires) VALUES ($1, $2, $3, $4, to_timestamp($5))
            ON CONFLICT (root) DO UPDATE SET headline_en = EXCLUDED.headline_en, headline_fi = EXCLUDED.headline_fi,
                headline_sv = EXCLUDED.headline_sv, expires = EXCLUDED.expires
            WHERE warning_push_roots.ended_at IS NULL
            RETURNING root
            """, [root, headline[.en] ?? "", headline[.fi] ?? "", headline[.sv] ?? "", document.expires])
        guard !open.isEmpty else { return 0 }
        return try PushOutbox.enqueue(
            with: """
                WITH targets AS (
                    SELECT s.device_id, s.language FROM warning_subscriptions s
                    WHERE s.min_severity <= $2 AND ST_Intersects(s.places, \(ListedWarning.area(ofURL: "$1")))
                ), told AS (
                    INSERT INTO warning_notified (root, device_id, severity) SELECT $3, device_id, $2 FROM targets
                    ON CONFLICT (root, device_id) DO UPDATE SET severity = EXCLUDED.severity WHERE warning_notified.severity < EXCLUDED.severity
                    RETURNING device_id
                )
                """,
            payloads: [text[.fi] ?? "", text[.sv] ?? "", text[.en] ?? ""],
            selecting: """
                SELECT t.device_id, $4, CASE t.language WHEN 'fi' THEN 1 WHEN 'sv' THEN 2 ELSE 3 END, $5, to_timestamp($6), 10
                FROM told JOIN targets t USING (device_id)
                """,
            [document.url, document.severity, root, "warning:\(root):\(document.severity)", WarningPushPayload.collapseID(root), document.expires],
            on: connection)
    }

    /// The all-clear to the devices that were told about `root` and asked for one; the root is marked ended.
    private func clear(_ root: String, headlines: [String: String], on connection: PostgresConnection) throws -> Int {
        let payload = { (language: WarningLanguage) in
            WarningPushPayload.allClear(headline: headlines[language.rawValue] ?? "", root: root, language: language)
        }
        let enqueued = try PushOutbox.enqueue(
            payloads: [payload(.fi), payload(.sv), payload(.en)],
            selecting: """
                SELECT n.device_id, $2, CASE s.language WHEN 'fi' THEN 1 WHEN 'sv' THEN 2 ELSE 3 END, $3, now() + interval '1 day', 5
                FROM warning_notified n JOIN warning_subscriptions s USING (device_id)
                WHERE n.root = $1 AND s.all_clear
                """,
            [root, "warning:\(root):clear", WarningPushPayload.collapseID(root)],
            on: connection)
        try connection.execute("UPDATE warning_push_roots SET ended_at = now() WHERE root = $1", [root])
        return enqueued
    }

    /// Each document's root: its first reference's root, followed through the documents the feed lists (at most ten
    /// steps: references never loop in FMI's feed, and a loop must not hang the notifier).
    static func roots(_ documents: [ListedWarning]) -> [String: String] {
        let references = Dictionary(documents.map { ($0.identifier, $0.reference) }, uniquingKeysWith: { first, _ in first })
        var roots: [String: String] = [:]
        for document in documents {
            var root = document.identifier
            var steps = 0
            while let first = references[root] ?? nil, steps < 10 {
                root = first
                steps += 1
            }
            roots[document.identifier] = root
        }
        return roots
    }

    static func headline(_ entry: String) -> String? {
        let bytes = Array(entry.utf8)
        guard let object = try? JSONScanner.parse(bytes) else { return nil }
        return object["headline"]?.string ?? object["event"]?.string
    }
}
