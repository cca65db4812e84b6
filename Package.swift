// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldWire", targets: ["HeraldWire"]),
        .library(name: "HeraldStore", targets: ["HeraldStore"]),
        .library(name: "HeraldPostgres", targets: ["HeraldPostgres"]),
        .library(name: "HeraldGateway", targets: ["HeraldGateway"]),
        .library(name: "HeraldConsole", targets: ["HeraldConsole"]),
        .library(name: "HeraldClient", targets: ["HeraldClient"]),
        .library(name: "HeraldCLI", targets: ["HeraldCLI"]),
        .library(name: "UserNotifications", targets: ["UserNotifications"]),
        .library(name: "UserNotificationsUI", targets: ["UserNotificationsUI"]),
        .library(name: "ActivityKit", targets: ["ActivityKit"]),
        .library(name: "Intents", targets: ["Intents"]),
        .library(name: "CoreLocation", targets: ["CoreLocation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // `herald serve`'s settings from flags, HERALD_* variables and a --config file, in one precedence. No
        // traits: the file is JSON read by HeraldWire's strict parser (ServeConfigFile says why), and Hummingbird
        // already builds this package without traits, so it adds nothing to a build; YAML would add Yams.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "HeraldWire",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        // The TLS client rules every Herald client shares: SNI for names only, IP addresses checked against the
        // certificate's IP SANs, and a refused certificate said in words.
        .target(
            name: "HeraldTLS",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // What the console's pages and the device's notification center share: loading a target's page files,
        // the security headers, and the shared scripts (Assets).
        .target(
            name: "HeraldPages",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Assets")]
        ),
        // sched_setattr, which Swift's Glibc module does not reach: the store's housekeeping threads get a long time slice.
        .target(name: "CScheduling"),
        // sqlite3_config, which Swift cannot call (it is variadic); libsqlite3 comes with GRDB, which every user links.
        .target(name: "CSQLiteSettings"),
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldWire",
                "CScheduling",
                "CSQLiteSettings",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The store several gateway nodes share: PostgreSQL, through PostgresNIO.
        .target(
            name: "HeraldPostgres",
            dependencies: [
                "HeraldStore",
                "HeraldWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // HTTP/2's frames and HPACK, written for the provider port and the provider client (issue 40): what
        // swift-nio-http2 did for them cost about half of each notification's instructions.
        .target(
            name: "HeraldHTTP2",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio")
            ]
        ),
        .target(
            name: "HeraldClient",
            dependencies: [
                "HeraldWire",
                "HeraldTLS",
                "HeraldHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .target(
            name: "HeraldGateway",
            dependencies: [
                "HeraldWire",
                "HeraldTLS",
                "HeraldHTTP2",
                "HeraldStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The console: a web application on the gateway's public surface (its pages, the admin API, /metrics and
        // /healthz, the browser device's relayed link); its send form is a provider like any other.
        .target(
            name: "HeraldConsole",
            dependencies: [
                "HeraldWire",
                "HeraldPages",
                "HeraldStore",
                "HeraldClient",
                "HeraldGateway",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Assets")]
        ),
        // Apple-named location types, so `import CoreLocation` compiles as on iOS (regions for location triggers).
        .target(name: "CoreLocation"),
        // sd-bus, loaded from libsystemd.so.0 at run time with declarations of our own (building needs no systemd
        // headers), and the poll(2) its bus thread waits in.
        .target(name: "CSystemd"),
        // A D-Bus client (and, for tests, server) on sd-bus: calls, signals, exported objects, for any task.
        .target(name: "HeraldDBus", dependencies: ["CSystemd"]),
        // glibc's posix_spawn extensions (chdir, closefrom) for ChildProcess; Swift's Glibc module hides them.
        .target(name: "CSpawn"),
        // ChildProcess: programs started with posix_spawn in a process group of their own, for the daemon, tools and tests.
        .target(name: "HeraldSpawn", dependencies: ["CSpawn"]),
        // Apple's API for apps and extensions, the in-process engine for local notifications, and the client of the
        // device daemon's socket. Nothing of the gateway link, TLS or the presenters.
        .target(
            name: "UserNotifications",
            dependencies: [
                "HeraldWire",
                "CoreLocation",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Content extensions' side: UNNotificationContentExtension, NSExtensionContext, and the small UIKit-named view
        // vocabulary they draw with.
        .target(name: "UserNotificationsUI", dependencies: ["UserNotifications"]),
        // The device daemon (`herald device`): apps registry, gateway link, inbox, extension hosts, presenters.
        // The few Intents types communication notifications need (INSendMessageIntent, INPerson, INImage).
        .target(name: "Intents", dependencies: ["UserNotifications"]),
        .target(
            name: "ActivityKit",
            // Widget extensions draw activities with UserNotificationsUI's views.
            dependencies: ["UserNotifications", "UserNotificationsUI"]
        ),
        .target(
            name: "HeraldDevice",
            dependencies: [
                "UserNotifications",
                // The content extensions' wire and view trees, for hosting them.
                "UserNotificationsUI",
                "HeraldWire",
                "HeraldTLS",
                "CoreLocation",
                "HeraldSpawn",
                "HeraldDBus",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The notification center page (`herald device --ui-port`).
                "HeraldPages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("NotificationCenter/Assets")]
        ),
        .target(
            name: "HeraldCLI",
            dependencies: [
                "HeraldWire",
                "HeraldStore",
                "HeraldPostgres",
                "HeraldGateway",
                "HeraldConsole",
                "HeraldClient",
                "UserNotifications",
                "UserNotificationsUI",
                "HeraldDevice",
                "HeraldDBus",
                "CoreLocation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldCLI", .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What tests share, in four parts so that each test target builds only what it tests: temporary paths, a manual
        // clock, fixtures and the store conformance suites; a live gateway and device; PostgreSQL servers and databases;
        // a private session bus and a scripted notification server.
        .target(
            name: "HeraldTesting",
            dependencies: ["HeraldWire", "HeraldStore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "HeraldGatewayTesting",
            dependencies: [
                "HeraldTesting", "HeraldWire", "HeraldStore", "HeraldGateway", "HeraldConsole", "HeraldClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
        .target(
            name: "HeraldPostgresTesting",
            dependencies: [
                "HeraldTesting", "HeraldPostgres", "HeraldStore", "HeraldSpawn",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "HeraldDesktopTesting", dependencies: ["HeraldTesting", "HeraldDBus", "HeraldSpawn"]),
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                "HeraldWire",
                "HeraldTLS",
                "HeraldStore",
                "HeraldGateway",
                "HeraldHTTP2",
                "HeraldClient",
                "UserNotifications",
                "UserNotificationsUI",
                "HeraldDevice",
                "HeraldDBus",
                "HeraldTesting",
                "HeraldGatewayTesting",
                "HeraldDesktopTesting",
                "HeraldSpawn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HeraldWireTests",
            dependencies: ["HeraldWire", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "HeraldTestingTests", dependencies: ["HeraldTesting"]),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldTesting", "HeraldWire", "CScheduling", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]  // a data dir of each past schema version, read by path (SchemaMigrationTests)
        ),
        .testTarget(
            name: "HeraldPostgresTests",
            dependencies: [
                "HeraldPostgres", "HeraldStore", "HeraldTesting", "HeraldPostgresTesting", "HeraldWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "HeraldGatewayTests",
            dependencies: [
                "HeraldGateway", "HeraldConsole", "HeraldTesting", "HeraldGatewayTesting", "HeraldPostgresTesting", "HeraldSpawn", "HeraldStore",
                "HeraldPostgres",
                "HeraldClient", "HeraldWire", "HeraldTLS", "HeraldHTTP2", "UserNotifications",
                "HeraldDevice",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "UserNotificationsTests",
            dependencies: [
                "UserNotifications", "UserNotificationsUI", "CoreLocation", "ActivityKit", "Intents", "HeraldTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "HeraldDeviceTests",
            dependencies: [
                "HeraldDevice", "HeraldDBus", "HeraldSpawn", "UserNotifications", "UserNotificationsUI", "HeraldWire", "HeraldTesting",
                "HeraldDesktopTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]  // the daemon's store of each past schema version, read by path (DaemonStoreMigrationTests)
        ),
        // The fuzz targets' checks (FuzzChecks is a link to Fuzz/Sources/FuzzChecks) over their seed corpora.
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: [
                "HeraldWire", "UserNotifications", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // The same API used as iOS apps use it, compiled in the Swift 5 language mode.
        .testTarget(
            name: "UserNotificationsTestsSwift5",
            dependencies: ["UserNotifications", "UserNotificationsUI", "CoreLocation"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "HeraldClientTests",
            dependencies: [
                "HeraldClient", "HeraldTesting", "HeraldGatewayTesting", "HeraldSpawn", "HeraldWire", "HeraldGateway", "HeraldStore",
                "HeraldHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "HeraldCLITests",
            dependencies: [
                "HeraldCLI", "HeraldTesting", "HeraldGatewayTesting", "HeraldPostgresTesting", "HeraldDesktopTesting", "HeraldSpawn", "HeraldStore",
                "HeraldWire", "HeraldClient", "HeraldGateway", "HeraldConsole", "UserNotifications", "HeraldDevice",
                "HeraldDBus", "HeraldPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
    ]
)

// Examples/: the seed articles' samples as programs, compiled as iOS app code is (Swift 5 language mode).
for (name, folder) in [
    ("TimeIntervalExample", "TimeInterval"), ("CalendarExample", "Calendar"), ("ManagementExample", "Management"),
    ("TextInputCategoryExample", "TextInputCategory"), ("MediaAttachmentExample", "MediaAttachment"),
    ("NotificationServiceExample", "NotificationService"),
] {
    package.targets.append(
        .executableTarget(
            name: name, dependencies: ["UserNotifications"], path: "Examples/\(folder)", swiftSettings: [.swiftLanguageMode(.v5)]
        ))
}

// The example apps the device daemon runs (their bundles: Examples/*/*.app), their service extensions, and the
// end-to-end example's provider. App code, in the Swift 5 language mode.
package.targets += [
    .executableTarget(
        name: "PodcastApp", dependencies: ["UserNotifications"], path: "Examples/Podcast/App",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "PodcastServiceExtension", dependencies: ["UserNotifications"], path: "Examples/Podcast/ServiceExtension",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "MessagingApp", dependencies: ["UserNotifications"], path: "Examples/Messaging/App", swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "MessagingServiceExtension", dependencies: ["UserNotifications", "Intents"], path: "Examples/Messaging/ServiceExtension",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "PodcastContentExtension", dependencies: ["UserNotifications", "UserNotificationsUI"],
        path: "Examples/Podcast/ContentExtension", swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .target(
        name: "DeliveryShared", dependencies: ["ActivityKit"], path: "Examples/Delivery/Shared", swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "DeliveryApp", dependencies: ["ActivityKit", "DeliveryShared"], path: "Examples/Delivery/App",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "DeliveryWidget", dependencies: ["ActivityKit", "DeliveryShared", "UserNotificationsUI"], path: "Examples/Delivery/Widget",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .target(
        name: "EndToEndShared", dependencies: ["UserNotifications", .product(name: "Crypto", package: "swift-crypto")],
        path: "Examples/EndToEnd/Shared", swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "EndToEndServiceExtension", dependencies: ["EndToEndShared", "UserNotifications"],
        path: "Examples/EndToEnd/ServiceExtension", swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "EndToEndApp", dependencies: ["EndToEndShared", "UserNotifications"], path: "Examples/EndToEnd/App",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "EndToEndProvider", dependencies: ["EndToEndShared"], path: "Examples/EndToEnd/Provider",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
]

// A service extension, a widget extension and an app for the tests (app code: Swift 5 language mode); tests find them in .build/debug.
package.targets += [
    .executableTarget(
        name: "herald-test-service-extension", dependencies: ["UserNotifications"], path: "Tests/Fixtures/TestServiceExtension",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "herald-test-app", dependencies: ["UserNotifications", "ActivityKit"], path: "Tests/Fixtures/TestApp",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
        name: "herald-test-widget-extension", dependencies: ["ActivityKit", "UserNotificationsUI"], path: "Tests/Fixtures/TestWidgetExtension",
        swiftSettings: [.swiftLanguageMode(.v5)]
    ),
]

// App code (the Swift 5 test target, the examples and test fixtures) is compiled as iOS apps write it, without
// this package's upcoming features.
func isAppCode(_ target: Target) -> Bool {
    target.name == "UserNotificationsTestsSwift5" || target.name.hasSuffix("Example")
        || ["Examples/", "Tests/Fixtures/"].contains { target.path?.hasPrefix($0) == true }
}
for target in package.targets where !isAppCode(target) && target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
