import CLibPQ
import Foundation
import Glibc

/// One libpq connection. Every call blocks until the server answers, so the pool runs them on Dispatch
/// threads, never on an event loop or the Swift concurrency pool.
///
/// Not safe for concurrent use: the pool hands a connection to one caller at a time, which is why it can be
/// `@unchecked Sendable`.
public final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Connects with a `postgres://…` URL or a `key=value` string. Sessions use UTC and ISO dates, which
    /// the timestamp decoding relies on.
    /// `database` overrides the database named in the URL.
    public init(url: String, database: String? = nil, connectTimeoutSeconds: Int = 5) throws {
        var keys = ["dbname", "connect_timeout", "options", "application_name"]
        var values = [url, String(connectTimeoutSeconds), "-c TimeZone=UTC -c DateStyle=ISO", "pier"]
        if let database {
            // Only the first `dbname` is expanded as a URL; a later one just names the database.
            keys.append("dbname")
            values.append(database)
        }
        var cKeys = keys.map { strdup($0) }
        var cValues = values.map { strdup($0) }
        defer {
            cKeys.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        cKeys.append(nil)
        cValues.append(nil)
        // expand_dbname = 1: `dbname` may be a URL or a conninfo string; libpq processes keys in order, so
        // the timeout, session options and application name after it take precedence over the URL's.
        let connection: OpaquePointer? = cKeys.withUnsafeBufferPointer { keyBuffer in
            cValues.withUnsafeBufferPointer { valueBuffer in
                keyBuffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { k in
                    valueBuffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v in
                        PQconnectdbParams(k.baseAddress, v.baseAddress, 1)
                    }
                }
            }
        }
        guard let connection else { throw PostgresError.connectionFailed("out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError.connectionFailed(message)
        }
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// False once the connection broke (server restart, killed backend); the pool then drops it.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server process serving this connection (for `pg_terminate_backend` and logs).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement with parameters `$1…$n` and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> [PostgresRow] {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        return Self.rows(of: result)
    }

    /// Runs one statement with parameters and returns how many rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> Int {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a script of several statements without parameters (migrations). Never pass it values.
    public func executeScript(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw lostOrFailed() }
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs `COPY … FROM STDIN` (`sql`, without parameters) and sends it the chunks `next` returns until it returns nil;
    /// returns the rows copied. PostgreSQL parses the data (CSV as `COPY … TO` wrote it): a bad row fails the whole
    /// statement, and the error's detail names the line (`line 7`), never the row's values.
    @discardableResult
    public func copyIn(_ sql: String, from next: () throws -> [UInt8]?) throws -> Int {
        guard let started = PQexec(handle, sql) else { throw lostOrFailed() }
        let status = PQresultStatus(started)
        if status != PGRES_COPY_IN {
            defer { PQclear(started) }
            try check(started)
            throw PostgresError.server(sqlState: "XX000", message: "not a COPY … FROM STDIN statement", detail: nil)
        }
        PQclear(started)
        var failure: String?
        do {
            while let chunk = try next() {
                guard !chunk.isEmpty else { continue }
                let sent = chunk.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32(bytes.count)) }
                }
                guard sent == 1 else { throw lostOrFailed() }
            }
        } catch {
            failure = "\(error)"
        }
        // Ending with an error message aborts the COPY (the server rolls the statement back).
        let ended = failure.map { message in message.withCString { PQputCopyEnd(handle, $0) } } ?? PQputCopyEnd(handle, nil)
        guard ended == 1 else { throw lostOrFailed() }
        var copied = 0
        var problem: (any Error)?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if problem == nil {
                do { try check(result) } catch { problem = Self.located(error, context: PQresultErrorField(result, Int32(UInt8(ascii: "W")))) }
            }
        }
        if let problem { throw problem }
        if let failure { throw PostgresError.server(sqlState: "57014", message: "the COPY was abandoned: \(failure)", detail: nil) }
        return copied
    }

    /// A COPY's error with the line from its context (`COPY t, line 7, column c: "value"`) as its detail — the line
    /// only: the context quotes the row.
    private static func located(_ error: any Error, context: UnsafeMutablePointer<CChar>?) -> any Error {
        guard case .server(let state, let message, _) = error as? PostgresError, let context else { return error }
        let text = String(cString: context)
        guard let range = text.range(of: #"line [0-9]+"#, options: .regularExpression) else { return error }
        return PostgresError.server(sqlState: state, message: message, detail: String(text[range]))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body(self)
            try execute("COMMIT")
            return value
        } catch {
            if isHealthy { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// A `NOTIFY` received on a channel this connection `LISTEN`s to.
    public struct Notification: Sendable, Equatable {
        public var channel: String
        public var payload: String
    }

    /// Waits up to `timeout` for notifications (after `LISTEN channel` on this connection) and returns those
    /// that arrived, possibly none. Blocks the calling thread; a broken connection throws `connectionLost`.
    public func notifications(timeout: Duration) throws -> [Notification] {
        var received = drainNotifications()
        guard received.isEmpty else { return received }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError.connectionLost("no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else { return [] }
        guard PQconsumeInput(handle) == 1 else { throw PostgresError.connectionLost(Self.trimmed(PQerrorMessage(handle))) }
        received = drainNotifications()
        if received.isEmpty && !isHealthy { throw PostgresError.connectionLost(Self.trimmed(PQerrorMessage(handle))) }
        return received
    }

    private func drainNotifications() -> [Notification] {
        var received: [Notification] = []
        while let notice = PQnotifies(handle) {
            received.append(Notification(
                channel: String(cString: notice.pointee.relname), payload: notice.pointee.extra.map { String(cString: $0) } ?? ""))
            PQfreemem(notice)
        }
        return received
    }

    private func run(_ sql: String, _ parameters: [any PostgresEncodable]) throws -> OpaquePointer {
        let texts = parameters.map { $0.postgresText }
        var cValues: [UnsafeMutablePointer<CChar>?] = texts.map { $0.map { strdup($0) } ?? nil }
        defer { cValues.forEach { free($0) } }
        let result: OpaquePointer? = cValues.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecParams(handle, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
            }
        }
        guard let result else { throw lostOrFailed() }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    private func check(_ result: OpaquePointer) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            if !isHealthy { throw PostgresError.connectionLost(Self.trimmed(PQerrorMessage(handle))) }
            func field(_ code: Int32) -> String? {
                guard let value = PQresultErrorField(result, code) else { return nil }
                return String(cString: value)
            }
            let sqlState = field(Int32(UInt8(ascii: "C"))) ?? "XX000"
            let message = field(Int32(UInt8(ascii: "M"))) ?? Self.trimmed(PQresultErrorMessage(result))
            let detail = field(Int32(UInt8(ascii: "D")))
            throw PostgresError.server(sqlState: sqlState, message: message, detail: detail)
        }
    }

    private func lostOrFailed() -> PostgresError {
        let message = Self.trimmed(PQerrorMessage(handle))
        return isHealthy ? .server(sqlState: "XX000", message: message, detail: nil) : .connectionLost(message)
    }

    private static func rows(of result: OpaquePointer) -> [PostgresRow] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let pointer = UnsafeRawPointer(PQgetvalue(result, row, column))
                    values.append(pointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) })
                }
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        return rows
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
