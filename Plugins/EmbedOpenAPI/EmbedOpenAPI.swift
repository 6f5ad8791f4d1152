import Foundation
import PackagePlugin

/// Embeds the repository's openapi.yaml in the module it is applied to (Operations) as its JSON form, `OpenAPIDocument.json`,
/// at build time (the OpenAPIJSON tool): the document `/openapi.json` serves is always the one in the repository, and a
/// route's change touches openapi.yaml only.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let document = context.package.directoryURL.appending(path: "openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi.yaml as JSON", executable: try context.tool(named: "OpenAPIJSON").url,
                arguments: [document.path, output.path], inputFiles: [document], outputFiles: [output]),
        ]
    }
}
