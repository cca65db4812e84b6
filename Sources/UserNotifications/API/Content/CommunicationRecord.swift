public import Foundation

/// Who a communication notification (iOS 15) is from, as `UNNotificationContent.updating(from:)` took it from an
/// `INSendMessageIntent`: every presenter shows the sender's name and avatar in place of the app's.
package struct CommunicationRecord: Codable, Hashable, Sendable {
    /// The sender's display name.
    package var senderName: String
    /// The sender's handle (an address, a phone number, an account), which a Focus's allowed people match.
    package var senderHandle: String?
    /// The avatar's bytes (PNG, JPEG, GIF or WebP), taken when the content was updated, so it outlives the extension.
    package var avatar: Data?
    package var conversationIdentifier: String?
    /// A group conversation's name; nil for a message to the person alone.
    package var groupName: String?

    package init(
        senderName: String, senderHandle: String? = nil, avatar: Data? = nil, conversationIdentifier: String? = nil, groupName: String? = nil
    ) {
        self.senderName = senderName
        self.senderHandle = senderHandle
        self.avatar = avatar
        self.conversationIdentifier = conversationIdentifier
        self.groupName = groupName
    }

    /// The largest avatar kept (bytes): iOS downsizes avatars; a bigger one is dropped, the name stays.
    package static let avatarLimit = 1_000_000
}

/// An object `UNNotificationContent.updating(from:)` takes: on iOS, Intents' `INSendMessageIntent` and
/// `INStartCallIntent`; here, Herald's `Intents` module's `INSendMessageIntent`.
public protocol UNNotificationContentProviding: NSObjectProtocol {}

/// What Herald's Intents types give `updating(from:)`: the sender and conversation, or why they cannot.
package protocol CommunicationProviding: UNNotificationContentProviding {
    /// - Throws: `contentProvidingInvalid` when there is no sender to show.
    func communication() throws(UNError) -> CommunicationRecord
}

extension UNNotificationContent {
    /// The content as a communication notification (iOS 15): the provider's sender — name, handle, avatar — and
    /// conversation replace the app's name and icon wherever it is shown. The app needs the communication
    /// entitlement (`com.apple.developer.usernotifications.communication`); without it the device shows the
    /// notification as an ordinary one. Typically called in a service extension with the message's intent.
    ///
    /// - Throws: `UNError.contentProvidingObjectNotAllowed` for a provider that is not one of Intents' types;
    ///   `UNError.contentProvidingInvalid` for an intent without a sender.
    @available(iOS 15.0, macOS 12.0, *)
    public func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
        guard let provider = provider as? any CommunicationProviding else {
            throw UNError(
                .contentProvidingObjectNotAllowed, "updating(from:) takes an Intents object (INSendMessageIntent), not \(type(of: provider))")
        }
        var values = values
        values.communication = try provider.communication()
        return UNNotificationContent(storage: values)
    }
}
