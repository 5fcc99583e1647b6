import Foundation
import PodiumCore

/// A session's (or room's) report: who came, the polls, the questions, the clips.
public struct SessionReport: Codable, Sendable, Equatable {
    public struct Attendance: Codable, Sendable, Equatable {
        public var at: Date
        public var viewers: Int
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
        /// An open poll's answers; nil for the others.
        public var answers: [String]?
    }
    /// A clip put on stage: when, and how much of it played.
    public struct Clip: Codable, Sendable, Equatable {
        /// The video's id in the library.
        public var video: String
        /// Nil: deleted from the library since.
        public var title: String?
        public var shownAt: Date
        /// Nil while it is on stage.
        public var hiddenAt: Date?
        public var onStageSeconds: Double
        public var playedSeconds: Double
        /// Nil when not known.
        public var duration: Double?
        /// Its poster frame (`/blobs/…`); nil for a deleted clip or one without pictures.
        public var posterUrl: String?
    }
    public var code: String
    public var kind: SessionKind
    public var title: String
    public var startedAt: Date
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
}

/// The CSV parts of a report.
public enum ReportFile: String, Sendable, CaseIterable {
    case attendance, polls, answers, questions, clips

    public var fileName: String { "\(rawValue).csv" }
}

extension Endpoint {
    public static let report = Endpoint("GET", "/api/v1/sessions/{code}/report")
    public static let reportFile = Endpoint("GET", "/api/v1/sessions/{code}/report/{file}")
}

extension PodiumClient {
    /// The report (the session's presenter; a room's moderator).
    public func report(code: String) async throws -> SessionReport {
        try await call(.report, ["code": code])
    }

    /// One part of the report as CSV text.
    public func reportCSV(code: String, _ file: ReportFile) async throws -> String {
        String(decoding: try await bytes(.reportFile, ["code": code, "file": file.fileName]), as: UTF8.self)
    }

    /// Downloads one part of the report into `destination`.
    public func downloadReport(code: String, _ file: ReportFile, to destination: URL, progress: ProgressHandler? = nil)
        async throws
    {
        try await download(
            try request(.reportFile, ["code": code, "file": file.fileName]), to: destination, progress: progress)
    }
}
