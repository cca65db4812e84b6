public import HeraldStore
public import HeraldWire
public import Logging
public import NIOCore
public import NIOSSL
public import ServiceLifecycle

/// What the gateway hands the application on its console port (HeraldConsole's): the parts of a running gateway that
/// a layer on top may use, and nothing of the provider API's or the device link's inner workings.
public struct GatewayParts: Sendable {
    public let configuration: GatewayConfiguration
    public let store: any Store
    public let dataDirectory: DataDirectory
    public let clock: any WallClock
    public let logger: Logger
    public let metrics: GatewayMetrics
    /// Whether the store can be reached (`/healthz`).
    public let readiness: Readiness
    /// The devices linked here (and, in a cluster, elsewhere).
    public let hub: DeviceHub
    /// Delivery state changes as they happen.
    public let events: DeliveryEvents
    /// The provider API's cache of keys, devices and policies: whatever changes them tells it.
    public let directory: Directory
    /// Announces retired tokens: whatever retires one asks it to check.
    public let retirements: RetirementFeed
    /// The fault rules the provider API applies (docs/faults.md).
    public let faults: FaultRules
    /// The Web Push requests refused lately (docs/web-push.md), for the console's Web Push page.
    public let webPushRefusals: WebPushRefusals
    /// The origin of the Web Push port's endpoints (`https://localhost:8443`).
    public let webPushOrigin: String
    /// Checks a provider token as the provider API does.
    public let tokenInspector: ProviderTokenInspector
    /// The bearer token of the admin API.
    public let adminToken: String
    /// The provider API's port, bound.
    public let providerPort: Int
    /// The CA (or given certificate) a client on this machine trusts for the provider API and the device link.
    public let trustRootsPath: String
    /// The device link's port, once bound.
    public let devicePort: EventLoopFuture<Int>
    /// The gateway's certificate for HTTP/1.1, when the console listens beyond loopback (else plain HTTP).
    public let consoleTLS: TLSConfiguration?
    public let eventLoopGroup: any EventLoopGroup
    /// To be called with the console's port once it listens (``Gateway/consolePort()`` returns it).
    public let consoleListening: @Sendable (Int) -> Void
}

/// Makes the service the console port runs, from the gateway's parts (HeraldConsole's `Console.service(_:)`).
public typealias ConsoleFactory = @Sendable (GatewayParts) throws -> any Service

/// The gateway was started without a console, so it has no console port.
public struct NoConsole: Error, CustomStringConvertible {
    public var description: String { "this gateway serves no console" }
}
