import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire

/// What `herald send` will send, read and checked before any connection: the payload (file, stdin or `.apns`),
/// the topic, the devices and the headers.
struct SendRequest {
    var endpoint: APNsEndpoint
    var notification: APNsNotification
    var devices: [DeviceToken]
    /// Where each device came from, for reports that must not print tokens: "--device 2" or "FILE:7".
    var deviceSources: [String]

    init(_ command: Send) throws {
        endpoint = try command.endpoint()
        let file = SimulatorPushFile(data: try readInput(command.payload, what: "the payload file"))
        guard var topic = command.topic ?? file.targetBundle else {
            throw ValidationError("give --topic (the app's bundle id); the payload has no \"\(SimulatorPushFile.targetBundleKey)\" to take it from")
        }
        var pushType = command.pushType.map(PushType.init(rawValue:)) ?? .alert
        if !pushType.isKnown {
            throw ValidationError("--push-type \(pushType) is not one of \(PushType.allKnown.map(\.rawValue).joined(separator: ", "))")
        }
        var payload = file.payload
        let broadcast = command.channel != nil
        if broadcast {
            if command.pushType != nil, pushType != .liveActivity {
                throw ValidationError("--channel sends a liveactivity broadcast; leave out --push-type \(pushType)")
            }
            pushType = .liveActivity
            topic = LiveActivityOptions.topic(topic)
        }
        if let event = command.liveActivity.event {
            if command.pushType != nil, pushType != .liveActivity {
                throw ValidationError("--live-activity sends a liveactivity push; leave out --push-type \(pushType)")
            }
            pushType = .liveActivity
            topic = LiveActivityOptions.topic(topic)
            payload = try command.liveActivity.payload(payload, event: event, now: Date())
        }
        do {
            if broadcast { try PayloadCheck.checkBroadcast(payload) } else { try PayloadCheck.check(payload, pushType: pushType) }
        } catch {
            throw ValidationError("the payload cannot be sent: \(error.detail) (APNs would answer \(error.reason))")
        }
        notification = APNsNotification(
            topic: topic,
            pushType: pushType,
            payload: payload,
            priority: command.priority.map(Priority.init(rawValue:)),
            expiration: command.expiration.map(APNsExpiration.init(epochSeconds:)),
            collapseID: command.collapseID,
            apnsID: command.apnsID.flatMap(APNsID.parse)
        )
        do {
            try notification.validate(payloadLimit: broadcast ? BroadcastHead.maximumPayloadSize : nil)
        } catch {
            throw ValidationError(error.message)
        }
        devices = command.device.compactMap { DeviceToken(hex: $0) }
        deviceSources = command.device.indices.map { "--device \($0 + 1)" }
        if let path = command.devices {
            let (tokens, sources) = try Self.readDevices(path)
            devices += tokens
            deviceSources += sources
        }
        if devices.isEmpty && !broadcast {
            throw ValidationError("\(command.devices ?? "the device list") holds no device tokens")
        }
        if command.apnsID != nil, (command.count ?? devices.count) > 1 {
            throw ValidationError("--apns-id names one notification; it cannot go with several devices or --count")
        }
    }

    /// One token per line; `#` starts a comment.
    static func readDevices(_ path: String) throws -> ([DeviceToken], [String]) {
        let data = try readInput(path, what: "the device list")
        var tokens: [DeviceToken] = []
        var sources: [String] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text =
                line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if text.isEmpty { continue }
            guard let token = DeviceToken(hex: text) else {
                throw ValidationError("line \(number + 1) of \(path) is not a device token in hex")
            }
            tokens.append(token)
            sources.append("\(path):\(number + 1)")
        }
        return (tokens, sources)
    }
}
