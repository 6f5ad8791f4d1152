// swift-tools-version:6.0
// A Swift client generated from Pier's openapi.yaml by Apple's swift-openapi-generator (at build time, by its
// plugin), and a small program that calls a running pier with it. Built and run by scripts/test
// (PierTests/GeneratedClientTests); never linked into pier.
// PierAppAttest: an app's side of App Attest (key, attestation, hourly assertion, the token on every request, debug
// tokens); its DeviceCheck and keychain calls are behind `#if canImport`, so it builds on Linux, where Pier's own
// package compiles its sources and tests its protocol logic against the real binary (PierTests).
import PackageDescription

let package = Package(
    name: "PierClient",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .library(name: "PierClient", targets: ["PierClient"]),
        .library(name: "PierAppAttest", targets: ["PierAppAttest"]),
        .executable(name: "pier-client-check", targets: ["PierClientCheck"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // SHA-256 where CryptoKit is not (Linux); on Apple's systems PierAppAttest uses CryptoKit.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
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
        .target(
            name: "PierAppAttest",
            dependencies: [.product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux]))]),
    ]
)
