import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// The presenter's report of a session: attendance over time, polls with results, open answers,
/// questions and the clips shown; as JSON for the browser and as one CSV file per kind.
struct ReportController {
    let store: any SessionStore
    let notesStore: any NotesAndAttendanceStore
    let videoStore: any VideoStore
    /// Which clips shown have captions (nil: not said).
    var captionStore: (any CaptionStore)? = nil
    let hub: LiveHub
    /// The clock the sessions' events are timed by: a clip still on stage counts up to now.
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sessions/:code/report", use: report)
        group.get("sessions/:code/report/:file", use: csv)
    }

    /// The report (PodiumWire's `SessionReport`).
    typealias Report = SessionReport

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Report {
        try await build(context)
    }

    /// `attendance.csv`, `polls.csv`, `answers.csv`, `questions.csv` or `clips.csv`.
    @Sendable func csv(_ request: Request, context: AppRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let report = try await build(context)
        let iso = ISO8601DateFormatter()
        var rows: [[String]]
        switch file {
        case "attendance.csv":
            rows = [["time", "viewers"]] + report.attendance.map { [iso.string(from: $0.at), String($0.viewers)] }
        case "polls.csv":
            // Polls are named by their place in the session ("Poll 2"), as on every screen, never by id.
            rows = [["poll", "question", "kind", "choice", "correct", "count", "answered"]]
            for (number, poll) in zip(1..., report.polls) {
                if poll.kind == "open" {
                    rows.append([String(number), poll.question, poll.kind, "", "", "", String(poll.answered)])
                }
                for (index, choice) in poll.choices.enumerated() {
                    rows.append([
                        String(number), poll.question, poll.kind, choice, poll.correct.contains(index) ? "yes" : "no",
                        String(poll.counts[safe: index] ?? 0), String(poll.answered),
                    ])
                }
            }
        case "answers.csv":
            rows = [["poll", "question", "answer"]]
            for (number, poll) in zip(1..., report.polls) {
                for answer in poll.answers ?? [] { rows.append([String(number), poll.question, answer]) }
            }
        case "questions.csv":
            let room = report.kind == .room
            rows = [["asked_at", "page", "name", "question", "answered"] + (room ? ["presenter"] : [])]
            for question in report.questions {
                rows.append(
                    [
                        iso.string(from: question.askedAt), question.page.map(String.init) ?? "",
                        question.anonymous ? "Anonymous" : (question.name ?? ""), question.text, question.answered ? "yes" : "no",
                    ] + (room ? [report.presenterName(of: question)] : []))
            }
        case "clips.csv":
            rows = Self.clipRows(report.clips, iso: iso)
        default:
            throw APIError.notFound("report file")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(report.code)-\(file)\""
        let body = rows.map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(string: body)))
    }

    /// RFC 4180 quoting; a leading =, +, - or @ is prefixed with ' so spreadsheets do not run it.
    static func csvField(_ value: String) -> String {
        var value = value
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { ",\"\r\n".contains($0) }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func build(_ context: AppRequestContext) async throws -> Report {
        let user = try context.requireUser()
        guard let code = JoinCode.normalize(try context.parameters.require("code")),
            let session = try await hub.session(code: code)
        else { throw APIError.notFound("session") }
        // The record in memory is as loaded; the store knows whether the session has ended since.
        let record = try await store.session(id: session.record.id) ?? session.record
        guard try await SessionHosts(store: store).isHost(user, of: record) else { throw APIError.notFound("session") }
        // Viewers on other nodes answered and asked too: read the store's records, not only this node's.
        await session.reloadRecords()
        let views = await session.views
        let state = views.state
        let visits = try await notesStore.attendance(sessionId: record.id)
        let end = record.endedAt ?? now()
        var polls: [SessionReport.PollResult] = []
        for snapshot in state.snapshot.polls {
            let results = views.results(for: snapshot.poll.id, forHosts: true)
            polls.append(
                SessionReport.PollResult(
                    id: snapshot.poll.id, kind: snapshot.poll.kind.rawValue, question: snapshot.poll.question,
                    choices: snapshot.poll.choices, correct: snapshot.poll.correct, status: snapshot.status.rawValue,
                    counts: results.counts, answered: results.answered,
                    answers: snapshot.poll.kind == .open
                        ? state.polls.tallies[snapshot.poll.id]?.openAnswers.reversed().map(\.text) ?? [] : nil))
        }
        let attendance = Self.attendanceByMinute(visits, from: record.createdAt, to: end)
        var clips = try await ClipsShown(state.clips, store: videoStore).clips.map { ClipReport($0, until: now()) }
        if let captionStore {
            let languages = try await captionStore.captionLanguages(videoIds: clips.filter { $0.title != nil }.map(\.video))
            for index in clips.indices where clips[index].title != nil {
                clips[index].captions = languages[clips[index].video] ?? []
            }
        }
        return Report(
            code: record.code, kind: record.kind, title: session.info.title, startedAt: record.createdAt, endedAt: record.endedAt,
            uniqueViewers: Set(visits.map(\.viewerId)).count, peakViewers: attendance.map(\.viewers).max() ?? 0,
            attendance: attendance, polls: polls, questions: views.questionViews(), clips: clips,
            presenters: state.snapshot.room?.control.presenters ?? [])
    }

    /// How many distinct viewers were connected in each minute of the session.
    static func attendanceByMinute(
        _ visits: [(viewerId: String, joinedAt: Date, leftAt: Date?)], from start: Date, to end: Date
    ) -> [SessionReport.Attendance] {
        guard end > start else { return [] }
        let minutes = min(Int(end.timeIntervalSince(start) / 60) + 1, 24 * 60)
        return (0..<minutes).map { minute in
            let from = start.addingTimeInterval(Double(minute) * 60)
            let to = from.addingTimeInterval(60)
            let present = visits.filter { $0.joinedAt < to && ($0.leftAt ?? end) >= from }
            return SessionReport.Attendance(at: from, viewers: Set(present.map(\.viewerId)).count)
        }
    }
}

extension SessionReport: ResponseEncodable {
    /// Who had the stage when a question was asked: a presenter's name, or the moderator.
    func presenterName(of question: QuestionView) -> String {
        guard kind == .room else { return "" }
        guard let id = question.presenter else { return "Moderator" }
        return presenters.first { $0.id == id }?.name ?? "A presenter"
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
