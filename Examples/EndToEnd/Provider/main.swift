// The end-to-end example's provider: seals a message under the key shared with the app and prints the APNs
// payload, so `EndToEndProvider "Hello" | herald send … -` sends it. Only the ciphertext leaves this program.
//
//   EndToEndProvider [--key-file PATH] [--title TITLE] BODY
//
// The key file defaults to the app group container's message.key (under HERALD_DATA_DIR), made on first use.
import EndToEndShared
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EndToEndProvider: \(message)\n".utf8))
    exit(64)
}

var keyFile: URL?
var title: String?
var body: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--key-file":
        guard let path = arguments.popFirst() else { fail("--key-file needs a path") }
        keyFile = URL(fileURLWithPath: path)
    case "--title":
        guard let value = arguments.popFirst() else { fail("--title needs a value") }
        title = value
    case "-h", "--help":
        print("usage: EndToEndProvider [--key-file PATH] [--title TITLE] BODY")
        exit(0)
    default:
        guard body == nil, !argument.hasPrefix("--") else {
            fail("unexpected argument \(argument); usage: EndToEndProvider [--key-file PATH] [--title TITLE] BODY")
        }
        body = argument
    }
}
guard let body = body, !body.isEmpty else { fail("give the message's body; usage: EndToEndProvider [--key-file PATH] [--title TITLE] BODY") }

do {
    let key = try EndToEndKey.loadOrCreate(at: keyFile ?? EndToEndKey.defaultURL())
    let sealed = try EndToEndMessage(title: title, body: body).sealed(with: key)
    // The visible alert is a placeholder: shown as is if the extension cannot decrypt.
    let payload: [String: Any] = [
        "aps": ["alert": ["title": "New message", "body": "You have a new encrypted message."], "mutable-content": 1, "sound": "default"],
        EndToEndMessage.payloadKey: sealed,
    ]
    let json = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
    FileHandle.standardOutput.write(json + Data("\n".utf8))
} catch {
    fail("\(error)")
}
