import HTTPServer

extension FastAnswer {
    /// `work`'s answer, with every error it throws — on the loop or later — answered by `refusal`: each of the
    /// community's surfaces words refusals in its own shape (the auth server's, PostgREST's), not Pier's `{"error"}`.
    static func refusing(_ refusal: @escaping @Sendable (any Error) -> HTTPResponse, _ work: () throws -> FastAnswer) -> FastAnswer {
        do {
            switch try work() {
            case .response(let response): return .response(response)
            case .later(let slow):
                return .later {
                    do { return try await slow() } catch { return refusal(error) }
                }
            }
        } catch {
            return .response(refusal(error))
        }
    }
}
