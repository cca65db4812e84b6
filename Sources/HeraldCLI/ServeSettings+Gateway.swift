import HeraldGateway
import NIOCore

extension ServeSettings {
    /// The gateway these settings describe.
    var gatewayConfiguration: GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.host = host
        configuration.consoleHost = consoleHost
        configuration.providerPort = providerPort
        configuration.consolePort = consolePort
        configuration.channelsPort = channelsPort
        configuration.webPushPort = webPushPort
        configuration.devicePort = devicePort
        configuration.plaintext = plaintext
        configuration.allowFaults = allowFaults
        configuration.environment = environment
        configuration.tlsCertificatePath = tlsCertificate
        configuration.tlsKeyPath = tlsKey
        configuration.idleTimeout = .seconds(Int64(idleTimeout))
        configuration.deviceTokenRatePerSecond = deviceRateLimit
        configuration.deviceTokenBurst = deviceRateLimit * 2
        configuration.nodeName = givenNodeName  // else the gateway's default, with the port it bound
        return configuration
    }
}
