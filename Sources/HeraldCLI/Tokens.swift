import ArgumentParser
import Foundation
import HeraldStore
import HeraldWire

/// `herald tokens`: device tokens of virtual devices.
struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Issue and retire device tokens.",
        subcommands: [Issue.self, Retire.self]
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

        func run() async throws {
            guard let token = DeviceToken(hex: device) else {
                throw ValidationError("--device must be a device token in hex, like the one `herald tokens issue` prints")
            }
            let retirement: DeviceRecord.Retirement = reason == .expired ? .expired : .unregistered
            let now = Date()
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
}
