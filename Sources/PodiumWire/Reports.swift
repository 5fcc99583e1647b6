import Foundation
import PodiumCore

/// A session's (or room's) report (`GET /api/v1/sessions/{code}/report`): who came, the polls,
/// the questions, the clips. `endedAt` is left out while the session is live.
public struct SessionReport: Codable, Sendable, Equatable {
    /// Distinct viewers connected in one minute of the session.
    public struct Attendance: Codable, Sendable, Equatable {
        public var at: Date
        public var viewers: Int

        public init(at: Date, viewers: Int) {
            self.at = at
            self.viewers = viewers
        }
    }

    /// A poll with its results.
    public struct PollResult: Codable, Sendable, Equatable {
        public var id: Int
        /// `choice` or `open`.
        public var kind: String
        public var question: String
        public var choices: [String]
        /// The indexes of the right choices (empty when none is marked).
        public var correct: [Int]
        public var status: String
        /// Votes per choice, in the order of ``choices``.
        public var counts: [Int]
        public var answered: Int
        /// An open poll's answers, newest last; nil (left out) for the others.
        public var answers: [String]?

        public init(
            id: Int, kind: String, question: String, choices: [String], correct: [Int], status: String, counts: [Int],
            answered: Int, answers: [String]?
        ) {
            self.id = id
            self.kind = kind
            self.question = question
            self.choices = choices
            self.correct = correct
            self.status = status
            self.counts = counts
            self.answered = answered
            self.answers = answers
        }
    }

    /// A clip put on stage: when, and how much of it played, so a host sees what the audience
    /// watched. Its empty fields are sent as `null` (a deleted clip, one still on stage, an
    /// unknown length are information).
    public struct Clip: Codable, Sendable, Equatable {
        /// The video's id in the library.
        public var video: String
        /// Nil: deleted from the library since (the page shows "deleted clip").
        @NullEncoded public var title: String?
        public var shownAt: Date
        /// When it was taken off the stage, or the session ended; nil while it is on stage.
        @NullEncoded public var hiddenAt: Date?
        /// Up to now while it is on stage.
        public var onStageSeconds: Double
        /// Seconds of the clip played: the sum of its playing spans (up to now while it plays).
        public var playedSeconds: Double
        /// Nil when not known.
        @NullEncoded public var duration: Double?
        /// Its poster frame (`/blobs/…`); nil for a deleted clip or one without pictures.
        @NullEncoded public var posterUrl: String?
        /// The languages the clip has caption tracks in (empty: none, WCAG 1.2.2); left out for a
        /// deleted clip.
        public var captions: [String]?

        public init(
            video: String, title: String?, shownAt: Date, hiddenAt: Date?, onStageSeconds: Double, playedSeconds: Double,
            duration: Double?, posterUrl: String?, captions: [String]? = nil
        ) {
            self.video = video
            self.title = title
            self.shownAt = shownAt
            self.hiddenAt = hiddenAt
            self.onStageSeconds = onStageSeconds
            self.playedSeconds = playedSeconds
            self.duration = duration
            self.posterUrl = posterUrl
            self.captions = captions
        }
    }

    public var code: String
    public var kind: SessionKind
    public var title: String
    public var startedAt: Date
    /// Nil (left out) while live.
    public var endedAt: Date?
    public var uniqueViewers: Int
    public var peakViewers: Int
    public var attendance: [Attendance]
    public var polls: [PollResult]
    public var questions: [QuestionView]
    /// Every clip put on stage, in the order shown (a clip shown twice is there twice).
    public var clips: [Clip]
    /// A room's presenters, for the names of the questions' `presenter` (empty for a session).
    public var presenters: [RoomPresenter]

    public init(
        code: String, kind: SessionKind, title: String, startedAt: Date, endedAt: Date?, uniqueViewers: Int,
        peakViewers: Int, attendance: [Attendance], polls: [PollResult], questions: [QuestionView], clips: [Clip],
        presenters: [RoomPresenter]
    ) {
        self.code = code
        self.kind = kind
        self.title = title
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.uniqueViewers = uniqueViewers
        self.peakViewers = peakViewers
        self.attendance = attendance
        self.polls = polls
        self.questions = questions
        self.clips = clips
        self.presenters = presenters
    }
}
