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
    /// Approved by the presenter for the public list (when the session requires approval).
    public var approved: Bool
    /// In a room, the presenter who had the stage when it was asked (nil: the moderator, or a
    /// session). Derived from the room's turns (``RoomTurns``), so it holds across a restart.
    public var presenter: String?

    public init(
        id: String, text: String, page: Int?, anonymous: Bool, viewerId: String, name: String?, askedAt: Date,
        answered: Bool = false, approved: Bool = false, presenter: String? = nil
    ) {
        self.id = id
        self.text = text
        self.page = page
        self.anonymous = anonymous
        self.viewerId = viewerId
        self.name = name
        self.askedAt = askedAt
        self.answered = answered
        self.approved = approved
        self.presenter = presenter
    }

    public static let maxLength = 500
}

/// How the audience's questions are shared: the presenter's choice per session.
public struct QuestionMode: Codable, Sendable, Equatable {
    /// Viewers see each other's questions and upvote them.
    public var isPublic: Bool
    /// A question becomes public only once the presenter approves it.
    public var needsApproval: Bool

    public init(isPublic: Bool = false, needsApproval: Bool = false) {
        self.isPublic = isPublic
        self.needsApproval = needsApproval
    }

    enum CodingKeys: String, CodingKey {
        case isPublic = "public"
        case needsApproval = "approval"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isPublic = try container.decodeIfPresent(Bool.self, forKey: .isPublic) ?? false
        needsApproval = try container.decodeIfPresent(Bool.self, forKey: .needsApproval) ?? false
    }

    /// Whether a question is on the public list.
    public func shows(_ question: AudienceQuestion) -> Bool {
        isPublic && (!needsApproval || question.approved)
    }
}
