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
        fuzzTarget("FuzzJSON", [wire]),
        fuzzTarget("FuzzPayload", [wire]),
        fuzzTarget("FuzzProviderToken", [wire, .product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("FuzzDeviceLink", [wire]),
        fuzzTarget("FuzzSimulatorPushFile", [wire]),
        fuzzTarget(
            "FuzzRequestHeaders",
            [.product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOHTTP2", package: "swift-nio-http2")]
        ),
        fuzzTarget(
            "FuzzDaemonSocket",
            [
                wire, userNotifications, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        fuzzTarget("FuzzAttachments", [userNotifications]),
        fuzzTarget("FuzzInfoPlist", [wire, userNotifications]),
    ]
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

/// One libFuzzer target: `Sources/NAME/main.swift` runs `FuzzDriver.run` on its `testOneInput`.
/// Debug builds make the root's modules testable, so targets reach their `package` and internal symbols with
/// `@testable import`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies)
}
