import Basics
import Foundation
import HTTPServer

/// Who a request counts as under App Attest (``AppAttestMode``), worked out only when it would spend: a valid
/// `X-Pier-App-Token` makes it its device (``ClientGroup/init(device:)``) — budgeted per device, whatever address it
/// comes from; a token that is forged, expired or revoked may spend nothing; without a token, `prefer` counts the
/// address and the anonymous pool, `require` lets it be served only what is held.
final class AppAttestCredentials: ClientCredentials {
    let service: AppAttestService

    init(service: AppAttestService) {
        self.service = service
    }

    /// Made only with a service (``AppAttestFeature``: none when `PIER_APP_ATTEST=off`).
    func client(of request: HTTPRequest, address: IPAddress) -> Client {
        guard let token = request.headers[AppToken.header] else {
            if service.mode == .prefer { return Client(groups: address.groups + [.anonymous]) }
            return refused(address, "this server spends upstream calls only for attested app instances: send X-Pier-App-Token (POST /v1/app-attest/token)")
        }
        do {
            let keyID = try service.tokens.keyID(of: Substring(token), now: Date())
            if service.isRevoked(keyID) { throw AppAttestFailure.revoked }
            return Client(groups: [ClientGroup(device: keyID)])
        } catch {
            return refused(address, "\(error)")
        }
    }

    /// Counted by address, and refused wherever it would spend.
    private func refused(_ address: IPAddress, _ reason: String) -> Client {
        Client(groups: address.groups, refusal: Client.Refusal(reason, counted: { [service] in service.countSpendingRefused() }))
    }
}
