import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `openapi.yaml` against the real binary: the served document, its routes against the router's, and
/// schemathesis (installed by scripts/test) exploring every operation with real data loaded.
final class OpenAPITests: EndToEndTestCase {
    /// Starts pier on the fixture upstreams and waits until ships, lakes and weather all answer 200.
    func startPierWithData(_ extra: [String: String] = [:]) throws -> PierProcess {
        // Every upstream's budgets out of reach (schemathesis asks for many cold keys: a refusal would be a finding), and
        // App Attest on (prefer: tokenless requests still served), so its routes answer rather than 503.
        var environment = upstream.unlimitedSettings
        environment.merge([
            "PIER_APP_ATTEST": "prefer", "PIER_APP_ATTEST_APPS": "ABCDE12345.org.example.pier", "PIER_APP_ATTEST_SECRET": "schemathesis-secret-of-thirty-two-characters",
            "PIER_APP_ATTEST_REQUESTS_PER_MINUTE": "100000", "PIER_APP_ATTEST_BURST": "100000", "PIER_APP_ATTEST_CLIENT_SHARE": "1",
        ]) { $1 }
        // Pushes on, against the APNs stand-in, so that the device routes answer rather than 503; registrations out of
        // reach of their limits like the upstreams' budgets.
        environment.merge(try apnsStandIn().1) { $1 }
        environment.merge([
            "PIER_PUSH_DEVICES_REQUESTS_PER_MINUTE": "100000", "PIER_PUSH_DEVICES_BURST": "100000", "PIER_PUSH_DEVICES_CLIENT_SHARE": "1",
            "PIER_PUSH_REGISTRATIONS_PER_DAY": "10000000",
        ]) { $1 }
        environment.merge(extra) { $1 }
        let pier = try startPier(environment)
        let deadline = Date().addingTimeInterval(30)
        for path in ["/api/ships", "/api/water-temp", "/v1/weather?lat=60.17&lon=24.94", "/v1/lake-temperatures"] {
            while try RawClient.request(port: pier.port, path).status != 200 {
                guard Date() < deadline else {
                    XCTFail("\(path) never answered 200")
                    return pier
                }
                usleep(100_000)
            }
        }
        return pier
    }

