/// A rule of the live session refused a command or a join.
///
/// `code` is stable and meant for programs (the browser shows a message per code); `message` is
/// for people. New errors are added as static members, so callers never match on strings.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public static let badMessage = SessionError(code: "bad_message", message: "The message could not be understood.")
    public static let helloRequired = SessionError(
        code: "hello_required", message: "The first message on the socket must be hello.")
    public static let notFound = SessionError(code: "not_found", message: "There is no session with this code.")
    public static let forbidden = SessionError(code: "forbidden", message: "Your role may not do that.")
    public static let followingPresenter = SessionError(
        code: "forbidden", message: "The presenter has locked navigation: you follow their page.")
    public static let invalidPage = SessionError(code: "invalid_page", message: "That page does not exist in this deck.")
    public static let invalidViewport = SessionError(
        code: "invalid_viewport", message: "The zoom rectangle must lie inside the page.")
    public static let invalidPoint = SessionError(code: "bad_message", message: "The pointer must lie inside the page.")
    public static let ended = SessionError(code: "ended", message: "The session has ended.")
    public static let passcodeRequired = SessionError(
        code: "passcode_required", message: "This session needs a passcode.")
    public static let passcodeWrong = SessionError(code: "passcode_wrong", message: "That passcode is not right.")
    public static let rateLimited = SessionError(
        code: "rate_limited", message: "Too many attempts. Wait a minute and try again.")
    public static let unauthorized = SessionError(
        code: "unauthorized", message: "Sign in as the presenter of this session.")
    public static let notPresenter = SessionError(
        code: "forbidden", message: "You are signed in, but this is not your session.")

    public static func badMessage(_ detail: String) -> SessionError {
        SessionError(code: "bad_message", message: detail)
    }
}

extension SessionError {
    /// The store could not save the event; nothing changed and the client may retry.
    public static let unavailable = SessionError(
        code: "unavailable", message: "The server could not save that. Try again in a moment.")
}

extension SessionError {
    public static let invalidPoll = SessionError(
        code: "invalid_poll", message: "A poll needs a question and, for multiple choice, 2 to 8 choices.")
    public static let pollNotFound = SessionError(code: "poll_not_found", message: "There is no such poll.")
    public static let pollClosed = SessionError(code: "poll_closed", message: "This poll is closed.")
    public static let invalidAnswer = SessionError(code: "invalid_answer", message: "That answer does not fit the poll.")
    public static let answerNotFound = SessionError(code: "answer_not_found", message: "There is no such answer.")
    public static let invalidQuestion = SessionError(
        code: "invalid_question", message: "A question has 1 to 500 characters.")
    public static let questionNotFound = SessionError(code: "question_not_found", message: "There is no such question.")
}

extension SessionError {
    public static let invalidStroke = SessionError(
        code: "invalid_stroke", message: "A stroke needs 1 to 2,000 points inside the page, a #RRGGBB colour and a sane width.")
    public static let strokeNotFound = SessionError(code: "stroke_not_found", message: "There is no such stroke.")
}

extension SessionError {
    /// A command held a value that cannot be sent on (a number out of range, say): refused
    /// before anything was stored.
    public static let unencodable = SessionError(
        code: "bad_message", message: "The command holds a value that cannot be sent.")
}

extension SessionError {
    /// Sent in place of a frame the server could not encode (see `Frames.encode`).
    public static let internalError = SessionError(code: "internal", message: "The server could not send this message.")
}
