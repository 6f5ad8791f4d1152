import Foundation
import HTTPServer

/// `GET /openapi.json`: the OpenAPI 3.1 description of every route (`openapi.yaml`), from memory.
public enum OpenAPIRoute {
    public static let path = "/openapi.json"

    /// The document's bytes, encoded once.
    public static let document = CachedResponse(
        json: Array(OpenAPIDocument.json.utf8), headers: ["Cache-Control": "public, max-age=3600"])

    public static func register(in router: inout Router) {
        router.on(.get, path) { request in document.response(for: request) }
    }

    /// Method and path of every operation in the document (`GET /api/ships`, …), sorted.
    public static func operations() throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))
        guard let paths = (object as? [String: Any])?["paths"] as? [String: [String: Any]] else { return [] }
        let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        return paths.flatMap { path, item in
            item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
        }.sorted()
    }
}
