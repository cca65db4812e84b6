public import ArgumentParser

/// `herald`: the gateway, its keys and tokens, and a provider client, in one command.
public struct HeraldCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Apple's push notification service, self-hosted: an APNs-compatible gateway and its tools.",
        subcommands: [Serve.self, Keys.self, Tokens.self, Certificates.self, Send.self, JWT.self, Device.self, Policy.self, Apps.self],
        defaultSubcommand: Serve.self
    )

    public init() {}
}
