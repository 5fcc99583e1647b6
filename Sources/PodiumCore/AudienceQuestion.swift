import Foundation

/// A question a viewer asks the presenter.
public struct AudienceQuestion: Codable, Sendable, Equatable {
    /// The id of the `ask` command: retries of the same question are one question.
    public var id: String
    public var text: String
    /// The slide the question is about, if the viewer tied it to one.
    public var page: Int?
    public var anonymous: Bool
    /// The asker's identity and name. Never sent to presenters for an anonymous question.
    public var viewerId: String
    public var name: String?
    public var askedAt: Date
    public var answered: Bool

    public init(
        id: String, text: String, page: Int?, anonymous: Bool, viewerId: String, name: String?, askedAt: Date,
        answered: Bool = false
    ) {
        self.id = id
        self.text = text
        self.page = page
        self.anonymous = anonymous
        self.viewerId = viewerId
        self.name = name
        self.askedAt = askedAt
        self.answered = answered
    }

    public static let maxLength = 500
}
