import ArgumentParser
import Foundation
import HeraldConsole
import HeraldStore

/// `herald console`: settings of the web console.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Settings of the web console.",
        subcommands: [Password.self]
    )

    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a password people may sign in to the console with, instead of the admin token.",
            discussion: """
                Reads the password from standard input (asked twice, unechoed, at a terminal). Only its scrypt hash is \
                kept, in DATA_DIR/console-password; a running gateway uses it from the next sign-in.
                """
        )

        @OptionGroup var dataDirectory: DataDirectoryOption

        @Flag(help: "Remove the password: only the admin token signs in.")
        var remove = false

        func run() async throws {
            if remove {
                print(ConsolePassword.remove(in: dataDirectory.directory) ? "removed the console password" : "no console password was set")
                return
            }
            let password = try Self.readPassword()
            guard password.count >= ConsolePassword.minimumLength else {
                throw ValidationError("the password must have at least \(ConsolePassword.minimumLength) characters")
            }
            try ConsolePassword.set(password, in: try dataDirectory.prepare())
            print("set the console password; sign in with it at the console's /sign-in")
        }

        /// The password from a terminal (twice, unechoed) or one line of standard input.
        private static func readPassword() throws -> String {
            guard isatty(STDIN_FILENO) != 0 else {
                return (readLine(strippingNewline: true) ?? "")
            }
            let first = getpass("New console password: ").map { String(cString: $0) } ?? ""
            let second = getpass("Again: ").map { String(cString: $0) } ?? ""
            guard first == second else { throw ValidationError("the two passwords differ; nothing was changed") }
            return first
        }
    }
}
