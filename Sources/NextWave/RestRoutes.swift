import Basics
import Foundation
import HTTPServer
import Logging
import Parsing
import Postgres
import PostgRESTFormat
import SupabaseAuth

/// `/rest/v1/<table>` and `/rest/v1/rpc/<function>` as PostgREST answered the apps: the five tables (reads of the
/// caller's own rows, upserts, check-outs) and the five functions, every refusal in PostgREST's error shape. Cheapest
/// first: the caller's key and token (one HMAC each, the same key once), the table or function and
/// the query's shape, what a write may cost (a share per user and per address), then PostgreSQL.
struct RestRoutes: Sendable {
    static let table = "/rest/v1/{table}"
    static let function = "/rest/v1/rpc/{function}"

    let community: CommunityService
    let logger = Logger(label: "pier.nextwave")

    func register(in router: inout Router) {
        router.hybrid(.get, Self.table) { [self] request in
            answer(request) { community in
                let (table, query, caller) = try addressed(request, community)
                try community.reads.admit(request, user: caller.userID)
                let (preference, shape) = (PostgRESTPreference(headers: request.headers.values("prefer")), PostgRESTShape(accept: request.headers["accept"]))
                return .later {
                    let read = try await community.store.read(table, query, user: caller.userID, countExact: preference.countExact)
                    return try rows(read, status: .ok, offset: query.offset ?? 0, shape: shape)
                }
            }
        }
        router.hybrid(.post, Self.table) { [self] request in
            answer(request) { community in
                let (table, query, caller) = try addressed(request, community)
                let user = try signedIn(caller, table: table)
                if let target = query.onConflict, Set(target) != Set(table.key) {
                    throw PostgRESTError(status: 400, code: "42P10", message: "there is no unique or exclusion constraint matching the ON CONFLICT specification")
                }
                let body = try PostgRESTRows(json: request.body, columns: query.columns)
                try admit(request, user: user, table: table, rows: body.rows.count, community)
                let (preference, shape) = (PostgRESTPreference(headers: request.headers.values("prefer")), PostgRESTShape(accept: request.headers["accept"]))
                return .later {
                    let written = try await community.store.write(
                        table, body, user: user, resolution: preference.resolution, select: query.select, shape: shape)
                    return preference.returning == .representation ? try rows(written, status: .created, shape: shape) : HTTPResponse(status: .created, headers: Self.noStore)
                }
            }
        }
        router.hybrid(.delete, Self.table) { [self] request in
            answer(request) { community in
                let (table, query, caller) = try addressed(request, community)
                let user = try signedIn(caller, table: table)
                try admit(request, user: user, table: table, rows: 1, community)
                let (preference, shape) = (PostgRESTPreference(headers: request.headers.values("prefer")), PostgRESTShape(accept: request.headers["accept"]))
                return .later {
                    let deleted = try await community.store.delete(table, query, user: user, select: query.select, shape: shape)
                    // The rows it removed beyond the first are charged now that they are known.
                    community.writes.charge(request, user: user, rows: deleted.count)
                    return preference.returning == .representation ? try rows(deleted, status: .ok, shape: shape) : HTTPResponse(status: .noContent, headers: Self.noStore)
                }
            }
        }
        router.hybrid(.post, Self.function) { [self] request in
            answer(request) { community in try call(request, community) }
        }
    }

    /// The caller, the table and the query of a table's request.
    private func addressed(_ request: HTTPRequest, _ community: CommunityService) throws -> (CommunityTable, PostgRESTQuery, CommunityCaller) {
        let caller = try community.caller(of: request)
        let name = try request.parameter("table")
        guard let table = CommunityTable.named(name) else { throw PostgRESTError.unknownTable(name) }
        return (table, try PostgRESTQuery(pairs: request.query.pairs), caller)
    }

    /// The user a write is by: the public key alone writes nothing (the app's policies were for signed-in users).
    private func signedIn(_ caller: CommunityCaller, table: CommunityTable) throws -> String {
        guard let user = caller.userID else {
            throw PostgRESTError(status: 401, code: "42501", message: "permission denied for table \(table.name)")
        }
        return user
    }

