package import Foundation
package import HeraldDBus

/// The device's UnifiedPush distributor on the D-Bus session bus (docs/unifiedpush.md): it owns
/// `org.unifiedpush.Distributor.herald`, answers connectors at `/org/unifiedpush/Distributor` (`Distributor2` and
/// `Distributor1`, as KDE's distributor does), and calls connectors back on their own names at
/// `/org/unifiedpush/Connector`. Calls to a connector let the bus start it (D-Bus activation from the app's `.service`
/// file) when it is not running.
///
/// ```swift
/// let distributor = try await UnifiedPushDistributor.start(address: address) { request in await daemon.answer(request) }
/// try await distributor.newEndpoint(registration)
/// ```
package final class UnifiedPushDistributor: Sendable {
    package static let busName = "org.unifiedpush.Distributor.herald"
    package static let path = "/org/unifiedpush/Distributor"
    static let connectorPath = "/org/unifiedpush/Connector"
    /// How long a connector has to answer: long enough for the bus to start it (dbus-daemon allows 25 s for that).
    static let connectorTimeout: Duration = .seconds(30)

    package let connection: DBusConnection

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to the bus at `address`, serves the distributor's object with `answer` and takes ``busName``.
    ///
    /// - Throws: ``DBusError`` when the bus cannot be reached or the name is another's (another distributor runs).
    package static func start(
        address: String, answer: @escaping @Sendable (UnifiedPushRequest) async -> DBusReply
    ) async throws(DBusError) -> UnifiedPushDistributor {
        let connection = try await DBusConnection.connect(address: address)
        do throws(DBusError) {
            try await connection.export(path: path) { call in
                switch UnifiedPushRequest.read(call) {
                case .success(let request): await answer(request)
                case .failure(let immediate): immediate.reply
                }
            }
            try await connection.requestName(busName)
        } catch {
            connection.close()
            throw error
        }
        return UnifiedPushDistributor(connection: connection)
    }

    // MARK: Calls to connectors

    /// `NewEndpoint`: the registration's endpoint, after every successful `Register` and whenever it changes.
    package func newEndpoint(_ registration: UnifiedPushRegistration, endpoint: String) async throws(DBusError) {
        let token = DBusValue.string(registration.token)
        try await callConnector(
            registration, "NewEndpoint",
            registration.version == 1 ? [token, .string(endpoint)] : [.hints(["token": token, "endpoint": .string(endpoint)])])
    }

    /// `Message`: one web push message's body, the raw (encrypted) request body, with its id; returns once the connector
    /// answered (a v2 connector answers with the id: the message is acknowledged).
    package func message(_ registration: UnifiedPushRegistration, body: Data, id: String) async throws(DBusError) {
        let token = DBusValue.string(registration.token)
        let bytes = DBusValue.bytes(Array(body))
        try await callConnector(
            registration, "Message",
            registration.version == 1 ? [token, bytes, .string(id)] : [.hints(["token": token, "message": bytes, "id": .string(id)])])
    }

    /// `Unregistered`: the registration is gone, as the app asked (`confirming`) or because the gateway retired it.
    package func unregistered(_ registration: UnifiedPushRegistration, confirming: Bool) async throws(DBusError) {
        // v1 names the token only when it is not a confirmation; v2 always does.
        let token = DBusValue.string(registration.version == 1 && confirming ? "" : registration.token)
        try await callConnector(registration, "Unregistered", registration.version == 1 ? [token] : [.hints(["token": token])])
    }

    /// Calls the connector, without the no-auto-start flag: the bus starts an app that is not running.
    private func callConnector(_ registration: UnifiedPushRegistration, _ member: String, _ arguments: [DBusValue]) async throws(DBusError) {
        let interface = registration.version == 1 ? "org.unifiedpush.Connector1" : "org.unifiedpush.Connector2"
        do throws(DBusError) {
            _ = try await connection.call(
                destination: registration.service, path: Self.connectorPath, interface: interface, member: member, arguments,
                timeout: Self.connectorTimeout)
        } catch {
            // v1's connector methods are declared NoReply: a connector that keeps to that never answers. The bus took the
            // call to it (it would have said ServiceUnknown otherwise), which is all v1 can tell.
            guard registration.version == 1, case .remote("org.freedesktop.DBus.Error.NoReply", _) = error else { throw error }
        }
    }

    /// Closes the connection: the name goes with it.
    package func close() {
        connection.close()
    }

    /// What `Introspect` answers at ``path``: both interfaces, as the spec's XML files have them (KDE's connector picks
    /// the version by looking for `org.unifiedpush.Distributor2` here).
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>
          <interface name="org.unifiedpush.Distributor2">
            <method name="Register">
              <arg name="args" type="a{sv}" direction="in"/>
              <arg name="res" type="a{sv}" direction="out"/>
            </method>
            <method name="Unregister">
              <arg name="args" type="a{sv}" direction="in"/>
              <arg name="res" type="a{sv}" direction="out"/>
            </method>
          </interface>
          <interface name="org.unifiedpush.Distributor1">
            <method name="Register">
              <arg name="serviceName" type="s" direction="in"/>
              <arg name="token" type="s" direction="in"/>
              <arg name="description" type="s" direction="in"/>
              <arg name="registrationResult" type="s" direction="out"/>
              <arg name="registrationResultReason" type="s" direction="out"/>
            </method>
            <method name="Unregister">
              <arg name="token" type="s" direction="in"/>
              <annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/>
            </method>
          </interface>
        </node>
        """
}
