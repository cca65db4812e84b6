public import Foundation

/// How a person is reached: an email address, a phone number, or an account of the app's own.
public enum INPersonHandleType: Int, Sendable {
    case unknown = 0
    case emailAddress = 1
    case phoneNumber = 2
}

/// A person's address on the app's service.
open class INPersonHandle: NSObject, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    public let value: String?
    public let type: INPersonHandleType
    public let label: String?

    public init(value: String?, type: INPersonHandleType, label: String? = nil) {
        self.value = value
        self.type = type
        self.label = label
    }

    public convenience init(value: String?, type: INPersonHandleType) {
        self.init(value: value, type: type, label: nil)
    }
}

/// Whether a suggestion of the person came from the app (unused here; kept for iOS code).
public enum INPersonSuggestionType: Int, Sendable {
    case none = 0
    case socialProfile = 1
    case instantMessageAddress = 2
}

/// A person in a conversation: a message's sender or recipient.
open class INPerson: NSObject, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    public let personHandle: INPersonHandle?
    public let nameComponents: PersonNameComponents?
    public let displayName: String
    public let image: INImage?
    public let contactIdentifier: String?
    public let customIdentifier: String?
    /// The person is the device's owner.
    public let isMe: Bool
    public let suggestionType: INPersonSuggestionType

    public init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType
    ) {
        self.personHandle = personHandle
        self.nameComponents = nameComponents
        let fromComponents = nameComponents.map { [$0.givenName, $0.familyName].compactMap { $0 }.joined(separator: " ") }
        self.displayName = displayName ?? fromComponents ?? personHandle.value ?? ""
        self.image = image
        self.contactIdentifier = contactIdentifier
        self.customIdentifier = customIdentifier
        self.isMe = isMe
        self.suggestionType = suggestionType
    }

    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?
    ) {
        self.init(
            personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
            contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: false, suggestionType: .none)
    }

    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?, isMe: Bool
    ) {
        self.init(
            personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image,
            contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: isMe, suggestionType: .none)
    }
}

/// An image for an intent: a sender's avatar or a group's picture.
open class INImage: NSObject, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    let data: Data?
    let url: URL?

    /// An image from its bytes (PNG, JPEG, GIF).
    public init(imageData: Data) {
        data = imageData
        url = nil
    }

    /// An image in a file.
    public init?(url: URL) {
        guard url.isFileURL else { return nil }
        data = nil
        self.url = url
    }

    /// An image in the app's bundle (`Name.app/NAME`, or with `.png`).
    public convenience init(named name: String) {
        let bundle = Bundle.main.bundleURL
        let file = [name, name + ".png"].map { bundle.appendingPathComponent($0) }.first { FileManager.default.fileExists(atPath: $0.path) }
        if let file, let image = INImage(url: file) {
            self.init(image)
        } else {
            self.init(imageData: Data())
        }
    }

    private init(_ other: INImage) {
        data = other.data
        url = other.url
    }
}
