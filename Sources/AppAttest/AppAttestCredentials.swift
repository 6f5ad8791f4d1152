import Basics
import Foundation
import HTTPServer
import Identity

/// Who a request counts as under App Attest (``AppAttestMode``), worked out only when it would spend. Its token's state
/// (``SpendingState``) is counted in every mode; then a valid `X-Pier-App-Token` makes it its device
/// (``ClientGroup/init(device:)``) or debug device (``ClientGroup/init(debug:)``) — budgeted on its own, whatever
/// address it comes from; a token that is forged, expired or revoked may spend nothing; without a token, `prefer`
/// counts the address and the anonymous pool, `require` lets it be served only what is held. `monitor` only counts.
final class AppAttestCredentials: SpenderResolver {
    let service: AppAttestService

    init(service: AppAttestService) {
        self.service = service
    }

    /// Made only with a service (``AppAttestFeature``: none when `PIER_APP_ATTEST=off`).
    func spender(of request: HTTPRequest, so spender: Spender) -> Spender {
        let address = spender.address
        guard let token = request.headers[AppToken.header] else {
            service.count(.missing)
            switch service.mode {
            case .monitor, .off: return spender
            case .prefer: return Spender(address: address, groups: address.groups + [.anonymous])
            case .require: return refused(address, Self.missing)
            }
        }
        let (state, group) = service.spender(token: Substring(token), now: Date())
        service.count(state)
        if service.mode == .monitor { return spender }
        switch group {
        case .success(let group): return Spender(address: address, groups: [group])
        case .failure(let failure): return refused(address, failure.description)
        }
    }

    static let missing = "this server spends upstream calls only for attested app instances: send X-Pier-App-Token (POST /v1/app-attest/token)"

    /// Counted by address, and refused wherever it would spend.
    private func refused(_ address: IPAddress, _ reason: String) -> Spender {
        Spender(address: address, groups: address.groups, refusal: Spender.Refusal(reason, counted: { [service] in service.countSpendingRefused() }))
    }
}
