import ArgumentParser
import Foundation
import HeraldStore
import HeraldWire

extension WebPush {
    /// `herald webpush show`: what a virtual subscriber received, decrypted with the keys `subscribe` kept.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the messages a subscription received, newest first, decrypted when the data directory holds its keys.")

        @OptionGroup var store: StoreOption

        @Argument(help: "The subscription: its JSON file, its endpoint URL, or the token (hex) at the end of it.")
        var subscription: String

        @Option(help: "How many messages to list.")
        var limit = 20

        @Flag(help: "One JSON object per message.")
        var json = false

        func run() async throws {
            var endpoint = subscription
            if let data = FileManager.default.contents(atPath: subscription), let parsed = try? PushSubscriptionJSON.parse(data) {
                endpoint = parsed.endpoint
            }
            let hex = endpoint.split(separator: "/").last.map(String.init) ?? endpoint
            guard let token = DeviceToken(hex: hex) else {
                throw ValidationError("name the subscription by its endpoint (…/push/TOKEN) or its token in hex")
            }
            let keys = store.dataDirectory.directory.webPushKeys(for: token)?.keys
            let messages = try await store.withStore(creating: false) { opened, name in
                guard let record = try await opened.device(token), record.kind == .webPush else {
                    throw ValidationError("no web push subscription \(token.redacted) in \(name)")
                }
                return try await opened.notifications(matching: .deviceTokenPrefix(token.hex), before: nil, limit: limit)
            }
            for message in messages {
                var fields: [String: JSONValue] = [
                    "receivedAt": .string(ISO8601DateFormatter().string(from: message.receivedAt)),
                    "state": .string(message.delivery.state.rawValue), "size": .integer(Int64(message.payload.count)),
                    "apnsID": .string(APNsID.format(message.apnsID)),
                ]
                if let details = message.webPush {
                    fields["urgency"] = .string(details.urgency.rawValue)
                    fields["ttl"] = .integer(details.ttl)
                    if let subject = details.subject { fields["subject"] = .string(subject) }
                }
                if let topic = message.collapseID { fields["topic"] = .string(topic) }
                if let reason = message.delivery.discardReason { fields["discardReason"] = .string(reason.rawValue) }
                if let keys {
                    do {
                        let plaintext = try WebPushEncryption.decrypt(message.payload, with: keys)
                        fields["text"] = .string(String(decoding: plaintext, as: UTF8.self))
                    } catch {
                        fields["decryptError"] = .string("\(error)")
                    }
                }
                if json {
                    print(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
                } else {
                    print(Self.line(fields))
                }
            }
            if messages.isEmpty, !json { print("no messages yet") }
        }

        private static func line(_ fields: [String: JSONValue]) -> String {
            let value = { (key: String) in fields[key].map { $0.stringValue ?? $0.integerValue.map(String.init) ?? "" } }
            var parts = [value("receivedAt") ?? "", value("state") ?? ""]
            if let reason = value("discardReason") { parts[1] += " (\(reason))" }
            parts.append("urgency \(value("urgency") ?? "normal"), ttl \(value("ttl") ?? "?") s, \(value("size") ?? "0") bytes")
            if let topic = value("topic") { parts.append("topic \(topic)") }
            if let subject = value("subject") { parts.append("from \(subject)") }
            let head = parts.joined(separator: "  ")
            if let text = value("text") { return head + "\n  " + text }
            if let failure = value("decryptError") { return head + "\n  (cannot decrypt: \(failure))" }
            return head + "\n  (encrypted; this data directory does not hold the subscriber's keys)"
        }
    }
}
