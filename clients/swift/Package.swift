// swift-tools-version:6.0
// A Swift client generated from Pier's openapi.yaml by Apple's swift-openapi-generator (at build time, by its
// plugin), and a small program that calls a running pier with it. Built and run by scripts/test
// (PierTests/GeneratedClientTests); never linked into pier.
import PackageDescription

let package = Package(
    name: "PierClient",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PierClient", targets: ["PierClient"]),
        .executable(name: "pier-client-check", targets: ["PierClientCheck"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        // Sources/PierClient/openapi.yaml is a link to the repository's openapi.yaml: one document.
        .target(
            name: "PierClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(name: "PierClientCheck", dependencies: ["PierClient"]),
    ]
)
