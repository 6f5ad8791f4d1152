// swift-tools-version:6.0
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The server core's release build leaves out the run-time exclusivity checks: its state is confined to one event loop's
/// thread, and a check on every class property reached between `read` and `write` was a tenth of a cached answer's
/// instructions (issue 67). Debug builds — every test run — keep the checks, so an overlapping access still fails there.
let serverCore = strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Pier",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pier", targets: ["Pier"]),
    ],
    dependencies: [
        // Exact versions: the image's build resolves the same code as development and CI (a Package.resolved
        // written on the development machines does not carry the upstream commit ids, so none is committed).
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        // App Attest: P-256 signatures and SHA-256 (swift-crypto), the certificate chain to Apple's root (swift-certificates,
        // which reads DER with swift-asn1).
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
    ],
    targets: [
        // C shims for the Linux system calls Glibc's Swift overlay does not export (epoll, eventfd, accept4).
        .target(name: "CSystem"),
        .target(name: "Metrics", swiftSettings: strict),
        // Values every layer shares: IP addresses and ranges (the server's peers, the budgets' clients), the monotonic clock.
        .target(name: "Basics", dependencies: ["CSystem"], swiftSettings: strict),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libpq wrapper: connections, parameterized queries, the pool, migrations. No domain knowledge.
        .target(
            name: "Postgres",
            dependencies: ["CLibPQ", "Parsing", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // libxml2 wrapper: HTML and XML documents, XPath, text extraction. No domain knowledge.
        .target(name: "Markup", dependencies: ["CLibXML2"], swiftSettings: strict),
        .target(
            name: "HTTPServer",
            dependencies: [
                "CSystem", "Metrics", "Basics",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: serverCore
        ),
        // Ready answers held in memory, under one rule (bounded in entries and bytes, started over past either): the
        // routes' answers, the on-demand engine's renderings, the community's tables.
        .target(name: "AnswerCaching", dependencies: ["HTTPServer", "Metrics"], swiftSettings: strict),
        // Settings read from the environment (secrets from <NAME>_FILE), every name read remembered; each default is
        // written where it is read.
        .target(name: "Settings", swiftSettings: strict),
        // What a feature's own `pier` subcommand needs of the executable (the migrated database, the change feed), and
        // running async work from a command.
        .target(name: "FeatureCommands", dependencies: ["Postgres", "Scheduling"], swiftSettings: strict),
        // Upstreams without domain knowledge, one concern each: JSON and date parsing every module may use; the HTTP
        // client for upstreams; limits (budgets, shares, single-flight, daily quotas); scheduling (jobs, runs, the
        // scheduler, leader election, the change feed, the status board).
        .target(name: "Parsing", dependencies: [], swiftSettings: strict),
        .target(name: "UpstreamHTTP", dependencies: ["Parsing"], swiftSettings: strict),
        .target(name: "Limits", dependencies: ["Settings", "Basics", "Metrics", "Postgres", "Parsing"], swiftSettings: strict),
        .target(name: "Scheduling", dependencies: ["Basics", "Metrics", "Parsing", "Postgres", "UpstreamHTTP", "Limits", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        // Points on Earth: a coordinate validated where it enters, distances as PostGIS measures them.
        .target(name: "Geography", dependencies: ["Basics", "HTTPServer"], swiftSettings: strict),
        // FMI's warnings' words every user of them shares — languages, CAP's severities — without the parser or the store.
        .target(name: "WarningsFormat", swiftSettings: strict),
        // Who a request counts as when it would spend: the trusted-proxy rule, then the features' links (App Attest's token).
        .target(name: "Identity", dependencies: ["Basics", "HTTPServer"], swiftSettings: strict),
        // What a feature is (a value the executable lists), what it gets (FeatureContext) and how it reads its
        // settings (SettingsReader). Domain-free.
        .target(
            name: "Feature",
            dependencies: [
                "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Identity", "Metrics", "Basics", "Postgres", "ReplayMatching",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // The one engine for upstreams asked on a user's behalf: memory → PostgreSQL → one call per key → budget and quota →
        // upstream, stale or unavailable, and the one refusal rule (with what a registration may cost).
        .target(
            name: "OnDemand",
            dependencies: ["Settings", 
                "AnswerCaching", "Basics", "Feature", "Geography", "HTTPServer", "Identity", "Limits", "Metrics", "Postgres", "Scheduling", "UpstreamHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The one store of slowly changing upstream answers (`upstream_answers`), with the nearest stored point.
        .target(name: "SharedAnswers", dependencies: ["Geography", "OnDemand", "Postgres", "Scheduling"], swiftSettings: strict),
        // ZSG's timetable pages read into ship routes (the fuzz target's module; libxml2 for the HTML).
        .target(name: "ShipsFormat", dependencies: ["Markup"], swiftSettings: strict),
        .target(name: "Ships", dependencies: ["ShipsFormat", "Settings", "AnswerCaching", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "Postgres", "Metrics", .product(name: "Logging", package: "swift-log")], exclude: ["Testing"], swiftSettings: strict),
        // MeteoNews' lake pages read into readings (the fuzz target's module; libxml2 for the HTML).
        .target(name: "MeteoNewsFormat", dependencies: ["Markup"], swiftSettings: strict),
        // Lake levels, the hydrological CSV, read and checked (the fuzz target's module).
        .target(name: "LakesFormat", dependencies: ["Parsing"], swiftSettings: strict),
        .target(
            name: "Lakes",
            dependencies: ["MeteoNewsFormat", "LakesFormat", "FeatureCommands", "Settings", "AnswerCaching", "Basics", "Feature", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "Postgres", "Metrics", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // FMI's CAP warnings: the feed read into PostGIS, looked up by point (served by Weather's routes).
        // FMI's warning feed and its CAP alerts read and checked (the fuzz target's module; libxml2 for the XML).
        .target(name: "CAPFormat", dependencies: ["Basics", "Markup", "Parsing", "WarningsFormat"], swiftSettings: strict),
        .target(
            name: "Warnings", dependencies: ["AnswerCaching", "CAPFormat", "OnDemand", "Settings", "WarningsFormat", "Geography", "Basics", "Feature", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "Postgres", "ReplayMatching", "Metrics", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // CBOR (RFC 8949) read by hand: definite lengths, bounded depth and size. No domain knowledge, no cryptography
        // (so that its fuzz target builds without BoringSSL).
        .target(name: "CBOR", swiftSettings: strict),
        // App Attest's objects read without cryptography: the attestation object, the authenticator data and the
        // certificate chain's shape (names only), so that its fuzz target builds without BoringSSL.
        .target(name: "AppAttestFormat", dependencies: ["CBOR", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        // App Attest: a genuine app instance's attestation and assertions verified (authenticator data, the chain to
        // Apple's root, the nonce, ECDSA P-256).
        .target(
            name: "AppAttest",
            dependencies: [
                "OnDemand", "FeatureCommands", "Settings", 
                "AppAttestFormat", "Basics", "CBOR", "Feature", "Parsing", "Limits", "HTTPServer", "Identity", "Metrics", "Postgres", "Scheduling",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict),
        // A certificate authority and devices of a test's own, attesting and asserting as Apple's do; never linked into
        // the executable.
        .target(
            name: "AppAttestTesting",
            dependencies: [
                "AppAttest", "CBOR", .product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict),
        // libcurl's option setters in C (they are variadic): the HTTP/2 transport APNs is reached through.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        // Apple's push service: token authentication (ES256), HTTP/2 over libcurl (one connection per environment, kept
        // open, multiplexed), every answer sorted into what the delivery does with it. Knows no device, warning or outbox.
        // APNs' values without cryptography or transport (a push, its environment, what an answer means), so that its fuzz
        // target builds without BoringSSL.
        .target(name: "APNsFormat", dependencies: ["Parsing"], swiftSettings: strict),
        .target(
            name: "APNs", dependencies: ["APNsFormat", "Basics", "CCurl", "Parsing", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Testing"], swiftSettings: strict),
        // The push delivery engine: devices, the outbox every replica delivers (FOR UPDATE SKIP LOCKED, leases, retries with
        // backoff), APNs' answers acted on; features hand it "this payload to these devices".
        .target(
            name: "Push", dependencies: ["Settings", "OnDemand", "APNs", "APNsFormat", "Basics", "Feature", "HTTPServer", "Limits", "Metrics", "Parsing", "Postgres", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // Supabase Realtime's wire as the apps subscribe with it (Phoenix channels, postgres_changes) over the server's
        // WebSockets: joins, heartbeats, tokens and the fan-out of the changes a feature publishes. Knows no table or secret.
        .target(name: "Realtime", dependencies: ["Basics", "HTTPServer", "Metrics", "Parsing"], swiftSettings: strict),
        // ShipTrip's booking import, its pure part: the request the app sends, the prompt, Gemini's answer envelope and the
        // cruise it carries, read and checked (no repair) — no database, no network (fuzzed on its own).
        .target(name: "CruiseImportFormat", dependencies: ["Basics", "Parsing"], swiftSettings: strict),
        // ShipTrip's booking import: the route, the service (its spending, its ports placed) and Gemini's client.
        .target(name: "CruiseImport", dependencies: ["Settings", "OnDemand", "CruiseImportFormat", "Geography", "ReplayMatching", "Feature", "Identity", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Metrics", "Basics", .product(name: "Logging", package: "swift-log")], exclude: ["Testing"], swiftSettings: strict),
        // PostgREST's wire as the Supabase clients speak it (a query's filters, select, order and limit; `Prefer`; the error
        // shape; a write's rows) and the auth server's request bodies, read for shape only: no database, no cryptography
        // (fuzzed on its own).
        .target(name: "PostgRESTFormat", dependencies: ["Basics", "Parsing"], swiftSettings: strict),
        // Supabase's auth tokens: HS256 JWTs signed with the project's secret (the public key the apps ship, the access
        // tokens of anonymous users), as its auth server writes them.
        .target(name: "SupabaseAuth", dependencies: ["Basics", "Parsing", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // Secrets a server hands out and keeps only as SHA-256 (device registrations, refresh tokens).
        .target(name: "BearerSecrets", dependencies: ["Parsing", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // Next Wave's community, drop-in for the app's self-hosted Supabase: its auth and PostgREST surfaces, the check-ins, the
        // nightly archive, statistics, leaderboard and badge pushes.
        .target(
            name: "NextWave",
            dependencies: ["FeatureCommands", "Settings", "OnDemand", "AnswerCaching", 
                "APNsFormat", "Basics", "BearerSecrets", "Feature", "HTTPServer", "Identity", "Lakes", "Limits", "Metrics", "Parsing", "Postgres",
                "PostgRESTFormat", "Push", "Realtime", "Scheduling", "SupabaseAuth", .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Testing"],
            swiftSettings: strict),
        // What a device registers for warnings, read from its JSON (no cryptography, no database: fuzzed on its own).
        .target(name: "WarningPushFormat", dependencies: ["APNsFormat", "Geography", "HTTPServer", "Parsing", "WarningsFormat"], swiftSettings: strict),
        // Official warnings pushed to the places people saved: the device routes and the notifier (CAP's semantics).
        .target(
            name: "WarningPush",
            dependencies: ["CAPFormat", "OnDemand", "WarningsFormat", "Geography", 
                "APNsFormat", "Basics", "BearerSecrets", "Feature", "HTTPServer", "Metrics", "Parsing", "Postgres", "Push", "Scheduling", "Warnings",
                "WarningPushFormat",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Testing"], swiftSettings: strict),
        // MET Norway's Locationforecast: the forecast that stands in when FMI cannot answer (used by Weather).
        // MET Norway's forecasts read and checked (the fuzz target's module).
        .target(name: "METNorwayFormat", dependencies: [], swiftSettings: strict),
        .target(
            name: "METNorway", dependencies: ["METNorwayFormat", "SharedAnswers", "OnDemand", "Basics", "Feature", "Identity", "Limits", "Metrics", "Parsing", "Postgres", "Scheduling", "UpstreamHTTP", "ReplayMatching", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // FMI's forecast documents (WFS) read and checked (the fuzz target's module; libxml2 for the XML).
        .target(name: "FMIFormat", dependencies: ["Markup", "Parsing", "UpstreamHTTP"], swiftSettings: strict),
        .target(
            name: "Weather", dependencies: ["FMIFormat", "METNorwayFormat", "Settings", "SharedAnswers", "OnDemand", "WarningsFormat", "Geography", "AnswerCaching", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Identity", "Metrics", "Basics", "Postgres", "Warnings", "METNorway", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // OpenWeather's forecasts read and summed up per day (the fuzz target's module).
        .target(name: "LakeWeatherFormat", dependencies: ["Basics", "Parsing"], swiftSettings: strict),
        .target(
            name: "LakeWeather",
            dependencies: ["LakeWeatherFormat", "Settings", "SharedAnswers", "OnDemand", "Geography", "ReplayMatching", "Feature", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Metrics", "Basics", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // Alplakes' answers read and checked (the fuzz target's module: nothing but the parser).
        .target(name: "AlplakesFormat", dependencies: ["Parsing"], swiftSettings: strict),
        .target(
            name: "Alplakes", dependencies: ["AlplakesFormat", "Settings", "AnswerCaching", "Basics", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "Postgres", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // Transport for NSW's departure monitor read, and the departure list as the app reads it (the fuzz target's module).
        .target(name: "NSWDeparturesFormat", dependencies: ["Basics", "Parsing"], swiftSettings: strict),
        .target(
            name: "NSWDepartures",
            dependencies: ["NSWDeparturesFormat", "Settings", "SharedAnswers", "OnDemand", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Metrics", "Basics", .product(name: "Logging", package: "swift-log")],
            exclude: ["Testing"], swiftSettings: strict),
        // Geoapify's place collections read and checked (the fuzz target's module).
        .target(name: "PlacesFormat", dependencies: ["Parsing"], swiftSettings: strict),
        .target(name: "Places", dependencies: ["PlacesFormat", "Settings", "SharedAnswers", "OnDemand", "Geography", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Metrics", "Basics"], exclude: ["Testing"], swiftSettings: strict),
        .target(name: "Wikipedia", dependencies: ["Settings", "SharedAnswers", "OnDemand", "ReplayMatching", "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Metrics", "Basics", .product(name: "Logging", package: "swift-log")], exclude: ["Testing"], swiftSettings: strict),
        // What /health and the metrics say of the deployment's backups (the `backup` service's runs, WAL archiving).
        .target(name: "Backups", dependencies: ["Feature", "HTTPServer", "Metrics", "Postgres", "Settings"], swiftSettings: strict),
        // Next Wave's promo tiles: a set the operator imports, served as the app decodes it.
        .target(
            name: "PromoTiles",
            dependencies: ["Feature", "FeatureCommands", "HTTPServer", "Parsing", "Postgres", "Scheduling", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Testing"], swiftSettings: strict),
        // Sun events computed from NOAA's equations: no upstream, no store.
        .target(name: "Sun", dependencies: ["Basics", "Geography", "AnswerCaching", "Feature", "Parsing", "HTTPServer"], swiftSettings: strict),
        // transport.opendata.ch's stationboards read and checked (the fuzz target's module).
        .target(name: "StationboardFormat", dependencies: ["Basics", "Parsing"], swiftSettings: strict),
        .target(
            name: "Stationboard",
            dependencies: ["StationboardFormat", "Settings", "SharedAnswers", "OnDemand", 
                "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "Basics", "ReplayMatching", "Ships",
            ],
            exclude: ["Testing"], swiftSettings: strict),
        // How an upstream's recordings answer requests they were not made for (each feature's matcher) and the times
        // moved in them: what a feature needs of the replay, without its server.
        .target(name: "ReplayMatching", dependencies: ["Parsing", "UpstreamHTTP"], swiftSettings: strict),
        // Recorded upstream answers served as the upstreams (replay of captures, the offline demo).
        .target(name: "Replay", dependencies: ["ReplayMatching", "UpstreamHTTP", "Scheduling", "HTTPServer", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        .target(
            name: "Operations", dependencies: ["Basics", "Feature", "Scheduling", "HTTPServer", "Metrics", "Postgres", "Settings"], swiftSettings: strict,
            plugins: ["EmbedOpenAPI"]),
        // openapi.yaml → its JSON form in Operations, at build time (the served document is always the repository's).
        .plugin(name: "EmbedOpenAPI", capability: .buildTool(), dependencies: ["OpenAPIJSON"]),
        .executableTarget(name: "OpenAPIJSON", swiftSettings: strict),
        .executableTarget(
            name: "Pier",
            dependencies: ["Basics", "FeatureCommands", "Settings",
                "Alplakes", "AppAttest", "Backups", "CruiseImport", "Feature", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "Identity",
                "LakeWeather", "Lakes", "Metrics", "NSWDepartures", "NextWave", "Operations", "Places", "Postgres", "PromoTiles",
                "Push", "Replay", "Ships", "Stationboard", "Sun", "Warnings", "WarningPush", "Weather", "Wikipedia",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
    ]
)

// A module's `Testing/` folder (`exclude: ["Testing"]` in its declaration) is what its tests and the end-to-end tests
// share — its upstream's double, its app's models: compiled into UpstreamTesting below, never into the module itself.
// Read from the declarations, not the disk: SwiftPM keeps a manifest's evaluation until the manifest changes (the
// image's build evaluates it before Sources/ is copied).
let testingFolders = package.targets.filter { $0.exclude.contains("Testing") }.map(\.name)

// Everything else in Sources/ (UpstreamTesting's path), which it must not see as files of its own, and what is not Swift
// in the Testing/ folders (a module's schemathesis hooks, loaded by scripts/lib/schemathesis_hooks.py). Read from the
// disk, so only warnings depend on it: a file added later is at worst reported as unhandled until the manifest changes
// (SwiftPM keeps evaluations in a cache shared by every checkout; scripts/test keeps its own in .build).
func entries(_ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Sources/" + folder)) ?? []).map { "\(folder)/\($0)" }
}
let besideTesting = entries("").map { String($0.dropFirst()) }.filter { $0 != "UpstreamTesting" }.flatMap { folder in
    entries(folder).flatMap { $0.hasSuffix("/Testing") ? entries($0).filter { !$0.hasSuffix(".swift") } : [$0] }
}

// The test targets, declared only where Tests/ exists: the Docker build context leaves Tests/ out
// (.dockerignore), and SwiftPM refuses a manifest whose targets have no sources.
if FileManager.default.fileExists(atPath: Context.packageDirectory + "/Tests") {
    package.targets += [
        // Throw-away databases for tests; never linked into the executable.
        .target(name: "DatabaseTesting", dependencies: ["Postgres", "UpstreamTesting"], swiftSettings: strict),
        // Raw-socket clients for tests (HTTP/1.1 and WebSocket); never linked into the executable.
        .target(name: "HTTPTesting", dependencies: ["HTTPServer"], swiftSettings: strict),
        // Fixture pages and a local upstream server with failure switches, with every module's `Testing/` folder (its
        // upstream's double, its app's models); never linked into the executable. The plugin lists the doubles.
        .target(
            name: "UpstreamTesting", dependencies: ["Parsing", "HTTPServer", "ReplayMatching", .product(name: "Logging", package: "swift-log")], path: "Sources", exclude: besideTesting,
            sources: ["UpstreamTesting"] + testingFolders.map { "\($0)/Testing" }, swiftSettings: strict, plugins: ["DoubleList"]),
        .plugin(name: "DoubleList", capability: .buildTool()),
        // The app's side of App Attest (clients/swift's PierAppAttest), compiled here too so that its protocol logic is
        // tested against the real binary with the test authority's devices (PierTests).
        .target(
            name: "PierAppAttest", dependencies: [.product(name: "Crypto", package: "swift-crypto")], path: "clients/swift/Sources/PierAppAttest",
            swiftSettings: strict),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "DatabaseTesting"], swiftSettings: strict),
        .testTarget(name: "MarkupTests", dependencies: ["Markup"], swiftSettings: strict),
        .testTarget(name: "UpstreamsTests", dependencies: ["Basics", "HTTPServer", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "UpstreamTesting", "DatabaseTesting", "Postgres"], swiftSettings: strict),
        .testTarget(name: "WeatherTests", dependencies: ["FMIFormat", "METNorwayFormat", "Geography", "Weather", "METNorway", "Basics", "Feature", "Parsing", "UpstreamHTTP", "Limits", "UpstreamTesting", "DatabaseTesting", "Postgres", "HTTPServer"], swiftSettings: strict),
        .testTarget(name: "AppAttestTests", dependencies: ["AppAttest", "AppAttestFormat", "AppAttestTesting", "CBOR", "Basics", "Limits", "HTTPServer", "DatabaseTesting", "Postgres", "UpstreamTesting", .product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        .testTarget(name: "APNsTests", dependencies: ["APNs", "APNsFormat", "UpstreamTesting", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        .testTarget(
            name: "PushTests", dependencies: ["Push", "APNs", "APNsFormat", "Metrics", "Postgres", "UpstreamTesting", "DatabaseTesting", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        .testTarget(
            name: "WarningPushTests",
            dependencies: ["Geography", 
                "WarningPush", "WarningPushFormat", "Push", "APNs", "APNsFormat", "Warnings", "Feature", "Metrics", "Postgres", "Scheduling", "UpstreamHTTP", "UpstreamTesting", "DatabaseTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        .testTarget(name: "NextWaveTests", dependencies: ["NextWave", "PostgRESTFormat", "Push", "SupabaseAuth", "Parsing", "Postgres", "DatabaseTesting", "Basics", "Realtime", "Scheduling", "Feature", "HTTPServer", "UpstreamHTTP"], swiftSettings: strict),
        .testTarget(name: "WarningsTests", dependencies: ["CAPFormat", "WarningsFormat", "Geography", "Warnings", "Feature", "Metrics", "Parsing", "UpstreamHTTP", "Scheduling", "UpstreamTesting", "DatabaseTesting"], swiftSettings: strict),
        .testTarget(name: "ShipsTests", dependencies: ["ShipsFormat", "Ships", "Markup", "UpstreamTesting", "Parsing"], swiftSettings: strict),
        .testTarget(name: "LakesTests", dependencies: ["MeteoNewsFormat", "LakesFormat", "Lakes", "Markup", "UpstreamTesting", "Parsing"], swiftSettings: strict),
        .testTarget(name: "StationboardTests", dependencies: ["ShipsFormat", "StationboardFormat", "SharedAnswers", "OnDemand", "Basics", "Stationboard", "Ships", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres", "Feature"], swiftSettings: strict),
        .testTarget(
            name: "LakeWeatherTests",
            dependencies: ["LakeWeatherFormat", "SharedAnswers", "OnDemand", "Geography", "Basics", "LakeWeather", "Feature", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres"],
            swiftSettings: strict),
        .testTarget(
            name: "AlplakesTests", dependencies: ["AlplakesFormat", "Basics", "Alplakes", "Parsing", "UpstreamHTTP", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres"],
            swiftSettings: strict),
        .testTarget(
            name: "NSWDeparturesTests",
            dependencies: ["NSWDeparturesFormat", "SharedAnswers", "OnDemand", "NSWDepartures", "Feature", "Parsing", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres", "Basics"],
            swiftSettings: strict),
        .testTarget(
            name: "PlacesTests", dependencies: ["PlacesFormat", "SharedAnswers", "OnDemand", "Basics", "Places", "Feature", "UpstreamHTTP", "Limits", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres"],
            swiftSettings: strict),
        .testTarget(
            name: "WikipediaTests", dependencies: ["SharedAnswers", "OnDemand", "Basics", "Wikipedia", "Feature", "UpstreamHTTP", "Scheduling", "HTTPServer", "UpstreamTesting", "DatabaseTesting", "Postgres"],
            swiftSettings: strict),
        .testTarget(name: "PromoTilesTests", dependencies: ["PromoTiles", "HTTPServer", "UpstreamTesting"], swiftSettings: strict),
        .testTarget(name: "SunTests", dependencies: ["Basics", "Sun", "Parsing", "HTTPServer", "UpstreamTesting"], swiftSettings: strict),
        .testTarget(name: "ReplayTests", dependencies: ["Replay", "ReplayMatching", "Parsing", "UpstreamHTTP", "Ships", "Weather"], swiftSettings: strict),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"], swiftSettings: strict),
        .testTarget(name: "FeatureTests", dependencies: ["Settings", "OnDemand", "Geography", "Feature", "Limits", "HTTPServer", "Identity", "Basics", "Scheduling"], swiftSettings: strict),
        // Runs the real `pier` binary as a child process.
        .testTarget(name: "PierTests", dependencies: ["ShipsFormat", "Pier", "AppAttestTesting", "PierAppAttest", "HTTPTesting", "Postgres", "DatabaseTesting", "Parsing", "UpstreamTesting", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // The bytes of every writer of client answers, held to recorded ones (Tests/Golden/Writers).
        .testTarget(
            name: "WriterGoldenTests",
            dependencies: ["Alplakes", "AlplakesFormat", "Basics", "CAPFormat", "CruiseImportFormat", "Geography", "HTTPServer", "LakeWeatherFormat",
                "NSWDeparturesFormat", "NextWave", "OnDemand", "Parsing", "PostgRESTFormat", "Realtime", "StationboardFormat", "Sun", "SupabaseAuth",
                "UpstreamTesting", "WarningPush", "WarningPushFormat", "Warnings", "WarningsFormat", "Weather"],
            swiftSettings: strict),
        .testTarget(name: "RealtimeTests", dependencies: ["Realtime", "Parsing"], swiftSettings: strict),
        .testTarget(name: "CruiseImportTests", dependencies: ["Settings", "CruiseImportFormat", "CruiseImport", "Feature"], swiftSettings: strict),
        .testTarget(name: "OperationsTests", dependencies: ["Basics", "Operations", "HTTPServer", "HTTPTesting", "Postgres", "DatabaseTesting", "Scheduling"], swiftSettings: strict),
        .testTarget(
            name: "HTTPServerTests", dependencies: ["AnswerCaching", "HTTPServer", "HTTPTesting", "Metrics", .product(name: "Logging", package: "swift-log")],
            exclude: ["Findings"],  // inputs found by fuzzing, read by path in the tests
            swiftSettings: strict),
    ]
}

// libFuzzer targets (fuzz/targets/<name>/main.swift), only when PIER_FUZZ is set: scripts/fuzz builds them
// with `--sanitize=fuzzer --sanitize=address` in .build-fuzz. Each defines LLVMFuzzerTestOneInput and no
// top-level code, so libFuzzer's own main runs.
if Context.environment["PIER_FUZZ"] != nil {
    // Every folder of fuzz/targets/ is a target; its target.conf names what it links (`dependencies=A B`).
    let folder = Context.packageDirectory + "/fuzz/targets"
    for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
        guard let conf = try? String(contentsOfFile: "\(folder)/\(name)/target.conf", encoding: .utf8) else { continue }
        let dependencies = conf.split(separator: "\n").first { $0.hasPrefix("dependencies=") }
            .map { $0.dropFirst("dependencies=".count).split(separator: " ").map { Target.Dependency(stringLiteral: String($0)) } } ?? []
        package.targets.append(.executableTarget(
            name: "fuzz-\(name)", dependencies: dependencies, path: "fuzz/targets/\(name)", exclude: ["target.conf"], swiftSettings: strict))
    }
    // Only the fuzz targets and what they link, so that one `swift build` (scripts/fuzz) builds them all with the
    // sanitizers: the executable's `main` would clash with libFuzzer's, and the rest would be built for nothing.
    var needed = Set(package.targets.filter { $0.name.hasPrefix("fuzz-") }.map(\.name))
    var queue = Array(needed)
    while let name = queue.popLast() {
        for dependency in package.targets.first(where: { $0.name == name })?.dependencies ?? [] {
            guard case let .byNameItem(name: linked, condition: _) = dependency, needed.insert(linked).inserted else { continue }
            queue.append(linked)
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products = []
}

// Every module's folder holds its note, README.md (what it holds, what it offers, what it must not touch, where its tests
// are: scripts/lib/check_docs.py requires one), which is no source of the target.
for target in package.targets where target.type == .regular || target.type == .executable {
    if target.path == nil {
        target.exclude.append("README.md")
    } else if target.name == "UpstreamTesting" {
        target.exclude.append("UpstreamTesting/README.md")
    }
}
