import Foundation
import HeraldClient
import HeraldWire

/// `herald send --dry-run`: the request as it would go out, and a curl command that sends the same.
///
/// The provider token is never printed: the curl command signs its own with `herald jwt`.
struct DryRun {
    var command: Send
    var request: SendRequest

    func print() {
        let notification = request.notification
        let headers = self.headers()
        let devices = request.devices
        for (index, device) in devices.prefix(3).enumerated() {
            if index > 0 { Swift.print("") }
            Swift.print("POST \(request.endpoint.url.absoluteString)/3/device/\(device.hex)")
            for (name, value) in headers { Swift.print("\(name): \(value)") }
            Swift.print("")
            Swift.print(String(decoding: notification.payload, as: UTF8.self))
            Swift.print("")
            Swift.print(curl(device: device, headers: headers))
        }
        if devices.count > 3 { Swift.print("\n… and \(devices.count - 3) more devices") }
        if let count = command.count, count != devices.count { Swift.print("(\(count) notifications in all with --count)") }
    }

    private func headers() -> [(String, String)] {
        let notification = request.notification
        var headers: [(String, String)] = [("apns-topic", notification.topic), ("apns-push-type", notification.pushType.rawValue)]
        if let priority = notification.priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration = notification.expiration { headers.append(("apns-expiration", String(expiration.epochSeconds))) }
        if let collapseID = notification.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID = notification.apnsID { headers.append(("apns-id", APNsID.format(apnsID))) }
        if command.p8 != nil { headers.append(("authorization", "bearer <provider token signed with \(command.p8 ?? "")>")) }
        return headers
    }

    private func curl(device: DeviceToken, headers: [(String, String)]) -> String {
        var parts = ["curl", request.endpoint.usesTLS ? "--http2" : "--http2-prior-knowledge"]
        if let ca = command.ca { parts += ["--cacert", Self.quote(ca)] }
        if let cert = command.cert {
            if Send.isPKCS12(cert) {
                parts += ["--cert-type", "P12", "--cert", Self.quote(cert + (command.certPassword.map { ":" + $0 } ?? ""))]
            } else {
                parts += ["--cert", Self.quote(cert), "--key", Self.quote(command.certKey ?? "")]
            }
        }
        for (name, value) in headers where name != "authorization" {
            parts += ["-H", Self.quote("\(name): \(value)")]
        }
        if let p8 = command.p8, let keyID = command.keyID, let teamID = command.teamID {
            let herald = CommandLine.arguments.first.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "herald"
            parts += ["-H", "\"authorization: bearer $(\(Self.quote(herald)) jwt --p8 \(Self.quote(p8)) --key-id \(keyID) --team-id \(teamID))\""]
        }
        parts += ["--data-binary", Self.quote(String(decoding: request.notification.payload, as: UTF8.self))]
        parts.append("\(request.endpoint.url.absoluteString)/3/device/\(device.hex)")
        return parts.joined(separator: " ")
    }

    /// Single-quoted for a POSIX shell.
    static func quote(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./:=@".unicodeScalars.contains($0) }
        if safe && !text.isEmpty { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
