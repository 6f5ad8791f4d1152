import Foundation
import DatabaseTesting
import Postgres
import XCTest

final class PostgresConnectionTests: XCTestCase {
    var database: TestDatabase!
    var connection: PostgresConnection!

    override func setUpWithError() throws {
        database = try TestDatabase.create()
        connection = try database.connection()
    }

    override func tearDown() {
        connection = nil
        database?.drop()
    }

    func testCopyInParsesCSVAndNamesTheLineOfARowThatDoesNot() throws {
        try connection.execute("CREATE TABLE c (id uuid, at timestamptz, name text)")
        let text = "id,at,name\n00000000-0000-4000-8000-000000000001,2026-07-01 16:00:00+00,\"Lisa, \"\"L\"\"\"\n00000000-0000-4000-8000-000000000002,,\n"
        var chunks = [Array(text.utf8.prefix(30)), Array(text.utf8.dropFirst(30))]
        let copied = try connection.copyIn("COPY c (id, at, name) FROM STDIN WITH (FORMAT csv, HEADER)") { chunks.isEmpty ? nil : chunks.removeFirst() }
        XCTAssertEqual(copied, 2)
        let rows = try connection.query("SELECT name, at IS NULL AS empty FROM c ORDER BY id")
        XCTAssertEqual(try rows[0].decode(String.self, "name"), #"Lisa, "L""#)
        XCTAssertEqual(try rows[1].decode(String?.self, "name"), nil)
        XCTAssertTrue(try rows[1].decode(Bool.self, "empty"))

        var bad = [Array("id,at,name\n00000000-0000-4000-8000-000000000003,,a\nnot-a-uuid,,b\n".utf8)]
        XCTAssertThrowsError(try connection.copyIn("COPY c (id, at, name) FROM STDIN WITH (FORMAT csv, HEADER)") { bad.isEmpty ? nil : bad.removeFirst() }) { error in
            guard case .server(let state, _, let detail) = error as? PostgresError else { return XCTFail("\(error)") }
            XCTAssertEqual(state, "22P02")
            XCTAssertEqual(detail, "line 3", "the line, never the row")
        }
        // A source that fails abandons the COPY; the connection goes on.
        struct Unreadable: Error {}
        XCTAssertThrowsError(try connection.copyIn("COPY c (id) FROM STDIN WITH (FORMAT csv)") { throw Unreadable() })
        XCTAssertTrue(connection.isHealthy)
        XCTAssertEqual(try connection.query("SELECT count(*)::int AS n FROM c")[0].decode(Int.self, "n"), 2, "nothing of the failed copies")
    }

    func testEverySupportedTypeRoundTrips() throws {
        try connection.execute("""
            CREATE TABLE t (i bigint, d double precision, s text, b boolean, ts timestamptz, day date, raw bytea, doc jsonb)
            """)
        let date = Date(timeIntervalSince1970: 1_795_000_000.123456)
        let json = Array(#"{"a": [1, 2.5, "ü"]}"#.utf8)
        try connection.execute(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [Int.min + 1, -14.5, "O'Brien \"quoted\" \\ Zürichsee 🚢", true, date, "2026-11-23", PostgresBytes([0, 1, 255, 10]), PostgresJSON(json)])
        let row = try XCTUnwrap(connection.query("SELECT * FROM t").first)
        XCTAssertEqual(try row.decode(Int.self, "i"), Int.min + 1)
        XCTAssertEqual(try row.decode(Double.self, "d"), -14.5)
        XCTAssertEqual(try row.decode(String.self, "s"), "O'Brien \"quoted\" \\ Zürichsee 🚢")
        XCTAssertEqual(try row.decode(Bool.self, "b"), true)
        XCTAssertEqual(try row.decode(Date.self, "ts").timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 0.000_001)
        XCTAssertEqual(try row.decode(Date.self, "day").timeIntervalSince1970, 1_795_392_000)
        XCTAssertEqual(try row.decode(PostgresBytes.self, "raw").bytes, [0, 1, 255, 10])
        let stored = try row.decode(PostgresJSON.self, "doc").bytes
        let decoded = try JSONSerialization.jsonObject(with: Data(stored)) as? [String: [Any]]
        XCTAssertEqual(decoded?["a"]?.count, 3)
    }

    func testMultiRowInsertRenumbersPlaceholdersAndSplitsBatches() throws {
        try connection.execute("CREATE TABLE pairs (a integer PRIMARY KEY, b text, c double precision)")
        let rows: [[any PostgresEncodable]] = (0..<20_000).map { (number: Int) -> [any PostgresEncodable] in
            let half: Double? = number % 2 == 0 ? Double(number) / 2 : nil
            return [String(number), number, half]
        }
        // Placeholders out of order and inside an expression; 3 per row, so 20,000 rows need two statements.
        let inserted = try connection.insert(
            "INSERT INTO pairs (b, a, c) VALUES", row: "($1, $2::integer, ($3::double precision) * 2)", rows: rows,
            tail: "ON CONFLICT (a) DO NOTHING")
        XCTAssertEqual(inserted, 20_000)
        let check = try connection.query("SELECT count(*) AS n, sum(c) AS total, max(b) AS last FROM pairs WHERE b = a::text")
        XCTAssertEqual(try check[0].decode(Int.self, "n"), 20_000)
        let evens = (0..<20_000).filter { $0 % 2 == 0 }.reduce(0, +)
        XCTAssertEqual(try check[0].decode(Double.self, "total"), Double(evens))
        XCTAssertEqual(try connection.insert("INSERT INTO pairs (b, a, c) VALUES", row: "($1, $2, $3)", rows: []), 0)
    }

    func testNullsRoundTripAsOptionals() throws {
        try connection.execute("CREATE TABLE t (i bigint, d double precision, s text, b boolean, ts timestamptz)")
        let none: (Int?, Double?, String?, Bool?, Date?) = (nil, nil, nil, nil, nil)
        try connection.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)", [none.0, none.1, none.2, none.3, none.4])
        let row = try XCTUnwrap(connection.query("SELECT * FROM t").first)
        XCTAssertNil(try row.decode(Int?.self, "i"))
        XCTAssertNil(try row.decode(Double?.self, "d"))
        XCTAssertNil(try row.decode(String?.self, "s"))
        XCTAssertNil(try row.decode(Bool?.self, "b"))
        XCTAssertNil(try row.decode(Date?.self, "ts"))
        XCTAssertTrue(try row.isNull("s"))
        XCTAssertThrowsError(try row.decode(Int.self, "i")) { error in
            XCTAssertEqual(error as? PostgresError, .decoding(column: "i", expected: "Int", value: nil))
        }
        XCTAssertThrowsError(try row.decode(Int.self, "nope")) { error in
            XCTAssertEqual(error as? PostgresError, .missingColumn("nope"))
        }
    }

    func testSpecialDoublesRoundTrip() throws {
        let rows = try connection.query("SELECT $1::float8 AS a, $2::float8 AS b, $3::float8 AS c, $4::float8 AS d", [Double.nan, Double.infinity, -Double.infinity, 1e-300])
        XCTAssertTrue(try rows[0].decode(Double.self, "a").isNaN)
        XCTAssertEqual(try rows[0].decode(Double.self, "b"), .infinity)
        XCTAssertEqual(try rows[0].decode(Double.self, "c"), -.infinity)
        XCTAssertEqual(try rows[0].decode(Double.self, "d"), 1e-300)
    }

    func testParametersCannotInjectSQL() throws {
        try connection.execute("CREATE TABLE lakes (name text)")
        let hostile = "x'); DROP TABLE lakes; --"
        try connection.execute("INSERT INTO lakes (name) VALUES ($1)", [hostile])
        let rows = try connection.query("SELECT name FROM lakes WHERE name = $1", [hostile])
        XCTAssertEqual(try rows.first?.decode(String.self, "name"), hostile)
        XCTAssertEqual(try connection.query("SELECT count(*) AS n FROM lakes")[0].decode(Int.self, "n"), 1, "table still exists")
    }

    func testServerErrorsCarrySQLState() throws {
        try connection.execute("CREATE TABLE u (k int PRIMARY KEY)")
        try connection.execute("INSERT INTO u VALUES ($1)", [1])
        XCTAssertThrowsError(try connection.execute("INSERT INTO u VALUES ($1)", [1])) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "23505")
        }
        XCTAssertThrowsError(try connection.query("SELEC 1")) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42601")
        }
        XCTAssertTrue(connection.isHealthy, "a statement error leaves the connection usable")
        XCTAssertEqual(try connection.query("SELECT 1 AS one")[0].decode(Int.self, "one"), 1)
    }

    func testTransactionRollsBackWhenTheBodyThrows() throws {
        try connection.execute("CREATE TABLE v (k int PRIMARY KEY)")
        struct Abort: Error {}
        XCTAssertThrowsError(try connection.transaction { connection in
            try connection.execute("INSERT INTO v VALUES (1)")
            throw Abort()
        })
        XCTAssertThrowsError(try connection.transaction { connection in
            try connection.execute("INSERT INTO v VALUES (2)")
            try connection.execute("INSERT INTO v VALUES (2)")
        })
        XCTAssertEqual(try connection.query("SELECT count(*) AS n FROM v")[0].decode(Int.self, "n"), 0, "no half-written rows")
        try connection.transaction { try $0.execute("INSERT INTO v VALUES (3)") }
        XCTAssertEqual(try connection.query("SELECT count(*) AS n FROM v")[0].decode(Int.self, "n"), 1)
    }

    func testExecuteReportsAffectedRows() throws {
        try connection.execute("CREATE TABLE w (k int)")
        XCTAssertEqual(try connection.execute("INSERT INTO w SELECT generate_series(1, $1::int)", [5]), 5)
        XCTAssertEqual(try connection.execute("DELETE FROM w WHERE k > $1", [2]), 3)
    }

    func testUnreachableServerFailsWithConnectionError() throws {
        XCTAssertThrowsError(try PostgresConnection(url: "postgresql:///pier?host=/nonexistent-socket-dir&user=pier")) { error in
            guard case .connectionFailed = error as? PostgresError else { return XCTFail("got \(error)") }
        }
    }
}
