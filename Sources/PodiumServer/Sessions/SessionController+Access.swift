import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// Who may find and join a session (its passcode, whether "Live now" lists it), changed by its
/// host at any time; and the host's history of past sessions and rooms.
extension SessionController {
    func addAccessRoutes(to group: RouterGroup<AppRequestContext>) {
        group.patch("sessions/:code", use: updateAccess)
        group.get("history", use: history)
    }

    /// Its presenter or an admin: the part of ``SessionHosts/isHost(_:of:)`` that needs no store
    /// (co-hosts are the store's).
    static func isHost(_ user: UserRecord?, of record: SessionRecord) -> Bool {
        user.map { $0.id == record.presenterId || $0.role == .admin } ?? false
    }

    /// `{"passcode": "…"}` sets it, `""` or `null` removes it, absent leaves it; `unlisted` likewise.
    struct AccessRequest: Decodable {
        /// nil: unchanged; .some(nil): remove the passcode.
        let passcode: String??
        let unlisted: Bool?
        /// Who may watch the replay: `host` or `link`.
        let replay: ReplayAccess?

        enum CodingKeys: String, CodingKey { case passcode, unlisted, replay }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if !container.contains(.passcode) {
                passcode = nil
            } else if try container.decodeNil(forKey: .passcode) {
                passcode = .some(nil)
            } else {
                passcode = .some(try container.decode(String.self, forKey: .passcode))
            }
            unlisted = try container.decodeIfPresent(Bool.self, forKey: .unlisted)
            replay = try container.decodeIfPresent(ReplayAccess.self, forKey: .replay)
        }
    }

    /// `PATCH /api/v1/sessions/{code}`: the host changes the passcode or the listing. Viewers
    /// already in stay in; the next hello needs the new passcode. Who may watch the replay
    /// (`replay`) may change after the end too.
    @Sendable func updateAccess(_ request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let user = try context.requireUser()
        let body = try await request.decode(as: AccessRequest.self, context: context)
        var record = try await record(context)
        guard try await hosts.isHost(user, of: record) else { throw APIError.forbidden }
        // Who may watch the replay may change once the session is over; nothing else may.
        let replayOnly = body.passcode == nil && body.unlisted == nil && body.replay != nil
        guard record.isLive || replayOnly else {
            throw APIError(.conflict, code: "ended", message: "This session has ended.")
        }
        if let replay = body.replay, replay != record.replay {
            try await store.updateSessionReplay(id: record.id, replay: replay)
            record.replay = replay
        }
        if replayOnly { return try await response(record, request: request, for: user) }
        if let change = body.passcode {
            let passcode = change?.trimmingCharacters(in: .whitespaces) ?? ""
            guard passcode.count <= 64 else { throw APIError.badRequest("A passcode has at most 64 characters.") }
            if passcode.isEmpty {
                record.passcode = nil
                record.passcodeHash = nil
            } else if passcode != record.passcode || record.passcodeHash == nil {
                record.passcode = passcode
                record.passcodeHash = try await accounts.hash(passcode)
            }
        }
        if let unlisted = body.unlisted { record.unlisted = unlisted }
        try await store.updateSessionAccess(
            id: record.id, passcode: record.passcode, passcodeHash: record.passcodeHash, unlisted: record.unlisted)
        await hub.accessChanged(record)
        return try await response(record, request: request, for: user)
    }

    /// One past (or live) session or room in the library's history (PodiumWire's, which the SDK decodes).
    typealias HistoryEntry = PodiumWire.HistoryEntry
    typealias HistoryPage = PodiumWire.HistoryPage

    static let historyPageSize = 20
    static let historyMaxPageSize = 100

    /// `GET /api/v1/history?limit=&before=`: the signed-in user's sessions and rooms, newest
    /// first, a page at a time.
    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> HistoryPage {
        let user = try context.requireUser()
        let query = request.uri.queryParameters
        var limit = Self.historyPageSize
        if let text = query.get("limit") {
            guard let value = Int(text), (1...Self.historyMaxPageSize).contains(value) else {
                throw APIError.badRequest("limit is a number from 1 to \(Self.historyMaxPageSize).")
            }
            limit = value
        }
        var before: Date?
        if let text = query.get("before") {
            guard let seconds = Double(text), seconds.isFinite else {
                throw APIError.badRequest("before is the `next` value of the previous page.")
            }
            // A microsecond earlier than the cursor: a date's seconds since 1970 can come back one
            // unit in the last place off after a trip through `Date` (it counts from 2001), and the
            // last entry of the previous page must not be shown again.
            before = Date(timeIntervalSince1970: seconds - 0.000_001)
        }
        // One more than asked tells whether another page follows.
        let records = try await store.sessions(presenterId: user.id, before: before, limit: limit + 1)
        var entries: [HistoryEntry] = []
        for record in records.prefix(limit) {
            entries.append(try await historyEntry(record))
        }
        let next = records.count > limit ? records[limit - 1].createdAt.timeIntervalSince1970 : nil
        return HistoryPage(sessions: entries, next: next.map { String($0) })
    }

    private func historyEntry(_ record: SessionRecord) async throws -> HistoryEntry {
        let code = record.code
        let api = "/api/v1/sessions/\(code)"
        // Most sessions show no clip: their clips are listed only when there are some.
        let showedClips = try await store.hasEvent(sessionId: record.id, ofTypes: ["playback"])
        var files = [
            ("attendance.csv", "Attendance"), ("polls.csv", "Polls"), ("answers.csv", "Answers"), ("questions.csv", "Questions"),
        ]
        if showedClips { files.append(("clips.csv", "Clips shown")) }
        var exports = files.map { HistoryEntry.Export(format: "csv", label: $0.1, url: "\(api)/report/\($0.0)") }
        let pdf = HistoryEntry.Export(
            format: "pdf", label: showedClips ? "Slides with ink and clips (PDF)" : "Slides with ink (PDF)",
            url: "\(api)/export.pdf")
        var title = record.title
        if record.isRoom {
            // A room's export holds the pages and clips it showed: none shown, no export.
            let showedPages = showedClips ? true : try await store.hasEvent(sessionId: record.id, ofTypes: ["deckShown"])
            if showedPages { exports.append(pdf) }
        } else if let deckId = record.deckId, let deck = try await deckStore.deck(id: deckId) {
            title = title ?? deck.title
            exports.append(pdf)
        }
        return HistoryEntry(
            id: record.id, code: code, kind: record.kind, title: title ?? (record.isRoom ? "Room" : "Session"),
            live: record.isLive, hasPasscode: record.passcodeHash != nil, unlisted: record.unlisted,
            createdAt: record.createdAt, endedAt: record.endedAt,
            consoleUrl: record.isLive ? (record.isRoom ? "/r/\(code)/moderate" : "/present/\(code)") : nil,
            reportUrl: "/report.html?code=\(code)", exports: exports)
    }
}

extension HistoryPage: ResponseEncodable {}
