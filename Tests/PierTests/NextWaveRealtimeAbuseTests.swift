import Foundation
import HTTPTesting
import XCTest

/// Live check-ins tried as an attacker would, through the real binary (issue 65): `scripts/lib/realtime_attacks.py`
/// plays each attack beside a healthy subscriber and rider at a size fit for CI (`BENCH_SECTIONS=realtime-abuse
/// scripts/bench` plays them full size at the shipped caps) and fails when a bound did not hold; what pier counted is
/// checked here. The connection cap is small (250: sockets may take 200 of it) so that filling it is quick.
final class NextWaveRealtimeAbuseTests: EndToEndTestCase {
    func testEveryAttackMeetsItsBound() throws {
        let pier = try startPier([
            "PIER_NEXTWAVE": "on", "PIER_NEXTWAVE_JWT_SECRET": NextWaveEndToEndTests.secret, "PIER_FETCH": "off",
            // A short idle timeout makes the sweep look at every socket within 3 s (the unfinished messages' close).
            "PIER_MAX_CONNECTIONS": "250", "PIER_WEBSOCKET_MESSAGE_TIMEOUT_S": "1", "PIER_WEBSOCKET_IDLE_S": "12",
        ])
        let run = try ChildProcess.run(
            "/usr/bin/env",
            ["python3", ChildProcess.repositoryRoot.appendingPathComponent("scripts/lib/realtime_attacks.py").path, "http://127.0.0.1:\(pier.port)",
             NextWaveEndToEndTests.anonKey(), "\(pier.process.processIdentifier)", "--check", "--message-timeout", "1"])
        XCTAssertEqual(run.status, 0, run.output)
        let attacks = run.output.split(separator: "\n").filter { $0.hasPrefix("{\"attack\"") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(
            attacks.compactMap { $0["attack"] as? String },
            ["undisturbed", "pings-unread", "sockets-flood", "bindings-flood", "long-join-ref", "row-flood", "unfinished-message", "long-filters"],
            run.output)
        XCTAssertGreaterThanOrEqual(try pier.metric(#"websocket_closes_total{code="1008"}"#) ?? 0, 12, "pings, refs and unfinished messages closed")
        XCTAssertGreaterThan(try pier.metric("pier_nextwave_writes_refused_total") ?? 0, 0, "the row flood ran into its share")
        let joins = try pier.metric(#"pier_realtime_joins_total{result="refused"}"#) ?? 0
        XCTAssertGreaterThanOrEqual(joins, 8 * 20 + 10 * 5, "the bindings past a socket's bound and the long filters refused")
        _ = pier.stop()
        XCTAssertFalse(pier.standardOutput().contains(NextWaveEndToEndTests.anonKey()), "the log shows no key")
    }
}
