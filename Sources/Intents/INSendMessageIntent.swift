public import Foundation
public import UserNotifications

/// A phrase as the app speaks it: a group conversation's name.
open class INSpeakableString: NSObject, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    public let spokenPhrase: String
    public let vocabularyIdentifier: String?
    public let pronunciationHint: String?

    public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
        self.vocabularyIdentifier = vocabularyIdentifier
        self.spokenPhrase = spokenPhrase
        self.pronunciationHint = pronunciationHint
    }

    public init(spokenPhrase: String) {
        vocabularyIdentifier = nil
        self.spokenPhrase = spokenPhrase
        pronunciationHint = nil
    }
}

/// What kind of message was sent.
public enum INOutgoingMessageType: Int, Sendable {
    case unknown = 0
    case outgoingMessageText = 1
    case outgoingMessageAudio = 2
}

/// A request the app describes to the system; here, the base of ``INSendMessageIntent``.
open class INIntent: NSObject, @unchecked Sendable {
    // The images set by parameter; guarded by the lock (set once, before the intent is handed on, as on iOS).
    private let images = NSLock()
    private var imagesByParameter: [String: INImage] = [:]

    override public init() {}

    /// Sets the image shown for a parameter: `\.speakableGroupName` gives a group conversation its picture.
    public func setImage<Intent: INIntent, Value>(_ image: INImage?, forParameterNamed parameterName: KeyPath<Intent, Value>) {
        images.withLock { imagesByParameter["\(parameterName)"] = image }
    }

    /// The image set for a parameter.
    public func image<Intent: INIntent, Value>(forParameterNamed parameterName: KeyPath<Intent, Value>) -> INImage? {
        images.withLock { imagesByParameter["\(parameterName)"] }
    }
}

/// A message received (or sent): what a messaging app's service extension hands `updating(from:)` so the notification
/// shows the sender (iOS 15's communication notifications).
///
/// ```swift
/// let sender = INPerson(personHandle: INPersonHandle(value: "alice@example.com", type: .emailAddress),
///                       nameComponents: nil, displayName: "Alice", image: INImage(imageData: avatar),
///                       contactIdentifier: nil, customIdentifier: nil)
/// let intent = INSendMessageIntent(recipients: nil, outgoingMessageType: .outgoingMessageText, content: "Hi",
///                                  speakableGroupName: nil, conversationIdentifier: "chat-42", serviceName: nil,
///                                  sender: sender, attachments: nil)
/// contentHandler(try request.content.updating(from: intent))
/// ```
open class INSendMessageIntent: INIntent, UNNotificationContentProviding, @unchecked Sendable {
    // Immutable after init: every stored property is a `let` of a Sendable value.
    public let recipients: [INPerson]?
    public let outgoingMessageType: INOutgoingMessageType
    public let content: String?
    public let speakableGroupName: INSpeakableString?
    public let conversationIdentifier: String?
    public let serviceName: String?
    public let sender: INPerson?
    /// Files sent with the message (unused by notifications).
    public let attachments: [URL]?

    public init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?,
        conversationIdentifier: String?, serviceName: String?, sender: INPerson?, attachments: [URL]?
    ) {
        self.recipients = recipients
        self.outgoingMessageType = outgoingMessageType
        self.content = content
        self.speakableGroupName = speakableGroupName
        self.conversationIdentifier = conversationIdentifier
        self.serviceName = serviceName
        self.sender = sender
        self.attachments = attachments
    }

    /// iOS 14's form, without attachments.
    public convenience init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?,
        conversationIdentifier: String?, serviceName: String?, sender: INPerson?
    ) {
        self.init(
            recipients: recipients, outgoingMessageType: outgoingMessageType, content: content, speakableGroupName: speakableGroupName,
            conversationIdentifier: conversationIdentifier, serviceName: serviceName, sender: sender, attachments: nil)
    }
}

extension INSendMessageIntent: CommunicationProviding {
    package func communication() throws(UNError) -> CommunicationRecord {
        guard let sender, !sender.displayName.isEmpty else {
            throw UNError(.contentProvidingInvalid, "the INSendMessageIntent has no sender with a name to show")
        }
        let group = speakableGroupName?.spokenPhrase ?? ((recipients?.count ?? 0) > 1 ? recipients?.map(\.displayName).joined(separator: ", ") : nil)
        // A group shows its picture (set with setImage(_:forParameterNamed: \.speakableGroupName)), else the sender's.
        let groupImage = image(forParameterNamed: \INSendMessageIntent.speakableGroupName)
        return CommunicationRecord(
            senderName: sender.displayName, senderHandle: sender.personHandle?.value,
            avatar: Self.avatar(group != nil ? groupImage ?? sender.image : sender.image),
            conversationIdentifier: conversationIdentifier, groupName: group)
    }

    /// The image's bytes (read now from a file), unless there are none or too many.
    private static func avatar(_ image: INImage?) -> Data? {
        guard let data = image?.data ?? image?.url.flatMap({ FileManager.default.contents(atPath: $0.path) }) else { return nil }
        return data.isEmpty || data.count > CommunicationRecord.avatarLimit ? nil : data
    }
}
