/// Cross-origin access for browser clients: every public answer allows any origin, and preflight
/// requests get the methods and headers a client may use.
public enum CORS {
    /// `Access-Control-Allow-Origin: *` followed by `extra` fields.
    public static func headers(_ extra: (String, String)...) -> HTTPHeaders {
        HTTPHeaders([(name: "Access-Control-Allow-Origin", value: "*")] + extra.map { (name: $0.0, value: $0.1) })
    }

    /// Registers `OPTIONS` on `path`, answering a preflight for `methods`.
    public static func registerPreflight(in router: inout Router, path: String, methods: [HTTPMethod]) {
        let allowed = (methods.map(\.rawValue) + (methods.contains(.get) ? ["HEAD"] : []) + ["OPTIONS"]).joined(separator: ", ")
        router.on(.options, path) { _ in
            HTTPResponse(
                status: .noContent,
                headers: [
                    "Access-Control-Allow-Origin": "*",
                    "Access-Control-Allow-Methods": allowed,
                    "Access-Control-Allow-Headers": "Authorization, If-None-Match, Content-Type",
                    "Access-Control-Max-Age": "86400",
                    "Allow": allowed,
                ])
        }
    }
}
