import Basics
import Feature
import Foundation
import Geography
import HTTPServer
import Limits
import OnDemand
import Scheduling
import Synchronization
import XCTest

/// The engine's value core on its own (no PostgreSQL: a source that stores nothing): what it answers and why, and the
/// one refusal rule every route renders — `503` for the upstream or everyone's budget, `429` for the client's share,
/// `401` for a missing credential.
final class OnDemandCoreTests: XCTestCase {
    /// Answers `"answer to <key>"`, or fails while `failing`; counts its calls.
    final class Source: OnDemandValueSource, Sendable {
        let failing = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)

        func stored(_ key: String) async throws -> OnDemandStored<String>? { nil }
        func store(_ value: String, for key: String, fetchedAt: Date) async throws {}
        func lastFetch() async throws -> Date? { nil }
        func fetch(_ key: String) async throws -> UpstreamReply<String> {
            calls.add(1, ordering: .relaxed)
            if failing.load(ordering: .relaxed) { throw URLError(.timedOut) }
            return .answer("answer to \(key)")
        }
        func lifetime(of value: String, for key: String, now: Date) -> TimeInterval { 60 }
        func cost(of value: String) -> Int { value.utf8.count }
    }

    final class Clock: Sendable {
        private let seconds = Mutex(1000.0)
        var now: Double { seconds.withLock { $0 } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    private func core(_ source: Source, budget: BudgetSettings, clock: Clock = Clock()) -> OnDemandCore<Source> {
        var settings = OnDemandUpstream.Settings(budget: budget)
        settings.waiting = .never
        return OnDemandCore(
            kind: "test", source: source,
            upstream: OnDemandUpstream(name: "Upstream", metric: "test", settings: settings, quota: nil, clock: { clock.now }, metrics: nil),
            report: UpstreamReport(source: "test", board: nil))
    }

    /// The refusal ``OnDemandCore/admission(for:client:now:)`` decides (the claim of a request let through is dropped).
    private func refusal(_ core: OnDemandCore<Source>, for key: String, client: Spender) -> OnDemandOutcome<String>? {
        if case .refused(let outcome) = core.admission(for: key, client: client) { return outcome }
        return nil
    }

    private func unavailable(_ outcome: OnDemandOutcome<String>?, file: StaticString = #filePath, line: UInt = #line) -> OnDemandUnavailable? {
        guard case .unavailable(let why)? = outcome else {
            XCTFail("expected nothing to serve, got \(String(describing: outcome))", file: file, line: line)
            return nil
        }
        return why
    }

    func testAnAnswerIsHeldThenServedStaleWithWhyWhenTheUpstreamFails() async throws {
        let source = Source()
        let core = core(source, budget: .init(ratePerMinute: 600, burst: 10, clientShare: 1))
        let now = Date()
        guard case .answer(let fresh) = await core.answer("a", client: nil, now: now) else { return XCTFail("an answer") }
        XCTAssertEqual(fresh.value, "answer to a")
        XCTAssertFalse(fresh.stale)
        XCTAssertEqual(core.held("a", now: now.addingTimeInterval(59))?.value, "answer to a", "held while fresh")
        XCTAssertNil(core.held("a", now: now.addingTimeInterval(61)), "not past its lifetime")

        source.failing.store(true, ordering: .relaxed)
        guard case .answer(let stale) = await core.answer("a", client: nil, now: now.addingTimeInterval(61)) else { return XCTFail("stale") }
        XCTAssertEqual(stale.value, "answer to a")
        XCTAssertEqual(stale.staleBecause?.cause, .upstream)
        XCTAssertEqual(stale.staleBecause?.reason, "Upstream failed")
        XCTAssertEqual(source.calls.load(ordering: .relaxed), 2)

        // Nothing held: the reason, Retry-After and the rule's 503.
        let missing = await core.answer("b", client: nil, now: now)
        let why = try XCTUnwrap(unavailable(missing))
        XCTAssertEqual(why.cause, .upstream)
        XCTAssertEqual(why.retryAfter, 60)
        let response = why.httpError("nothing for b").response
        XCTAssertEqual(response.status.code, 503)
        XCTAssertEqual(response.headers["retry-after"], "60")
        XCTAssertEqual(response.headers["cache-control"], "no-store")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"error":"nothing for b"}"#)
    }

    func testAClientsShareIsItsOwnDoingAndAnEmptySharedBudgetIsEveryones() async throws {
        let source = Source()
        // A burst of 2, a client's share of half: one call each.
        let core = core(source, budget: .init(ratePerMinute: 1, burst: 2, clientShare: 0.5))
        let first = Spender(try XCTUnwrap(IPAddress("198.51.100.7")))
        let second = Spender(try XCTUnwrap(IPAddress("203.0.113.9")))
        guard case .answer = await core.answer("a", client: first) else { return XCTFail("the first client's call") }
        XCTAssertNil(refusal(core, for: "b", client: second), "the second client has a share left")
        guard case .answer = await core.answer("b", client: second) else { return XCTFail("the second client's call") }

        // The first client's share is spent but the shared budget is too: nobody's share to blame (503).
        let everyones = try XCTUnwrap(unavailable(refusal(core, for: "c", client: first)))
        XCTAssertEqual(everyones.cause, .upstream)
        XCTAssertEqual(everyones.reason, "the request budget for Upstream is spent")
        XCTAssertEqual(everyones.httpError().response.status.code, 503)
        XCTAssertEqual(source.calls.load(ordering: .relaxed), 2)
    }

    func testAClientPastItsShareWhileOthersHaveTokensIsTold429() async throws {
        let source = Source()
        let core = core(source, budget: .init(ratePerMinute: 1, burst: 4, clientShare: 0.25))
        let greedy = Spender(try XCTUnwrap(IPAddress("198.51.100.7")))
        guard case .answer = await core.answer("a", client: greedy) else { return XCTFail("its one call") }
        let why = try XCTUnwrap(unavailable(refusal(core, for: "b", client: greedy)))
        XCTAssertEqual(why.cause, .clientShare)
        XCTAssertEqual(why.reason, "this client has used its share of the request budget for Upstream")
        let response = why.httpError().response
        XCTAssertEqual(response.status.code, 429)
        XCTAssertNotNil(response.headers["retry-after"])
        // What memory holds for the key is served stale instead, with the same reason.
        guard case .answer(let held)? = refusal(core, for: "a", client: greedy) else { return XCTFail("stale instead of a refusal") }
        XCTAssertEqual(held.staleBecause?.cause, .clientShare)
    }

    /// A call that fails fast, while its request works on with its claim (weather asking MET Norway): a request for the
    /// key meanwhile shares the failure — no call of its own, no share asked, so a client whose share is spent is not
    /// told `429` — and once that request is done, the next one asks the upstream again.
    func testARequestJoiningOneThatSawTheUpstreamFailSharesTheFailure() async throws {
        let source = Source()
        source.failing.store(true, ordering: .relaxed)
        // A share of one call: the client's first call spends it.
        let core = core(source, budget: .init(ratePerMinute: 1, burst: 4, clientShare: 0.25))
        let client = Spender(try XCTUnwrap(IPAddress("2001:db8::7")))
        let (working, work) = AsyncStream<Void>.makeStream()
        let (joined, join) = AsyncStream<OnDemandOutcome<String>>.makeStream()
        let first = Task {
            await core.outcome(for: "cell", client: client) { outcome -> OnDemandOutcome<String> in
                work.yield()
                for await _ in joined { break }
                return outcome
            }
        }
        for await _ in working { break }
        XCTAssertTrue(core.admission(for: "cell", client: client).isAdmitted, "joins the claim: its spent share is not asked")
        let joiner = await core.outcome(for: "cell", client: client)
        join.yield(joiner)
        XCTAssertEqual(try XCTUnwrap(unavailable(joiner)).cause, .upstream, "the failure the first request saw")
        let made = await first.value
        XCTAssertEqual(try XCTUnwrap(unavailable(made)).cause, .upstream)
        XCTAssertEqual(source.calls.load(ordering: .relaxed), 1, "one call for both")

        // The first request is done: the next one is a call of its own, on its own share (spent by now).
        XCTAssertEqual(try XCTUnwrap(unavailable(refusal(core, for: "cell", client: client))).cause, .clientShare)
        let other = Spender(try XCTUnwrap(IPAddress("198.51.100.9")))
        let again = await core.outcome(for: "cell", client: other)
        XCTAssertEqual(try XCTUnwrap(unavailable(again)).cause, .upstream)
        XCTAssertEqual(source.calls.load(ordering: .relaxed), 2, "asked again")
    }

    /// Answers for keys that are places (`"lat,lon"`), each costing 1,000 bytes of memory.
    struct PlaceSource: OnDemandValueSource {
        func stored(_ key: String) async throws -> OnDemandStored<String>? { nil }
        func store(_ value: String, for key: String, fetchedAt: Date) async throws {}
        func lastFetch() async throws -> Date? { nil }
        func fetch(_ key: String) async throws -> UpstreamReply<String> { .answer("answer to \(key)") }
        func lifetime(of value: String, for key: String, now: Date) -> TimeInterval { 60 }
        func cost(of value: String) -> Int { 1000 }
        func location(of key: String) -> Coordinate? {
            let parts = key.split(separator: ",").compactMap { Double($0) }
            return parts.count == 2 ? Coordinate(latitude: parts[0], longitude: parts[1]) : nil
        }
    }

    /// Memory's neighbour search (weather's neighbouring cells): the nearest answer held and the nearest fetched since a
    /// time, within reach, a key left out; what memory evicted for space is not found, what was used lately stays.
    func testMemoryFindsTheNearestAnswersItHoldsAndForgetsWhatItEvicts() async throws {
        let core = OnDemandCore(
            kind: "test", source: PlaceSource(),
            upstream: OnDemandUpstream(name: "Upstream", metric: "test", settings: .init(budget: .unlimited), quota: nil, metrics: nil),
            report: UpstreamReport(source: "test", board: nil), memoryBytes: 5_500)
        let home = try XCTUnwrap(Coordinate(latitude: 60.0, longitude: 25.0))
        let (near, far) = ("60.02,25.0", "60.05,25.0")  // 2.2 and 5.6 km north
        _ = await core.answer(near, client: nil)
        try await Task.sleep(for: .milliseconds(5))
        let since = Date()
        _ = await core.answer(far, client: nil)
        _ = await core.answer("60.0,25.0", client: nil)

        var found = core.nearestHeld(to: home, within: 10, freshSince: since, excluding: "60.0,25.0")
        XCTAssertEqual(found.any?.key, near)
        XCTAssertEqual(found.any?.kilometres ?? 0, 2.22, accuracy: 0.01)
        XCTAssertEqual(found.fresh?.key, far, "the nearer one was fetched before")
        XCTAssertEqual(found.fresh?.answer.value, "answer to \(far)")
        found = core.nearestHeld(to: home, within: 3, freshSince: since, excluding: "60.0,25.0")
        XCTAssertEqual(found.any?.key, near)
        XCTAssertNil(found.fresh, "out of reach")
        XCTAssertEqual(core.nearestHeld(to: home, within: 10, freshSince: since, excluding: nil).any?.key, "60.0,25.0")

        // Room for five: the sixth evicts the least recently used — `far`, since `near` was just used.
        _ = await core.answer("61.0,25.0", client: nil)
        XCTAssertNotNil(core.heldAnswer(near))
        _ = await core.answer("61.1,25.0", client: nil)
        _ = await core.answer("61.2,25.0", client: nil)
        XCTAssertEqual(core.count, 5)
        XCTAssertEqual(core.evictions, 1)
        XCTAssertNil(core.heldAnswer(far))
        found = core.nearestHeld(to: home, within: 10, freshSince: since, excluding: near)
        XCTAssertEqual(found.any?.key, "60.0,25.0")
        XCTAssertNil(core.nearestHeld(to: try XCTUnwrap(Coordinate(latitude: 60.05, longitude: 25.0)), within: 1, freshSince: .distantPast, excluding: nil).any)

        // A wide reach looks at the squares memory occupies, not at every square of its box: the same answers.
        found = core.nearestHeld(to: home, within: 500, freshSince: since, excluding: near)
        XCTAssertEqual(found.any?.key, "60.0,25.0")
        XCTAssertEqual(found.fresh?.key, "60.0,25.0")
        XCTAssertLessThanOrEqual(core.bytes, 5_500)
    }

    /// `greedy` (past its share) asks for `c` while another client's request for it is past memory.
    private func checkJoining(_ core: OnDemandCore<Source>, _ greedy: Spender) throws {
        guard case .admitted(let maker) = core.admission(for: "c", client: Spender(try XCTUnwrap(IPAddress("203.0.113.9")))) else {
            return XCTFail("another client's new key")
        }
        XCTAssertFalse(maker.joins)
        guard case .admitted(let joiner) = core.admission(for: "c", client: greedy) else { return XCTFail("a joiner is not refused") }
        XCTAssertTrue(joiner.joins)
    }

    func testASpenderWithoutTheCredentialRequiredIsTold401AndNothingIsAsked() async throws {
        let source = Source()
        let core = core(source, budget: .init(ratePerMinute: 600, burst: 10, clientShare: 1))
        let counted = Atomic<Int>(0)
        let refused = Spender(
            address: try XCTUnwrap(IPAddress("198.51.100.7")), groups: [],
            refusal: Spender.Refusal("an App Attest token is required") { counted.add(1, ordering: .relaxed) })
        let outcome = await core.answer("a", client: refused)
        let why = try XCTUnwrap(unavailable(outcome))
        XCTAssertEqual(why.cause, .credential)
        let response = why.httpError("nothing for a: \(why.reason)").response
        XCTAssertEqual(response.status.code, 401)
        XCTAssertEqual(response.headers["www-authenticate"], "Pier-App-Token")
        XCTAssertEqual(source.calls.load(ordering: .relaxed), 0, "no upstream call")
        XCTAssertEqual(counted.load(ordering: .relaxed), 1, "the refusal counted once")
    }

    /// An answer kept for nobody spends by the same rule: the client's share (`429`), everyone's budget (`503`), the
    /// client's requests at once, the credential (`401`) — each before the call, said as the core says it.
    func testSpendingWithoutKeepingFollowsTheSameRule() async throws {
        let clock = Clock()
        var settings = OnDemandUpstream.Settings(budget: .init(ratePerMinute: 1, burst: 4, clientShare: 0.25))
        settings.waiting = UpstreamLimits<ClientGroup>.Waiting(maxWait: 0, waitingPerClient: 4, requestsPerClient: 1)
        let upstream = OnDemandUpstream(name: "Gemini", metric: "test", settings: settings, quota: nil, clock: { clock.now }, metrics: nil)
        let greedy = Spender(try XCTUnwrap(IPAddress("198.51.100.7")))
        let calls = Atomic<Int>(0)
        let call: @Sendable () async -> Int = { calls.add(1, ordering: .relaxed).newValue }
        guard case .success(1) = await upstream.spend(for: greedy, retryAfterFailure: 30, call) else { return XCTFail("its one call") }
        guard case .failure(let share) = await upstream.spend(for: greedy, retryAfterFailure: 30, call) else { return XCTFail("its share is spent") }
        XCTAssertEqual(share.cause, .clientShare)
        XCTAssertEqual(share.reason, "this client has used its share of the request budget for Gemini")
        XCTAssertEqual(share.httpError().response.status.code, 429)

        // While a client's one request at once is under way, its next is refused before any work (a budget it does not reach).
        var roomy = settings
        roomy.budget = .init(ratePerMinute: 600, burst: 100, clientShare: 1)
        let generous = OnDemandUpstream(name: "Gemini", metric: "test", settings: roomy, quota: nil, clock: { clock.now }, metrics: nil)
        let patient = Spender(try XCTUnwrap(IPAddress("203.0.113.9")))
        let started = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        async let first = generous.spend(for: patient, retryAfterFailure: 30) { () async -> Int in
            started.store(true, ordering: .relaxed)
            while !release.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(5)) }
            return 7
        }
        while !started.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        guard case .failure(let busy) = await generous.spend(for: patient, retryAfterFailure: 30, call) else { return XCTFail("one at once") }
        XCTAssertEqual(busy.reason, "this client has too many requests waiting for Gemini at once")
        release.store(true, ordering: .relaxed)
        guard case .success(7) = await first else { return XCTFail("the first went on") }

        // A spender without the credential the operator requires: 401 at once, no call, nothing else asked.
        let tokenless = Spender(address: try XCTUnwrap(IPAddress("192.0.2.1")), groups: [], refusal: Spender.Refusal("an App Attest token is required"))
        guard case .failure(let credential) = await upstream.spend(for: tokenless, retryAfterFailure: 30, call) else { return XCTFail("refused") }
        XCTAssertEqual(credential.httpError().response.status.code, 401)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1, "only the first call was made")
    }
}

private extension OnDemandAdmission {
    var isAdmitted: Bool {
        if case .admitted = self { return true }
        return false
    }
}