    func testTheDocumentIsServedAndMatchesTheRouter() throws {
        let pier = try startPier(["PIER_FETCH": "off"])
        let response = try RawClient.request(port: pier.port, "/openapi.json")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(document["openapi"] as? String, "3.1.0")
        XCTAssertEqual((document["info"] as? [String: Any])?["version"] as? String, "0.1.0", "the version pier reports")
        // The build's own YAML reader (Sources/OpenAPIJSON) wrote what PyYAML reads, byte for byte.
        guard let python = ProcessInfo.processInfo.environment["PIER_PYTHON"] else {
            return XCTFail("PIER_PYTHON must name the tools' bin directory (scripts/test sets it)")
        }
        let reference = try ChildProcess.run(python + "/python", [ChildProcess.repositoryRoot.appendingPathComponent("scripts/lib/openapi_json.py").path])
        XCTAssertEqual(reference.status, 0, reference.output)
        XCTAssertEqual(response.bodyText, reference.output, "/openapi.json is not openapi.yaml as PyYAML reads it")
        let etag = try XCTUnwrap(response.header("ETag"))
        XCTAssertEqual(try RawClient.request(port: pier.port, "/openapi.json", headers: [("If-None-Match", etag)]).status, 304)
        XCTAssertEqual(pier.stop(), 0)

        let methods = Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        let documented = paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } }.sorted()
        // With every optional surface on (Next Wave's community is registered only when on).
        let listed = try ChildProcess.run(
            PierProcess.binary.path, ["routes"],
            environment: ["PIER_BENCH_ROUTES": "off", "PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": NextWaveEndToEndTests.secret])
        XCTAssertEqual(listed.status, 0, listed.output)
        let registered = listed.output.split(separator: "\n").map(String.init).sorted()
        XCTAssertFalse(registered.isEmpty)
        XCTAssertEqual(Set(registered).subtracting(documented).sorted(), [], "registered in the router but missing from openapi.yaml")
        XCTAssertEqual(Set(documented).subtracting(registered).sorted(), [], "in openapi.yaml but not registered")
    }

    /// schemathesis' standard checks on every operation, with ships, lakes and weather data loaded.
    func testSchemathesisFindsNothing() throws {
        guard let schemathesis = ProcessInfo.processInfo.environment["PIER_SCHEMATHESIS"],
            FileManager.default.isExecutableFile(atPath: schemathesis)
        else {
            return XCTFail("PIER_SCHEMATHESIS must name the schemathesis executable (scripts/test installs it)")
        }
        let pier = try startPierWithData()
        let run = { try ChildProcess.run(schemathesis, [
            "run", ChildProcess.repositoryRoot.appendingPathComponent("openapi.yaml").path,
            "--url", "http://127.0.0.1:\(pier.port)",
            "--checks", "all",
            // Next Wave's community speaks Supabase's wire, not Pier's contract (its refusals are PostgREST's and the auth
            // server's, a random refresh token is a 400 by design): the official Supabase client proves it
            // (NextWaveEndToEndTests), and it is off here.
            "--exclude-tag", "community",
            "--header", "Authorization: Bearer s3cret-token", "--continue-on-failure",
            "--max-examples", ProcessInfo.processInfo.environment["PIER_SCHEMATHESIS_EXAMPLES"] ?? "60",
            "--seed", ProcessInfo.processInfo.environment["PIER_SCHEMATHESIS_SEED"] ?? "1",
            "--workers", "2",
            "--request-timeout", "10",
            "--no-color",
        ], environment: [
            // Every module's own hooks (constraints JSON Schema cannot say; see the file).
            "SCHEMATHESIS_HOOKS": ChildProcess.repositoryRoot.appendingPathComponent("scripts/lib/schemathesis_hooks.py").path,
            "NO_COLOR": "1",
        ]) }
        var result = try run()
        // CPython 3.11 before 3.11.8 (gh-106905) now and then fails inside hypothesis' own parsing of its lambdas
        // ("AST constructor recursion depth mismatch"): an error of the tool, not a finding about Pier — run it again.
        if result.status != 0, result.output.contains("AST constructor recursion depth mismatch"), !result.output.contains("FAILURES") {
            result = try run()
        }
        XCTAssertEqual(result.status, 0, "schemathesis found something:\n\(result.output)")
        print(result.output.split(separator: "\n").suffix(25).joined(separator: "\n"))
        XCTAssertEqual(pier.stop(), 0)
    }

    /// The Swift client generated from openapi.yaml (clients/swift, built by scripts/test) against the real binary.
    func testTheGeneratedSwiftClientWorksAgainstPier() throws {
        guard let check = ProcessInfo.processInfo.environment["PIER_CLIENT_CHECK"], FileManager.default.isExecutableFile(atPath: check) else {
            return XCTFail("PIER_CLIENT_CHECK must name clients/swift's pier-client-check (scripts/test builds it)")
        }
        let pier = try startPierWithData()
        let result = try ChildProcess.run(check, ["http://127.0.0.1:\(pier.port)", "s3cret-token"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("all checks passed"), result.output)
        // Every check the program holds printed `ok`.
        let source = try String(contentsOf: ChildProcess.repositoryRoot.appendingPathComponent("clients/swift/Sources/PierClientCheck/main.swift"), encoding: .utf8)
        let checks = source.components(separatedBy: "\nawait check(").count - 1
        XCTAssertGreaterThanOrEqual(checks, 8)
        XCTAssertEqual(result.output.components(separatedBy: "\nok   ").count + (result.output.hasPrefix("ok   ") ? 1 : 0), checks + 1, result.output)
        XCTAssertEqual(pier.stop(), 0)
    }
}
