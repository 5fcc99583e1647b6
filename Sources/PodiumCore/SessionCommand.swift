/// What a client asks a live session to do. Every one is decided by ``SessionState/take(_:id:from:at:)``.
public enum SessionCommand: Sendable, Equatable {
    case goto(page: Int)
    case zoom(Viewport)
    case blank(BlankMode)
    case lock(Bool)
    case end
    case openPoll(Poll)
    case closePoll(pollId: Int)
    case revealPoll(pollId: Int, results: Bool)
    /// Where a poll's results are: on every viewer's device (true) or hidden from the audience.
    case showResults(pollId: Int, shown: Bool)
    case shareAnswer(pollId: Int, answerId: String)
    case setQuestionMode(QuestionMode)
    case stroke(Stroke)
    case erase(strokeId: String)
    case clearPage(page: Int)
    /// Rooms: a control command (request, grant, hand over, pass, return, do-not-disturb...).
    case room(RoomCommand)
    /// Rooms: a deck joins the room (built by the server once it checked who may bring it).
    case addDeck(RoomDeck)
    /// Rooms: put a deck on the stage, at a page or where it was left.
    case showDeck(deckId: String, page: Int?)
    /// Rooms: the projector's colour around the slide.
    case setBackground(String)
    /// A viewer's answer to a poll (one per viewer, changeable while the poll is open).
    case answer(pollId: Int, PollAnswer)
    /// A viewer's question for the host; its id is the command's id.
    case ask(id: String, text: String, page: Int?, anonymous: Bool)
    /// The host marks a question answered or not.
    case markQuestion(questionId: String, answered: Bool)
    /// The host approves a question for the public list, or withdraws it.
    case approveQuestion(questionId: String, approved: Bool)
    /// A viewer's upvote of a public question, or its withdrawal.
    case vote(questionId: String, up: Bool)
    /// The host puts results, answers, the leaderboard or a question on screen; nil takes it off.
    case spotlight(Spotlight?)
    /// The host shows how to join (the code, the link's QR code) on the big screens, or takes it off.
    case showJoinInfo(Bool)
    /// Puts a video from the library on the stage, stopped at its start (built by the server
    /// once it found the video ready and checked who may show it; a client names only its id).
    case showVideo(VideoOnStage)
    /// Plays, pauses, stops, seeks or changes the speed of the video on the stage.
    case playback(PlaybackCommand)
    /// Takes the video off the stage: the deck's page shows again.
    case hideVideo
}