    /// Takes a write's `rows` from the writers' shares. A write that is accepted and dropped (the lake levels) spends
    /// no share: a phone sends ~15 a day and they would crowd out check-ins behind a carrier's shared address.
    private func admit(_ request: HTTPRequest, user: String, table: CommunityTable, rows: Int, _ community: CommunityService) throws {
        if case .ignored = table.writes { return }
        try community.writes.admit(request, user: user, rows: rows)
    }

    private func call(_ request: HTTPRequest, _ community: CommunityService) throws -> FastAnswer {
        let name = try request.withParameter("function") { bytes in
            guard let name = CommunityFunctions.named(bytes) else { throw PostgRESTError.unknownFunction(String(decoding: bytes, as: UTF8.self)) }
            return name
        }
        if name == CommunityFunctions.counts {
            // Its size first (a body bigger than the argument can need is refused unread), then the key, then the set.
            try WaveIDs.checkSize(request.body.count)
            let caller = try community.caller(of: request)
            let waves = try WaveIDs(body: request.body)
            let held = community.counts.answer(waves).map(Self.json)
            return try Self.fromMemory(held, request, user: caller.userID, community) {
                Self.json(try await community.counts.load(waves), status: .ok)
            }
        }
        try PostgRESTArguments.checkSize(request.body.count, function: name, maximum: CommunityFunctions.maximumBody)
        let caller = try community.caller(of: request)
        let arguments = try PostgRESTArguments.parse(
            request.body, function: name, allowed: name == CommunityFunctions.leaderboard ? CommunityFunctions.leaderboardParameters : [])
        // Everything else is the caller's own: the public key alone may not call it (the app granted it to signed-in users).
        guard let user = caller.userID else { throw PostgRESTError(status: 401, code: "42501", message: "permission denied for function \(name)") }
        guard name == CommunityFunctions.leaderboard else {
            let held = community.figures.held(name, user: user).map { Self.json($0, status: .ok) }
            return try Self.fromMemory(held, request, user: user, community) {
                Self.json(try await community.figures.load(name, user: user, sql: community.riderSQL(name)), status: .ok)
            }
        }
        let station = arguments["p_station_id"]
        guard station == nil || station?.isNull == true || station?.string != nil else { throw PostgRESTArguments.invalid("p_station_id", "text or null") }
        let limit = arguments["p_limit"].map { $0.isNull ? 50 : $0.integer(in: request.body) } ?? 50
        guard let limit, (0...CommunityFunctions.maximumLeaderboard).contains(limit) else {
            throw PostgRESTArguments.invalid("p_limit", "a whole number from 0 to \(CommunityFunctions.maximumLeaderboard)")
        }
        let board = community.leaderboard
        let held = board.held(station: station?.string, limit: limit, user: user).map(Self.json)
        return try Self.fromMemory(held, request, user: user, community) {
            Self.json(try await board.answer(station: station?.string, limit: limit, user: user))
        }
    }

    /// The reads share's one rule for the functions: an answer memory holds is sent at once and spends nothing; one that
    /// reaches PostgreSQL spends the caller's share first (the share guards PostgreSQL).
    private static func fromMemory(
        _ held: HTTPResponse?, _ request: HTTPRequest, user: String?, _ community: CommunityService,
        load: @escaping @Sendable () async throws -> HTTPResponse
    ) throws -> FastAnswer {
        if let held { return .response(held) }
        try community.reads.admit(request, user: user)
        return .later(load)
    }

    static let noStore: HTTPHeaders = ["Cache-Control": "no-store"]
    /// A `200` with ``noStore`` and JSON's `Content-Type`, its head encoded once: the answers memory holds are sent with
    /// it on every call, only their bodies differ.
    static let okJSON = HTTPResponse.json([], headers: noStore).preparedForSending()

