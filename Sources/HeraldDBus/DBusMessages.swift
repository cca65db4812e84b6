/// A signal received from the bus.
package struct DBusSignal: Sendable, Hashable {
    package var path: String
    package var interface: String
    package var member: String
    /// The sender's unique name (`:1.42`).
    package var sender: String?
    package var body: [DBusValue]

    package init(path: String, interface: String, member: String, sender: String? = nil, body: [DBusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.sender = sender
        self.body = body
    }
}

/// A method call to an object this connection exports.
package struct DBusMethodCall: Sendable, Hashable {
    package var path: String
    package var interface: String
    package var member: String
    package var sender: String?
    package var body: [DBusValue]

    package init(path: String, interface: String, member: String, sender: String? = nil, body: [DBusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.sender = sender
        self.body = body
    }
}

/// An exported object's answer to a method call.
package enum DBusReply: Sendable, Hashable {
    case values([DBusValue])
    /// Sends these signals first, then the values: what a server does when something happens before it answers
    /// (a test uses it to deliver a signal ahead of the reply it belongs to).
    case signalsThenValues([DBusSignal], [DBusValue])
    case error(name: String, message: String)

    /// `org.freedesktop.DBus.Error.UnknownMethod` for `call`.
    package static func unknownMethod(_ call: DBusMethodCall) -> DBusReply {
        .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.interface).\(call.member) at \(call.path)")
    }
}

/// Which signals a subscription receives; nil fields match anything.
package struct DBusMatch: Sendable, Hashable {
    package var path: String?
    package var interface: String?
    package var member: String?

    package init(path: String? = nil, interface: String? = nil, member: String? = nil) {
        self.path = path
        self.interface = interface
        self.member = member
    }

    /// The bus daemon's match rule: `type='signal',path='…',interface='…',member='…'`.
    var rule: String {
        var parts = ["type='signal'"]
        if let path { parts.append("path='\(path)'") }
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        return parts.joined(separator: ",")
    }
}
