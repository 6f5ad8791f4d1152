import Basics
import CAPFormat
import Feature
import Foundation
import Geography
import Logging
import Metrics
import Scheduling
import Synchronization
import WarningsFormat

/// FMI's warnings: reads the feed on the fetcher's schedule into `weather_warnings`, and answers which warnings
/// are in force at a point.
///
/// A reading fetches only the documents not stored yet, a few at a time, staging each batch in PostgreSQL as it
/// arrives (memory holds one batch, whatever the feed's size), then publishes the listed set in one transaction.
/// A feed or document that cannot be fetched fails the run and leaves the published set as it was; a document
/// that arrives but is not a readable CAP alert is logged, kept out, and the run is reported suspect (it is
/// captured) after the rest is published. Lookups answer from the set in force held in memory (``WarningIndex``,
/// reloaded with every published set), so a point costs no database work whoever asks; before the first reload they
/// ask PostGIS and are remembered per point and language until the set changes or one of the warnings expires.
public final class WarningsService: Sendable {
    public static let source = "warnings"
    /// Memory for looked-up lists: ~16,000 points with two warnings each.
    public static let defaultCacheBytes = 32 << 20
    /// Documents fetched at once (FMI documents no limit; a few in parallel keep a busy publication short).
    static let batch = 8

    public let client: WarningsClient
    public let store: WarningStore
    private let board: SourceStatusBoard
    /// How old the last reading may be before answers are stale, in seconds, worked out once: every weather and
    /// warnings answer asks ``isStale(now:)``, and `Duration.components` is hundreds of instructions.
    private let staleAfterSeconds: Double
    private let validators = Mutex<WarningsClient.Validators?>(nil)
    private let generationCounter = Atomic<Int>(0)
    private let confirmedAt = Mutex<Date?>(nil)
    /// The board's last success for the feed (any replica's), with the board's version it was read at: the board's
    /// lookup by name was the dearest part of every weather and warnings answer's ``readAt()``.
    private let boardRead = Mutex<(version: Int, lastSuccess: Date?)>((-1, nil))
    /// Warnings in force at the last reading or reload (`/health`); -1 before either.
    private let inForce = Atomic<Int>(-1)
    private let memory: LRUCache<String, WarningList>
    private let logger = Logger(label: "pier.warnings")
    private let documents: (fetched: Counter?, unreadable: Counter?)
    private let lookups: (memory: Counter?, database: Counter?)
    /// The set in force, in memory (``WarningIndex``): lookups answer from it; `nil` until the first reload (then,
    /// or when PostGIS wrote an area the index cannot read, lookups ask PostGIS).
    private let index = Mutex<WarningIndex?>(nil)
    private let reloads = Atomic<Int>(0)

    public init(
        client: WarningsClient, store: WarningStore, board: SourceStatusBoard, staleAfter: Duration, cacheBytes: Int = defaultCacheBytes,
        metrics: MetricsRegistry? = nil
    ) {
        self.client = client
        self.store = store
        self.board = board
        staleAfterSeconds = Double(staleAfter.components.seconds)
        memory = LRUCache(budgetBytes: cacheBytes)
        let documents = "pier_warnings_documents_total"
        let documentsHelp = "CAP documents fetched from FMI's warnings service, by whether they could be read."
        self.documents = (
            metrics?.counter(documents, help: documentsHelp, labels: [("result", "read")]),
            metrics?.counter(documents, help: documentsHelp, labels: [("result", "unreadable")])
        )
        let lookups = "pier_warnings_lookups_total"
        let lookupsHelp = "Warnings looked up for a point and language, by where the list came from."
        self.lookups = (
            metrics?.counter(lookups, help: lookupsHelp, labels: [("from", "memory")]),
            metrics?.counter(lookups, help: lookupsHelp, labels: [("from", "database")])
        )
        metrics?.gauge("pier_warnings_in_force", help: "FMI warnings in force at the last reading of the feed (-1 before it).") { [weak self] in
            Double(self?.inForce.load(ordering: .relaxed) ?? -1)
        }
    }

    /// Grows whenever the published set may have changed (a reading here, or another replica's announced).
    public var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// The set in PostgreSQL changed (read here, or by another replica): anything remembered from before is dropped.
    public func reload(now: Date = Date()) async throws {
        let ticket = reloads.add(1, ordering: .relaxed).newValue
        do {
            let loaded = WarningIndex(try await store.inForce(), ticket: ticket)
            // A reload that started later read a set at least as new: an earlier one finishing after it keeps out.
            index.withLock { if ($0?.ticket ?? 0) < ticket { $0 = loaded } }
        } catch WarningsError.unreadableArea {
            index.withLock { $0 = nil }
            logger.error("a stored warning area could not be read into memory; lookups ask PostGIS until the next set")
        }
        generationCounter.add(1, ordering: .releasing)
        try await countInForce(now: now)
    }

    /// Warnings in force and not expired at `now` (`/health`, the fetch summary): counted in the set held in memory,
    /// else by PostgreSQL.
    @discardableResult
    private func countInForce(now: Date) async throws -> Int {
        let count: Int
        if let index = index.withLock({ $0 }) { count = index.count(now: now) } else { count = try await store.countInForce(now: now) }
        inForce.store(count, ordering: .relaxed)
        return count
    }

    /// `"in_force":N` for the source's object in `/health`; `nil` before the set was read.
    /// `in_force`: the warnings in force at the last reading or reload; `nil` before either.
    public func health() -> (any Encodable & Sendable)? {
        let count = inForce.load(ordering: .relaxed)
        return count < 0 ? nil : InForce(count: count)
    }

    struct InForce: Encodable, Sendable {
        let count: Int