    /// A `200` JSON answer that must not be stored (every function's rows).
    static func json(_ body: [UInt8]) -> HTTPResponse {
        var response = okJSON
        response.body = body
        return response
    }

    static func json(_ body: String, status: HTTPStatus, headers: HTTPHeaders = noStore) -> HTTPResponse {
        .json(Array(body.utf8), status: status, headers: headers)
    }

    /// Rows as PostgREST answers them: `Content-Range` from the offset (`10-14/*`; `*/*` when none), the total with
    /// `Prefer: count=exact` (`0-24/57`, and `206` when the answer holds fewer than all; `416` for an offset past them),
    /// one object for `Accept: application/vnd.pgrst.object+json` (`406` unless there is exactly one).
    private func rows(_ rows: CommunityStore.Rows, status: HTTPStatus, offset: Int = 0, shape: PostgRESTShape = .array) throws -> HTTPResponse {
        var headers = Self.noStore
        var status = status
        if let total = rows.total {
            guard offset <= total else { throw PostgRESTError.rangeNotSatisfiable(offset: offset, total: total) }
            if status == .ok && rows.count < total { status = .code(206) }
        }
        let range = rows.count == 0 ? "*" : "\(offset)-\(offset + rows.count - 1)"
        headers.set("Content-Range", "\(range)/\(rows.total.map(String.init) ?? "*")")
        switch shape {
        case .array: return Self.json(rows.body, status: status, headers: headers)
        case .object:
            let object = try PostgRESTShape.object(ofArray: rows.body, count: rows.count)
            headers.set("Content-Type", "\(PostgRESTShape.objectMediaType); charset=utf-8")
            return HTTPResponse(status: status, headers: headers, body: Array(object.utf8))
        }
    }

    /// Runs `work` and answers every refusal — its own, the one refusal rule's, PostgreSQL's — in PostgREST's shape.
    private func answer(_ request: HTTPRequest, _ work: (CommunityService) throws -> FastAnswer) -> FastAnswer {
        let logger = self.logger
        return .refusing({ Self.refusal($0, logger: logger) }) { try work(community) }
    }

    /// Any error as PostgREST would word it; an unexpected one is logged (without the request) and answered `500`.
    static func refusal(_ error: any Error, logger: Logger) -> HTTPResponse {
        let (refusal, headers) = postgREST(error, logger: logger)
        return refusal.response(headers: headers)
    }

    private static func postgREST(_ error: any Error, logger: Logger) -> (error: PostgRESTError, headers: HTTPHeaders) {
        switch error {
        case let error as PostgRESTError: return (error, HTTPHeaders())
        case let error as CommunityCaller.Problem:
            return (PostgRESTError(status: 401, code: error == .expired ? "PGRST303" : "PGRST301", message: error.message), HTTPHeaders())
        case let error as HTTPError:
            return (PostgRESTError(status: error.status.code, code: "\(error.status.code)", message: error.message), error.headers)
        case let error as PostgresError:
            switch error {
            case .server(let state, let message, _) where state.hasPrefix("22") || state == "23502" || state == "23514":
                return (PostgRESTError(status: 400, code: state, message: Self.withoutValue(message)), HTTPHeaders())
            case .server(let state, let message, _) where state == "23505" || state == "23503":
                return (PostgRESTError(status: 409, code: state, message: Self.withoutValue(message)), HTTPHeaders())
            case _ where error.isUnavailable:
                return (PostgRESTError(status: 503, code: "PGRST001", message: "Database client error. Retrying the connection."), ["Retry-After": "5"])
            default: break
            }
        default: break
        }
        logger.error("community request failed", metadata: ["error": "\(error)"])
        return (PostgRESTError(status: 500, code: "XX000", message: "internal server error"), HTTPHeaders())
    }

    /// PostgreSQL's message without the value it quotes (`invalid input syntax for type uuid: "…"`): an error body never
    /// repeats what was sent.
    static func withoutValue(_ message: String) -> String {
        guard let quote = message.range(of: ": \"") else { return message }
        return String(message[..<quote.lowerBound])
    }
}
