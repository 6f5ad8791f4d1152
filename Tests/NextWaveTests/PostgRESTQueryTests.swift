import PostgRESTFormat
import XCTest

/// The query strings the Next Wave clients send to `/rest/v1` (spec §9), read as PostgREST reads them.
final class PostgRESTQueryTests: XCTestCase {
    private func query(_ pairs: [(String, String)]) throws -> PostgRESTQuery {
        try PostgRESTQuery(pairs: pairs.map { (name: $0.0, value: $0.1) })
    }

    func testTheAppsQueriesAreRead() throws {
        let mine = try query([("select", "wave_id"), ("user_id", "eq.6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6a4c3d"), ("wave_id", #"in.(8503671_2026-06-18T14:32:00Z_ZSG-12,"Thalwil (See)_x,y")"#)])
        XCTAssertEqual(mine.select, ["wave_id"])
        XCTAssertEqual(mine.values("user_id", .eq), ["6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6a4c3d"])
        XCTAssertEqual(mine.values("wave_id", .in), ["8503671_2026-06-18T14:32:00Z_ZSG-12", "Thalwil (See)_x,y"])

        let levels = try query([("select", "date,level_m"), ("lake_name", "eq.Zürichsee"), ("date", "gte.2026-10-20"), ("order", "date.asc")])
        XCTAssertEqual(levels.select, ["date", "level_m"])
        XCTAssertEqual(levels.values("date", .gte), ["2026-10-20"])
        XCTAssertEqual(levels.order, [PostgRESTQuery.Order(column: "date", ascending: true)])

        let exists = try query([("select", "session_key"), ("user_id", "eq.x"), ("session_key", "eq.ab12"), ("limit", "1")])
        XCTAssertEqual(exists.limit, 1)
        let upsert = try query([("on_conflict", "wave_id,user_id"), ("columns", #""wave_id","user_id""#)])
        XCTAssertEqual(upsert.onConflict, ["wave_id", "user_id"])
        XCTAssertEqual(upsert.columns, ["wave_id", "user_id"])
        XCTAssertNil(try query([("select", "*")]).select)
        XCTAssertEqual(try query([("order", "lake_name.asc,date.desc.nullslast")]).order.map(\.ascending), [true, false])
        XCTAssertEqual(try query([("display_name", "not.is.null")]).filters, [PostgRESTFilter(column: "display_name", op: .is, values: ["null"], negated: true)])
    }

    func testWhatIsNotServedIsRefusedInPostgRESTsShape() throws {
        let cases: [[(String, String)]] = [
            [("user_id", "like.*x*")], [("user_id", "eq")], [("wave_id", "in.a,b")], [("wave_id", #"in.("a)"#)], [("or", "(a.eq.1,b.eq.2)")],
            [("select", "wave_id,user:user_id")], [("select", "*,profiles(*)")], [("limit", "-1")], [("order", "date.sideways")],
            [("Robert'); DROP TABLE", "eq.1")], [("display_name", "is.maybe")],
        ]
        for pairs in cases {
            XCTAssertThrowsError(try query(pairs), "\(pairs)") { error in
                let refusal = error as? PostgRESTError
                XCTAssertEqual(refusal?.status, 400, "\(pairs)")
                XCTAssertEqual(refusal?.code, "PGRST100", "\(pairs)")
            }
        }
        let many = (0..<17).map { ("c\($0)", "eq.1") }
        XCTAssertThrowsError(try query(many))
        let long = [("wave_id", "in.(" + (0..<501).map(String.init).joined(separator: ",") + ")")]
        XCTAssertThrowsError(try query(long))
    }

    func testAnErrorIsWrittenAsPostgRESTWritesIt() throws {
        let body = PostgRESTError.forbidden(table: "wave_checkins").json
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        XCTAssertEqual(object["code"] as? String, "42501")
        XCTAssertEqual(object["message"] as? String, #"new row violates row-level security policy for table "wave_checkins""#)
        XCTAssertTrue(object["details"] is NSNull)
        XCTAssertTrue(object["hint"] is NSNull)
    }

    func testPreferHeadersAreReadAcrossHeaders() {
        let upsert = PostgRESTPreference(headers: ["return=minimal, resolution=ignore-duplicates", "count=exact"])
        XCTAssertEqual(upsert.returning, .minimal)
        XCTAssertEqual(upsert.resolution, .ignoreDuplicates)
        XCTAssertTrue(upsert.countExact)
        let merge = PostgRESTPreference(headers: ["resolution=merge-duplicates,return=representation", "handling=strict, tx=rollback"])
        XCTAssertEqual(merge.resolution, .mergeDuplicates)
        XCTAssertEqual(merge.returning, .representation)
        XCTAssertNil(PostgRESTPreference(headers: []).resolution)
    }
}
