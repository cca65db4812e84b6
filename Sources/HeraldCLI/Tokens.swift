import ArgumentParser
import Foundation
import HeraldStore
import HeraldWire

/// `herald tokens`: device tokens of virtual devices.
struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Issue and retire device tokens.",
        subcommands: [Issue.self, Retire.self, Reinstall.self]
    )

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the hex token of a new offline virtual device for an app (--count: of that many, a line each).")

        /// The most tokens one call issues.
        static let countLimit = 1_000_000

        @OptionGroup var store: StoreOption

        @Option(help: "The app's bundle id.")
        var topic: String

        @Option(help: "The environment the token belongs to: development or production.")
        var environment = APNsEnvironment.development

        @Option(help: "How many tokens to issue, one virtual device each (up to 1000000).")
        var count = 1

        func validate() throws {
            try validateTopics([topic])
            guard (1...Self.countLimit).contains(count) else {
                throw ValidationError("--count must be from 1 to \(Self.countLimit), not \(count)")
            }
        }

        func run() async throws {
            if let pushType = PushType.suffixed(topic) {
                let bundleID = String(topic.dropLast(pushType.topicSuffix.count))
                FileHandle.standardError.write(
                    Data(
                        ("note: \(topic) ends in \(pushType)'s topic suffix; if the app is \(bundleID), issue the token for that "
                            + "(--topic \(bundleID)) and send \(pushType) pushes with apns-topic \(topic)\n").utf8))
            }
            try await store.withStore(creating: true) { store, _ in
                for _ in 0..<count {
                    let record = try await store.issueVirtualToken(bundleID: topic, environment: environment, at: Date())
                    print(record.token.hex)
                }
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a token as gone: later pushes get 410 Unregistered (app removed) or ExpiredToken."
        )

        enum Reason: String, ExpressibleByArgument, CaseIterable {
            case unregistered, expired
        }

        @OptionGroup var store: StoreOption

        @Option(help: "The device token (hex).")
        var device: String

        @Option(help: "unregistered (the app was removed) or expired (the token was replaced).")
        var reason = Reason.unregistered

        @Option(help: "When the token stopped being valid, in milliseconds since 1970: the 410's timestamp. (default: now)")
        var timestamp: Int64?

        func run() async throws {
            guard let token = DeviceToken(hex: device) else {
                throw ValidationError("--device must be a device token in hex, like the one `herald tokens issue` prints")
            }
            let retirement: DeviceRecord.Retirement = reason == .expired ? .expired : .unregistered
            let now = try Tokens.date(milliseconds: timestamp)
            let record = try await store.withStore(creating: false) { store, name in
                guard let record = try await store.retire(token, as: retirement, at: now) else {
                    throw ValidationError("no device \(token.redacted) in \(name)")
                }
                return record
            }
            if record.retiredAt == now {
                print("retired \(token.redacted) (\(reason.rawValue))")
            } else {
                print("\(token.redacted) was already retired (\(record.retirement?.rawValue ?? "unregistered"))")
            }
        }
    }

    /// The app was deleted and installed again on a virtual device: its old token is retired (410 `Unregistered` with
    /// the timestamp from then on) and the new one printed, as APNs gives a reinstalled app a new token.
    struct Reinstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reinstall the app of a virtual device's token: retire the token (410 Unregistered) and print its new one.")

        @OptionGroup var store: StoreOption

        @Option(help: "The device token (hex) of a virtual device, from `herald tokens issue`.")
        var device: String

        @Option(help: "When the app was removed, in milliseconds since 1970: the old token's 410 timestamp. (default: now)")
        var timestamp: Int64?

        func run() async throws {
            guard let token = DeviceToken(hex: device) else {
                throw ValidationError("--device must be a device token in hex, like the one `herald tokens issue` prints")
            }
            let removedAt = try Tokens.date(milliseconds: timestamp)
            let fresh = try await store.withStore(creating: false) { store, name in
                guard let record = try await store.device(token) else { throw ValidationError("no device \(token.redacted) in \(name)") }
                guard record.owner == nil else {
                    throw ValidationError(
                        "\(token.redacted) belongs to a linked device: its app gets a new token when it registers again on that device")
                }
                guard record.retiredAt == nil else {
                    throw ValidationError("\(token.redacted) was already retired; issue a new token with `herald tokens issue`")
                }
                _ = try await store.retire(token, as: .unregistered, at: removedAt)
                return try await store.issueVirtualToken(bundleID: record.topic, environment: record.environment, at: Date())
            }
            print(fresh.token.hex)
        }
    }

    /// `--timestamp` as a date: milliseconds since 1970, not in the future; now when not given.
    static func date(milliseconds: Int64?) throws -> Date {
        guard let milliseconds else { return Date() }
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        guard milliseconds >= 0, date <= Date().addingTimeInterval(60) else {
            throw ValidationError("--timestamp is milliseconds since 1970, not in the future (now is \(Int64(Date().timeIntervalSince1970 * 1000)))")
        }
        return date
    }
}
