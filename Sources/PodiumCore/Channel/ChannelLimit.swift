/// What the channel keeps for members: each limit a non-member can meet, named on the wire by its
/// raw value (the `limit` of a `membership_required` error), so a page can say which one it was.
public enum ChannelLimit: String, Sendable, Codable, CaseIterable {
    /// A video that is neither free, promoted nor the newest.
    case video
    /// The radio's daily allowance is spent.
    case radioDaily = "radio_daily"
    /// A quiz older than the newest.
    case quizArchive = "quiz_archive"
    /// Directions to a place.
    case directions

    /// What the person is told, before how to become a member.
    public var explanation: String {
        switch self {
        case .video: "This video is for members."
        case .radioDaily: "You have listened to today's free radio time."
        case .quizArchive: "Earlier quizzes are for members; the newest is open to everyone."
        case .directions: "Directions are for members."
        }
    }
}
