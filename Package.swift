// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Tests import less: member visibility across transitive imports is not worth the noise there.
let testSwiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "podium",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podium", targets: ["podium"]),
        .library(name: "PodiumCore", targets: ["PodiumCore"]),
        .library(name: "PodiumClient", targets: ["PodiumClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // TLS for the SDK's live socket (wss:); already in the graph through postgres-nio.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // `swift package generate-documentation --target PodiumClient` (a plugin: nothing is built with it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(name: "PodiumCore", swiftSettings: swiftSettings),
        // The REST bodies and answers and the frames not in PodiumCore: encoded by the server, decoded by the SDK.
        .target(name: "PodiumWire", dependencies: ["PodiumCore"], swiftSettings: swiftSettings),
        .target(
            name: "PodiumStore",
            dependencies: [
                "PodiumCore",
                // Its tools (pg_dump, pg_restore) run as child processes, as PodiumMedia's tools do.
                "ChildProcesses",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Programs run as child processes (posix_spawn): the media tools, pg_dump and pg_restore, discovery.
        .target(name: "ChildProcesses", swiftSettings: swiftSettings),
        .target(
            name: "PodiumMedia",
            dependencies: ["ChildProcesses", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PodiumServer",
            dependencies: [
                "PodiumCore", "PodiumStore", "PodiumMedia", "PodiumWire", "ChildProcesses",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA for JSON Web Tokens (OpenID Connect's ID tokens, LTI's launches).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // HTTPS served by the server itself (Platform/TLS), and its ACME client's calls.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PodiumClient",
            dependencies: [
                "PodiumCore", "PodiumWire",
                // The live socket (Sources/PodiumClient/Live/WebSocket.swift says why not URLSession).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "podium",
            dependencies: [
                "PodiumServer", "PodiumMedia", "PodiumClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "podium-load",
            dependencies: [
                "ChildProcesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/LiveLoad",
            swiftSettings: testSwiftSettings
        ),
        // `Benchmarks/stroke-outline.sh`: StrokeOutline's time for a long stroke (StrokeOutlineTests keep its shape).
        .executableTarget(
            name: "stroke-outline", dependencies: ["PodiumCore"], path: "Benchmarks/StrokeOutline",
            swiftSettings: testSwiftSettings
        ),
        .testTarget(name: "PodiumCoreTests", dependencies: ["PodiumCore"], swiftSettings: testSwiftSettings),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"], swiftSettings: testSwiftSettings),
        .testTarget(name: "PodiumMediaTests", dependencies: ["PodiumMedia"], swiftSettings: testSwiftSettings),
        .testTarget(
            name: "PodiumServerTests",
            dependencies: [
                "PodiumServer", "PodiumClient",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The HTTPS tests' client (TLSTestClient.swift).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The test clients (Support/TestHTTPClient.swift, Support/TestSocket.swift).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: testSwiftSettings
        ),
    ]
)
