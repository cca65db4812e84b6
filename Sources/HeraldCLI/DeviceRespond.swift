import ArgumentParser
import Foundation
import HeraldDevice
import HeraldWire
import UserNotifications

/// `herald device respond`: what the person does with a delivered notification, told to the device daemon.
struct DeviceRespond: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "respond",
        abstract: "Open, act on, reply to or dismiss a delivered notification; its app's delegate gets didReceive.",
        discussion: """
            ACTION is `open` (the default action), `dismiss`, or the identifier of one of the notification \
            category's actions; a text-input action takes --text. An app that is not running is launched.
            """
    )

    @Argument(help: "The notification's identifier (a remote notification's collapse id or apns-id).")
    var identifier: String

    @Option(help: "open, dismiss, or an action identifier of the notification's category.")
    var action: String = "open"

    @Option(help: "The reply typed into a text-input action.")
    var text: String?

    @Option(help: "The app's bundle id, when several apps have a notification with this identifier.")
    var app: String?

    @Option(name: .customLong("data-dir"), help: "The device daemon's data dir (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let (bundleID, actionIdentifier, delivery) = try await RunningDaemon(dataDirectory: dataDirectory).respond(
            RespondRequest(bundleID: app, identifier: identifier, action: action, text: text))
        if json {
            printNow(
                String(
                    decoding: JSONValue.object([
                        "event": .string("responded"), "topic": .string(bundleID), "identifier": .string(identifier),
                        "actionIdentifier": .string(actionIdentifier), "delivery": .string(delivery),
                    ]).encoded(), as: UTF8.self))
        } else {
            printNow("\(bundleID) \(identifier): \(actionIdentifier) — \(delivery)")
        }
    }
}
