import Foundation
import PodiumWire

// SessionReport is PodiumWire's (re-exported).

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
