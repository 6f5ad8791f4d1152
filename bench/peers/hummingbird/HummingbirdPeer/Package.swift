// swift-tools-version:6.2
// The benchmark peer: the same routes as pier, served by Hummingbird 2. Built only by scripts/bench,
// never by CI and never a dependency of the product.
import PackageDescription

let package = Package(
    name: "HummingbirdPeer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdPeer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
