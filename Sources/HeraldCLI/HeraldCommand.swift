public import ArgumentParser
import Foundation

/// `herald`: the gateway, its keys and tokens, and a provider client, in one command.
public struct HeraldCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Apple's push notification service, self-hosted: an APNs-compatible gateway and its tools.",
        subcommands: [
            Serve.self, Keys.self, Tokens.self, Certificates.self, Send.self, JWT.self, Device.self, Policy.self, Apps.self, ConsoleCommand.self,
            Migrate.self, Channels.self, Faults.self, Expect.self, WebPush.self,
        ],
        defaultSubcommand: Serve.self
    )

    public init() {}

    /// Parses `arguments` as `herald`'s (without the program's name), refusing a first word that names no command
    /// before the default command (serve) could take it.
    /// - Throws: ``UnknownCommand`` for such a word, else what `parseAsRoot` throws.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if let unknown = UnknownCommand.find(in: arguments, commands: configuration.subcommands) { throw unknown }
        return try parseAsRoot(arguments)
    }

    /// ArgumentParser's own `main`, except for a `ValidationError` thrown while a command runs (a missing file,
    /// a key id already taken): the parser no longer knows the subcommand then and would print the root
    /// command's usage under it, which helps no one. Such errors print alone, with the same exit code (64).
    public static func main() async {
        var command: any ParsableCommand
        do {
            command = try parse(Array(CommandLine.arguments.dropFirst()))
        } catch let unknown as UnknownCommand {
            FileHandle.standardError.write(Data((unknown.description + "\n").utf8))
            exit(withError: ExitCode.validationFailure)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            exit(withError: ExitCode.validationFailure)
        } catch {
            exit(withError: error)
        }
    }
}