        enum CodingKeys: String, CodingKey {
            case count = "in_force"
        }
    }

    /// When the feed was last read successfully, by this process or any replica; `nil`: never.
    public func readAt() -> Date? {
        let own = confirmedAt.withLock { $0 }
        let any = boardLastSuccess()
        switch (own, any) {
        case let (own?, any?): return max(own, any)
        default: return own ?? any
        }
    }

    private func boardLastSuccess() -> Date? {
        let version = board.version
        if let read = boardRead.withLock({ $0.version == version ? $0 : nil }) { return read.lastSuccess }
        let lastSuccess = board.history(Self.source).lastSuccess
        // A change between the two readings leaves an older version beside it: the next reading looks again.
        boardRead.withLock { $0 = (version, lastSuccess) }
        return lastSuccess
    }

    /// Whether the set served is older than the schedule allows (the feed failed since): answers are marked stale.
    public func isStale(now: Date) -> Bool {
        isStale(readAt: readAt(), now: now)
    }

    /// ``isStale(now:)`` for a ``readAt()`` already read (each reading asks the status board).
    public func isStale(readAt: Date?, now: Date) -> Bool {
        guard let readAt else { return true }
        return now.timeIntervalSince(readAt) > staleAfterSeconds
    }

    /// One reading of the feed (the fetcher's job).
    public func refresh(now: Date = Date()) async throws -> FetchSummary {
        let answer = try await client.feed(validators: validators.withLock { $0 })
        guard case .changed(let listed, let newValidators) = answer else {
            confirmedAt.withLock { $0 = now }
            return FetchSummary(itemCount: try await countInForce(now: now), scrapedAt: now)
        }
        let links = listed.filter(client.isOwn)
        if links.count < listed.count {
            logger.warning("warnings feed links outside its own host were not followed", metadata: ["links": "\(listed.count - links.count)"])
        }
        let stored = try await store.storedURLs()
        let fresh = links.filter { !stored.contains($0) }
        var unreadable: [String] = []
        for start in stride(from: 0, to: fresh.count, by: Self.batch) {
            let results = try await fetch(Array(fresh[start..<min(start + Self.batch, fresh.count)]))
            var warnings: [StoredWarning] = []
            for (url, result) in results {
                switch result {
                case .success(let alert):
                    documents.fetched?.increment()
                    warnings.append(StoredWarning(url: url, alert: alert))
                case .failure(let error):
                    documents.unreadable?.increment()
                    unreadable.append("\(error)")
                    logger.warning("a CAP document is unreadable and was left out", metadata: ["url": "\(url)", "error": "\(error)"])
                }
            }
            try await store.stage(warnings)
        }
        let published = try await store.publish(listed: links)
        validators.withLock { $0 = newValidators }
        try await reload(now: now)
        // Only once the new set is in memory: marked read before, `/v1/warnings` answered the set held until then —
        // at start-up none, an empty list where it should have said 503 (seen in the end-to-end test under load).
        confirmedAt.withLock { $0 = now }
        if let first = unreadable.first {
            throw FetchError.partial("\(unreadable.count) CAP document(s) unreadable, left out (\(first))", stored: max(published, 1), suspect: true)
        }
        return FetchSummary(itemCount: inForce.load(ordering: .relaxed), scrapedAt: now)
    }

    /// `urls`' documents, in parallel: a document that is not CAP is a result; a transfer that fails throws.
    private func fetch(_ urls: [String]) async throws -> [(String, Result<CAPAlert, WarningsError>)] {
        try await withThrowingTaskGroup(of: (String, Result<CAPAlert, WarningsError>).self) { group in
            for url in urls {
                group.addTask { [client] in
                    do { return (url, .success(try await client.document(url))) } catch let error as WarningsError { return (url, .failure(error)) }
                }
            }
            var results: [(String, Result<CAPAlert, WarningsError>)] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    /// The list for the point and language without waiting (no PostgreSQL: for the event loop): from the set in memory
    /// once it is loaded — every point, asked or not before, at the same cost —, else what a PostGIS lookup left.
    public func cachedWarnings(at point: Coordinate, language: WarningLanguage, now: Date = Date()) -> WarningList? {
        if let index = index.withLock({ $0 }) {
            lookups.memory?.increment()
            return Self.list(index.lookup(latitude: point.latitude, longitude: point.longitude, language: language, now: now), generation: generation)
        }
        guard let held = memory[Self.key(point, language)], held.generation == generation, now < held.until else { return nil }
        lookups.memory?.increment()
        return held
    }

    /// The warnings in force at the point: from the set in memory, else (before the first reload) from PostGIS,
    /// remembered per point until the set changes or one of them expires.
    public func warnings(at point: Coordinate, language: WarningLanguage, now: Date = Date()) async throws -> WarningList {
        if let held = cachedWarnings(at: point, language: language, now: now) { return held }
        // Read before the query: a set published meanwhile makes this list outdated at once, never wrongly current.
        let generation = generation
        lookups.database?.increment()
        let list = Self.list(
            try await store.lookup(latitude: point.latitude, longitude: point.longitude, language: language, now: now), generation: generation)
        let key = Self.key(point, language)
        memory.set(list, for: key, cost: key.utf8.count + list.json.utf8.count + 64)
        return list
    }

    private static func list(_ rows: [(entry: String, expires: Date)], generation: Int) -> WarningList {
        WarningList(
            json: "[" + rows.map(\.entry).joined(separator: ",") + "]", count: rows.count, until: rows.map(\.expires).min() ?? .distantFuture,
            generation: generation)
    }

    private static func key(_ point: Coordinate, _ language: WarningLanguage) -> String {
        language.rawValue + ":" + point.description
    }
}
