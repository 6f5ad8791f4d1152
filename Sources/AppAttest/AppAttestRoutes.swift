import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import OnDemand

/// `POST /v1/app-attest/challenge`, `/register` and `/token`: JSON in, JSON out, never cached. Refusals are `401`
/// with the reason (`400` when the body is not the documented JSON: members missing, not base64, a key id or challenge
/// not 32 bytes), mapped here and nowhere else.
struct AppAttestRoutes: Sendable {
    static let challengePath = "/v1/app-attest/challenge"
    static let registerPath = "/v1/app-attest/register"
    static let tokenPath = "/v1/app-attest/token"
    static let debugPath = "/v1/app-attest/debug"
    /// An attestation object is about 5 KB; a request body past this is not one.
    static let maximumBodyBytes = 64 * 1024

    let service: AppAttestService?
    /// Where a request comes from (the trusted-proxy rule): registrations and verifications are counted per network.
    let spenders: Spenders

    func register(in router: inout Router) {
        router.on(.post, Self.challengePath) { [service] _ in
            guard let service else { throw Self.off }
            let body = JSONWriter.make { json in
                json.object { json in
                    json.member("challenge", Data(service.challenge()).base64EncodedString())
                    json.member("expires_in", Int(AttestChallenge.lifetime))
                }
            }
            return .json(body, headers: ["Cache-Control": "no-store"])
        }
        exchange(Self.registerPath, proof: "attestation", status: .created, in: &router) { service, fields, client in
            try await service.register(keyID: fields[0], attestation: fields[1], challenge: fields[2], client: client)
        }
        exchange(Self.tokenPath, proof: "assertion", status: .ok, in: &router) { service, fields, client in
            try await service.token(keyID: fields[0], assertion: fields[1], challenge: fields[2], client: client)
        }
        router.on(.post, Self.debugPath) { [service, spenders] request in
            guard let service else { throw Self.off }
            guard service.debugDevices else { throw HTTPError(.forbidden, AppAttestFailure.debugOff.description) }
            let token = try Self.debugToken(of: request)
            let result = try await Self.answering { try service.debug(token: token, client: spenders.address(of: request)) }
            return try Self.token(result, status: .ok)
        }
    }

    /// `{"debugToken": "<what pier app-attest debug-token create printed>"}`.
    static func debugToken(of request: HTTPRequest) throws(HTTPError) -> String {
        guard request.body.count <= 1024, let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
            let token = object["debugToken"] as? String, !token.isEmpty, token.utf8.count <= 256
        else { throw HTTPError(.badRequest, "the body must be a JSON object with debugToken (a string, as pier app-attest debug-token create printed it)") }
        return token
    }

    /// `POST path` with `{"keyId", proof, "challenge"}`: `step` turns the decoded members into a token.
    private func exchange(
        _ path: String, proof: String, status: HTTPStatus, in router: inout Router,
        _ step: @escaping @Sendable (AppAttestService, [[UInt8]], IPAddress) async throws -> Result<String, AppAttestFailure>
    ) {
        router.on(.post, path) { [service, spenders] request in
            guard let service else { throw Self.off }
            let fields = try Self.fields(of: request, ["keyId", proof, "challenge"]) { service.countMalformed(attestation: proof == "attestation") }
            let result = try await Self.answering { try await step(service, fields, spenders.address(of: request)) }
            return try Self.token(result, status: status)
        }
    }

    static let off = HTTPError(.serviceUnavailable, "App Attest is off on this server (PIER_APP_ATTEST)", headers: ["Retry-After": "3600"])

    /// The base64 members `names` of the request's JSON object, decoded; `refused` counts a body that is not.
    static func fields(of request: HTTPRequest, _ names: [String], refused: () -> Void) throws(HTTPError) -> [[UInt8]] {
        do { return try fields(of: request, names) } catch {
            refused()
            throw error
        }
    }

    private static func fields(of request: HTTPRequest, _ names: [String]) throws(HTTPError) -> [[UInt8]] {
        guard request.body.count <= maximumBodyBytes else { throw HTTPError(.contentTooLarge, "the body is larger than \(maximumBodyBytes) bytes") }
        do { return try Base64Members.decode(request.body, names) } catch { throw HTTPError(.badRequest, error.description) }
    }

    /// Whose share is spent, in the words of a `429`.
    static let busy: [AppAttestService.Unavailable.Whose: String] = [
        .address: "this address has used its share of App Attest verifications",
        .network: "this network has used its share of App Attest verifications",
        .everybody: "App Attest verifications are at this server's limit for everybody",
        .registrations: "this network has registered its new devices for today (PIER_APP_ATTEST_REGISTRATIONS_PER_DAY)",
    ]

    /// `body`'s result, with the service's unavailability answered.
    static func answering(_ body: () async throws -> Result<String, AppAttestFailure>) async throws -> Result<String, AppAttestFailure> {
        do {
            return try await body()
        } catch AppAttestService.Unavailable.busy(let retryAfter, let whose) {
            throw HTTPError(.tooManyRequests, busy[whose] ?? "", headers: ["Retry-After": String(retryAfter)])
        } catch {
            throw HTTPError(.serviceUnavailable, "App Attest could not reach its database", headers: ["Retry-After": "5"])
        }
    }

    /// `{"token":…,"expires_in":3600}`, or the refusal: `401` with the check that failed — an attestation or assertion
    /// that does not even decode included (the body's shape, checked by ``fields(of:_:refused:)``, is the `400`).
    static func token(_ result: Result<String, AppAttestFailure>, status: HTTPStatus) throws(HTTPError) -> HTTPResponse {
        switch result {
        case .success(let token):
            let body = JSONWriter.make { json in
                json.object { json in
                    json.member("token", token)
                    json.member("expires_in", Int(AppToken.lifetime))
                }
            }
            return .json(body, status: status, headers: ["Cache-Control": "no-store"])
        case .failure(let failure):
            throw Spender.Refusal.httpError(failure.description)
        }
    }
}
