import UpstreamHTTP
import UpstreamTesting
import XCTest

/// The real URLSession client against our own server serving fixtures and misbehaving on purpose.
final class UpstreamClientTests: XCTestCase {
    var upstream: FixtureUpstream!

    override func setUpWithError() throws {
        upstream = try FixtureUpstream()
    }

    override func tearDown() {
        upstream?.stop()
    }

    private func client(timeout: Duration = .seconds(5), maximumBodyBytes: Int = 1 << 20, maximumRedirects: Int = 3) -> UpstreamClient {
        UpstreamClient(configuration: .init(timeout: timeout, maximumBodyBytes: maximumBodyBytes, maximumRedirects: maximumRedirects))
    }

    func testFetchesABodyAndSendsHeaders() async throws {
        let response = try await client().get(upstream.meteoNewsURL, headers: ["Accept-Language": "de"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, try Fixtures.bytes("meteonews", "seen-in-der-schweiz.2026-07-04.html"))
        XCTAssertEqual(response.contentType, "text/html; charset=utf-8")
        XCTAssertEqual(upstream.requests(.meteonews).last?.headers["accept-language"], "de")
    }

    func testGzipIsAcceptedAndDecoded() async throws {
        let response = try await client().get(upstream.baseURL + "/gzip")
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("MS Gzip"), "\(response.body.prefix(16))")
    }

    func testNon2xxIsAStatusError() async {
        upstream.set(.meteonews, .status(503))
        do {
            _ = try await client().get(upstream.meteoNewsURL)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .status(503, url: upstream.meteoNewsURL))
        }
    }

    func testBodiesOverTheCapAreCutOff() async {
        let url = upstream.baseURL + "/large?bytes=300000"
        do {
            _ = try await client(maximumBodyBytes: 100_000).get(url)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .tooLarge(limit: 100_000, url: url))
        }
    }

    func testRedirectsAreFollowedUpToTheLimit() async throws {
        let followed = try await client(maximumRedirects: 3).get(upstream.baseURL + "/redirect?n=2")
        XCTAssertEqual(followed.status, 200)
        let url = upstream.baseURL + "/redirect?n=5"
        do {
            _ = try await client(maximumRedirects: 3).get(url)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .tooManyRedirects(limit: 3, url: url))
        }
    }

    func testCredentialsFollowARedirectOnlyWithinTheSameOrigin() async throws {
        let other = try FixtureUpstream()
        defer { other.stop() }
        let headers = ["Authorization": "apikey secret-key", "Accept": "text/plain"]
        let same = try await client().get(upstream.baseURL + "/redirect-to?url=/echo-headers", headers: headers)
        XCTAssertTrue(String(decoding: same.body, as: UTF8.self).contains("authorization"), "the same origin keeps the key")
        let target = (other.baseURL + "/echo-headers").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let elsewhere = try await client().get(upstream.baseURL + "/redirect-to?url=" + target, headers: headers)
        let sent = String(decoding: elsewhere.body, as: UTF8.self)
        XCTAssertFalse(sent.contains("authorization"), "another origin (here another port) never sees the key: \(sent)")
        XCTAssertTrue(sent.contains("accept"), sent)
        // A key of the caller's own scheme (Gemini's x-goog-api-key), declared as a credential, goes the same way.
        let declared = try await client().get(
            upstream.baseURL + "/redirect-to?url=" + target, headers: ["Accept": "text/plain"], credentials: ["X-Goog-Api-Key": "secret-key"])
        XCTAssertFalse(String(decoding: declared.body, as: UTF8.self).contains("x-goog-api-key"))
        let kept = try await client().get(upstream.baseURL + "/redirect-to?url=/echo-headers", credentials: ["X-Goog-Api-Key": "secret-key"])
        XCTAssertTrue(String(decoding: kept.body, as: UTF8.self).contains("x-goog-api-key"), "the same origin keeps it")
    }

    func testAHangingUpstreamTimesOut() async {
        upstream.set(.zsg, .hang)
        let started = ContinuousClock.now
        do {
            _ = try await client(timeout: .seconds(1)).get(upstream.zsgURL)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .timedOut(url: upstream.zsgURL))
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(30), "bounded, not hanging")
    }

    func testCancellationStopsTheTransfer() async {
        upstream.set(.zsg, .hang)
        let client = client(timeout: .seconds(60))
        let url = upstream.zsgURL
        let task = Task { try await client.get(url) }
        try? await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get())
    }

    func testRefusedConnectionAndBadURLsAreErrors() async {
        for url in ["ftp://example.org/x", "not a url", "http:///nohost"] {
            do {
                _ = try await client().get(url)
                XCTFail(url)
            } catch {
                XCTAssertEqual(error, .invalidURL(url))
            }
        }
        do {
            _ = try await client().get("http://127.0.0.1:1/")
            XCTFail("expected an error")
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
    }
}
