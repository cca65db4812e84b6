import ArgumentParser
import Crypto
import Foundation
import HeraldWire
import NIOCore
import NIOHTTP1

extension WebPush {
    /// `herald webpush send`: what a site's server does — encrypt for the subscription (RFC 8291), sign a VAPID JWT
    /// (RFC 8292), POST it (RFC 8030) — or, with `--check-only`, only Apple's checks of the JWT.
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt and send a message to a subscription, as a site's server does (or check a JWT against Apple's rules).",
            discussion: """
                SUBSCRIPTION is the JSON a page's PushSubscription gives (`herald webpush subscribe` prints one); the \
                message is FILE, or standard input with -. Exits 0 when the push service answers 201, 1 with its \
                reason otherwise. With --check-only nothing is sent: the JWT this command would send, or the one given \
                with --authorization, is checked against Apple's rules and the first that fails is printed.
                """)

        @Argument(help: "The subscription's JSON file ({\"endpoint\":…,\"keys\":{…}}).")
        var subscription: String

        @Argument(help: "The message: a file, or - for standard input. (not read with --check-only)")
        var message: String?

        @Option(help: "The application server's private key (PEM, as `herald webpush vapid` writes).")
        var vapid: String?

        @Option(help: "The VAPID subject: mailto:you@yourdomain or an https: URL of yours.")
        var subject: String?

        @Option(help: "Seconds the push service keeps the message while the subscriber is away (0: now or never).")
        var ttl: Int64 = 86_400

        @Option(help: "very-low, low, normal or high.")
        var urgency: String?

        @Option(help: "Replaces a waiting message with the same topic (up to 32 base64url characters).")
        var topic: String?

        @Option(help: "Hours until the JWT expires (Apple refuses more than 24).")
        var expirationHours: Double = 12

        @Option(help: "A PEM certificate to trust for the push service besides the system's (a gateway's DATA_DIR/tls/ca.pem).")
        var ca: String?

        @Flag(help: "Send nothing: check the JWT against Apple's rules and say which fails and why.")
        var checkOnly = false

        @Option(
            name: .customLong("dry-run"),
            help: "Send nothing: write the encrypted body to this file and print the request as a curl command (its JWT included).")
        var dryRunBody: String?

        @Option(help: "With --check-only: a sender's own Authorization header (vapid t=…, k=…) to check instead.")
        var authorization: String?

        func validate() throws {
            if !checkOnly || authorization == nil {
                guard vapid != nil else { throw ValidationError("--vapid is needed: the private key that signs the JWT") }
                guard subject != nil else { throw ValidationError("--subject is needed: mailto:you@yourdomain or an https: URL") }
            }
            if authorization != nil, !checkOnly { throw ValidationError("--authorization is for --check-only") }
            if !checkOnly, message == nil { throw ValidationError("name the message: a file, or - for standard input") }
            guard ttl >= 0 else { throw ValidationError("--ttl must be 0 or more seconds") }
        }

        func run() async throws {
            let target = try readSubscription()
            let origin = try WebPush.origin(of: target.endpoint, flag: "the subscription's endpoint")
            let header = try authorization ?? signedAuthorization(audience: origin)
            if checkOnly { return try check(header, origin: origin) }
            let plaintext = try readMessage()
            let body: Data
            do {
                body = try WebPushEncryption.encrypt(plaintext, for: target.keys)
            } catch {
                throw ValidationError("cannot encrypt for this subscription: \(error)")
            }
            guard let url = URL(string: target.endpoint) else { throw ValidationError("the subscription's endpoint is not a URL") }
            var headers = HTTPHeaders([
                ("Authorization", header), ("TTL", "\(ttl)"), ("Content-Encoding", "aes128gcm"),
                ("Content-Type", "application/octet-stream"),
            ])
            if let urgency { headers.add(name: "Urgency", value: urgency) }
            if let topic { headers.add(name: "Topic", value: topic) }
            if let dryRunBody { return try printRequest(body, headers: headers, endpoint: target.endpoint, bodyFile: dryRunBody) }
            let (status, answer, reply) = try await Self.post(body, to: url, headers: headers, caPath: ca)
            if status == 201 {
                print(
                    "201 Created" + (answer.first(name: "apns-id").map { " apns-id \($0)" } ?? "")
                        + (answer.first(name: "location").map { " \($0)" } ?? ""))
                return
            }
            let reason = (try? JSONValue.parse(reply))?["reason"]?.stringValue ?? String(decoding: reply, as: UTF8.self)
            FileHandle.standardError.write(Data("herald webpush send: the push service answered \(status) \(reason)\n".utf8))
            if reason == APNsReason.badJWTToken.rawValue || reason == APNsReason.vapidPKHashMismatch.rawValue {
                FileHandle.standardError.write(Data("  (herald webpush send --check-only says which of Apple's rules the JWT breaks)\n".utf8))
            }
            throw ExitCode(1)
        }

        /// `--dry-run`: the body to a file, the request as curl sends it.
        private func printRequest(_ body: Data, headers: HTTPHeaders, endpoint: String, bodyFile: String) throws {
            guard FileManager.default.createFile(atPath: bodyFile, contents: body) else {
                throw ValidationError("cannot write the body to \(bodyFile)")
            }
            let quoted = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            var curl = "curl -i" + (ca.map { " --cacert \(quoted($0))" } ?? "")
            for (name, value) in headers { curl += " -H \(quoted("\(name): \(value)"))" }
            print(curl + " --data-binary @\(quoted(bodyFile)) \(quoted(endpoint))")
        }

        private func readSubscription() throws -> PushSubscriptionJSON {
            guard let data = FileManager.default.contents(atPath: subscription) else {
                throw ValidationError("cannot read the subscription \(subscription)")
            }
            do {
                return try PushSubscriptionJSON.parse(data)
            } catch {
                throw ValidationError("\(subscription): \(error)")
            }
        }

        private func readMessage() throws -> Data {
            if message == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            guard let message, let data = FileManager.default.contents(atPath: message) else {
                throw ValidationError("cannot read the message file \(message ?? "")")
            }
            return data
        }

        private func signedAuthorization(audience: String) throws -> String {
            guard let vapid, let subject else { throw ValidationError("--vapid and --subject are needed") }
            guard let pem = try? String(contentsOfFile: vapid, encoding: .utf8) else { throw ValidationError("cannot read --vapid \(vapid)") }
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw ValidationError("--vapid \(vapid) is not a P-256 private key in PEM (`herald webpush vapid` makes one)")
            }
            return try VAPIDToken.authorization(
                audience: audience, subject: subject, expiresAt: Date() + expirationHours * 3600, key: key)
        }

        /// Apple's checks, in the push service's order; prints what passes or what fails.
        private func check(_ header: String, origin: String) throws {
            do throws(Rejection) {
                let token = try VAPIDToken.parse(authorization: header)
                try token.verify()
                try token.checkClaims(origin: origin, applicationServerKey: nil, now: Date())
                print("ok: Apple's push service would take this JWT (aud \(origin), sub \(token.subject ?? ""))")
            } catch {
                print("\(error.reason.rawValue) (\(error.reason.status)): \(error.detail)")
                throw ExitCode(1)
            }
        }

        /// POSTs over HTTP/1.1: the status, the answer's headers and body.
        static func post(_ body: Data, to url: URL, headers: HTTPHeaders, caPath: String?) async throws -> (Int, HTTPHeaders, Data) {
            let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
            do {
                channel = try await HTTP1Connection.open(to: url, caPath: caPath)
            } catch {
                throw ValidationError("cannot reach the push service at \(url.absoluteString): \(error)")
            }
            return try await channel.executeThenClose { inbound, outbound in
                var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: url.path.isEmpty ? "/" : url.path)
                head.headers = headers
                head.headers.add(name: "Host", value: (url.host ?? "localhost") + (url.port.map { ":\($0)" } ?? ""))
                head.headers.add(name: "Content-Length", value: "\(body.count)")
                head.headers.add(name: "Connection", value: "close")
                try await outbound.write(.head(head))
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                try await outbound.write(.end(nil))
                var status = 0
                var answer = HTTPHeaders()
                var received = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        status = Int(head.status.code)
                        answer = head.headers
                    case .body(var chunk): received.writeBuffer(&chunk)
                    case .end: return (status, answer, Data(received.readableBytesView))
                    }
                }
                return (status, answer, Data(received.readableBytesView))
            }
        }
    }
}
