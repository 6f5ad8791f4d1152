import Foundation

// openapi.yaml → Swift source holding its JSON form (`/openapi.json`), run at build time by the EmbedOpenAPI plugin
// so that the served document is always the repository's openapi.yaml. Usage: OpenAPIJSON <openapi.yaml> <output.swift>.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: OpenAPIJSON OPENAPI_YAML OUTPUT_SWIFT\n".utf8))
    exit(2)
}
do {
    var reader = YAMLReader(try String(contentsOfFile: arguments[1], encoding: .utf8))
    let json = try PythonJSON.write(try reader.read())
    guard !json.contains("\"##") else { throw YAMLProblem.unsupported("the text \"## (it would end the Swift raw string)") }
    let swift = """
        // Generated at build time from openapi.yaml by Sources/OpenAPIJSON (the EmbedOpenAPI plugin).

        /// `openapi.yaml` as compact JSON (sorted keys), served at `GET /openapi.json`.
        enum OpenAPIDocument {
            static let json = ##"\(json)"##
        }

        """
    try Data(swift.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
