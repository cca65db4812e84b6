/// Option key: the attachment's uniform type identifier (a `String`, like "public.jpeg"), used when the file's
/// content alone cannot tell its type (for example an MPEG-4 file without tracks, or an MP3 without a tag).
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"

/// Option key: whether to hide the attachment's thumbnail (a `Bool`).
public let UNNotificationAttachmentOptionsThumbnailHiddenKey: String = "UNNotificationAttachmentOptionsThumbnailHiddenKey"

/// Option key: the part of the image to use as the thumbnail, a rectangle in unit coordinates (0…1): a
/// dictionary with the numbers "X", "Y", "Width" and "Height" (`CGRect`'s dictionary representation) or a
/// `CGRect`. `["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5]` is the centre.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey: String = "UNNotificationAttachmentOptionsThumbnailClippingRectKey"

/// Option key: where the thumbnail comes from: for a movie the time in seconds (a number, or a `CMTime`
/// dictionary with "value" and "timescale"), within the movie's length; for an animated GIF the frame number.
public let UNNotificationAttachmentOptionsThumbnailTimeKey: String = "UNNotificationAttachmentOptionsThumbnailTimeKey"
