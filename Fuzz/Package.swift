// swift-tools-version:6.1
import Foundation
import PackageDescription

// libFuzzer targets for Herald's parsers of untrusted bytes, one executable per parser (docs/reliability.md).
// Built by scripts/fuzz.sh with `-sanitize=fuzzer`; kept out of the root package so `swift build` and `swift test`
// there are unaffected. The root is a path dependency, whose identity is its folder's name.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
    .lowercased()

let wire = Target.Dependency.product(name: "HeraldWire", package: rootIdentity)
let userNotifications = Target.Dependency.product(name: "UserNotifications", package: rootIdentity)

let package = Package(
    name: "herald-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"]),
        // Each target's check, as a library: the root package's FuzzCorpusTests replay the corpora through the same
        // files (Tests/FuzzCorpusTests/FuzzChecks is a link to this folder), so CI needs no instrumented build.
        .target(
            name: "FuzzChecks",
            dependencies: [
                wire, userNotifications, .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
    ]
        + [
            "FuzzJSON", "FuzzPayload", "FuzzProviderToken", "FuzzDeviceLink", "FuzzSimulatorPushFile", "FuzzRequestHeaders",
            "FuzzDaemonSocket", "FuzzAttachments", "FuzzInfoPlist",
        ].map { .executableTarget(name: $0, dependencies: ["FuzzSupport", "FuzzChecks"]) }
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
