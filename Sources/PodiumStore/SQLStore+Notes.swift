import Foundation
import PodiumCore
import SQLKit

extension SQLStore: NotesAndAttendanceStore {
    public func saveNote(sessionId: String, viewerId: String, page: Int, text: String, at date: Date) async throws {
        try await serial { db in
            if text.isEmpty {
                try await db.delete(from: "viewer_notes").where("session_id", .equal, sessionId)
                    .where("viewer_id", .equal, viewerId).where("page", .equal, page).run()
                return
            }
            try await db.raw(
                """
                INSERT INTO viewer_notes (session_id, viewer_id, page, text, updated_at)
                VALUES (\(bind: sessionId), \(bind: viewerId), \(bind: page), \(bind: text), \(bind: date))
                ON CONFLICT (session_id, viewer_id, page) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    public func notes(sessionId: String, viewerId: String) async throws -> [Int: String] {
        struct Row: Decodable {
            let page: Int
            let text: String
        }
        let rows = try await serial { db in
            try await db.select().columns("page", "text").from("viewer_notes").where("session_id", .equal, sessionId)
                .where("viewer_id", .equal, viewerId).all(decoding: Row.self, with: Self.decoding)
        }
        return Dictionary(rows.map { ($0.page, $0.text) }, uniquingKeysWith: { $1 })
    }

    public func visitStarted(id: String, sessionId: String, viewerId: String, saving viewer: ViewerEntry?, at date: Date)
        async throws -> ViewerEntry?
    {
        try await visits.write(
            VisitWrite(id: id, sessionId: sessionId, viewerId: viewerId, viewer: viewer, at: date),
            together: { try await self.writeVisits($0) }, alone: { try await self.writeVisit($0) })
    }

    /// One hello's write: its visit, and its viewer when they are new or renamed.
    struct VisitWrite: Sendable {
        let id: String
        let sessionId: String
        let viewerId: String
        let viewer: ViewerEntry?
        let at: Date
    }

    func writeVisit(_ visit: VisitWrite) async throws -> ViewerEntry? {
        guard let viewer = visit.viewer else {
            try await serial { db in try await Self.insertVisits([visit], on: db) }
            return nil
        }
        return try await retryingTakenNumbers {
            try await self.transaction { db in
                try await Self.insertVisits([visit], on: db)
                let stored = try await Self.upsertViewer(viewer, sessionId: visit.sessionId, at: visit.at, on: db)
                try await Self.logAudience(
                    [AudienceLogEntry(change: .viewer(stored))], sessionId: visit.sessionId, at: visit.at, on: db)
                return stored
            }
        }
    }

    /// Hellos that arrived together, in one transaction: their visits in one statement, then
    /// their viewers (see ``storeViewers(_:sessionId:at:on:)``). A failure fails them all:
    /// ``GroupCommit`` then writes each alone.
    func writeVisits(_ visits: [VisitWrite]) async throws -> [ViewerEntry?] {
        try await transaction { db in
            try await Self.insertVisits(visits, on: db)
            var stored: [ViewerEntry?] = Array(repeating: nil, count: visits.count)
            // Viewers by session (a group is of one session but for a server with several live).
            let sessions = Dictionary(grouping: visits.indices.filter { visits[$0].viewer != nil }) { visits[$0].sessionId }
            // In the order of their ids: each session's record log head is locked to the commit,
            // and two groups must not take two sessions' heads in opposite orders.
            for (sessionId, indices) in sessions.sorted(by: { $0.key < $1.key }) {
                let entries = try await Self.storeViewers(
                    indices.map { visits[$0].viewer! }, sessionId: sessionId, at: visits[indices[0]].at, on: db)
                for (index, entry) in zip(indices, entries) { stored[index] = entry }
                try await Self.logAudience(
                    entries.map { AudienceLogEntry(change: .viewer($0)) }, sessionId: sessionId, at: visits[indices[0]].at,
                    on: db)
            }
            return stored
        }
    }

    /// Several viewers of one session as ``upsertViewer(_:sessionId:at:on:)`` stores each, in
    /// two statements however many new ones there are (a read, an insert): SQLite parses every
    /// statement anew, and the upsert's parse was the largest part of a hello's write. Those the
    /// store already has go through the upsert one by one (their number kept, their name unless a
    /// new one is given); the new ones take the next numbers in their order, in one `INSERT`, so
    /// numbers stay without gaps. On SQLite the ids and the newcomers' rows go as ``JSONColumn``
    /// texts, so both statements' text, and SQLite's parse of it, is the same for any group.
    ///
    /// The statements of a join's write are SQL text, not sql-kit's builders: a builder's every
    /// table and column name is an `SQLIdentifier`, quoted through the standard library's generic
    /// `replacing(_:with:)` on Linux, about 9,500 instructions a name, 45,000 a join
    /// (`Benchmarks/fanout-instructions.sh`). The names here are plain, as in the other raw statements.
    static func storeViewers(_ viewers: [ViewerEntry], sessionId: String, at date: Date, on db: any SQLDatabase)
        async throws -> [ViewerEntry]
    {
        guard !viewers.isEmpty else { return [] }
        // Those already stored and the session's highest number, in one statement: a row for each
        // known viewer, and one without a viewer that carries the highest number.
        // The ids: one JSON text on SQLite (a statement of fixed text), a list of binds elsewhere.
        let idList: SQLQueryString
        if db.takesJSONColumns {
            var ids = JSONColumn()
            for viewer in viewers { ids.add(viewer.id) }
            idList = "SELECT value FROM json_each(\(bind: ids.json))"
        } else {
            // Made as existentials here: an array of `String` converted to them is cast element by element.
            idList = "\(binds: viewers.map { $0.id as any Encodable & Sendable })"
        }
        let rows = try await db.raw(
            """
            SELECT viewer_id, 0 AS highest FROM session_viewers
            WHERE session_id = \(bind: sessionId) AND viewer_id IN (\(idList))
            UNION ALL
            SELECT NULL, COALESCE(MAX(number), 0) FROM session_viewers WHERE session_id = \(bind: sessionId)
            """
        ).all()
        var knownIds: Set<String> = []
        var highest = 0
        for row in rows {
            if try row.decodeNil(column: "viewer_id") {
                highest = try row.decode(column: "highest", as: Int.self)
            } else {
                knownIds.insert(try row.decode(column: "viewer_id", as: String.self))
            }
        }
        // The new ones as numbered here, by id (each once, however many tabs it came with).
        var numbered: [String: ViewerEntry] = [:]
        if knownIds.count < viewers.count {
            var newcomers: [ViewerEntry] = []
            var next = highest
            var seen: Set<String> = knownIds
            for viewer in viewers where seen.insert(viewer.id).inserted {
                next += 1
                let newcomer = ViewerEntry(id: viewer.id, number: next, name: viewer.name)
                numbered[viewer.id] = newcomer
                newcomers.append(newcomer)
            }
            if db.takesJSONColumns {
                var (ids, numbers, names) = (JSONColumn(), JSONColumn(), JSONColumn())
                for newcomer in newcomers {
                    ids.add(newcomer.id)
                    numbers.add(newcomer.number)
                    names.add(newcomer.name)
                }
                try await db.raw(
                    """
                    INSERT INTO session_viewers (session_id, viewer_id, number, name, first_seen)
                    SELECT \(bind: sessionId), value, \(bind: numbers.json) ->> key, \(bind: names.json) ->> key, \(bind: date)
                    FROM json_each(\(bind: ids.json))
                    """
                ).run()
            } else {
                let values = newcomers.map { SQLBind.group([sessionId, $0.id, $0.number, $0.name, date]) }
                try await db.raw(
                    "INSERT INTO session_viewers (session_id, viewer_id, number, name, first_seen) VALUES \(SQLList(values))"
                ).run()
            }
        }
        var stored: [ViewerEntry] = []
        stored.reserveCapacity(viewers.count)
        for viewer in viewers {
            if let newcomer = numbered[viewer.id] {
                stored.append(newcomer)
                // The same viewer twice in one group (two tabs): the second is stored as known.
                numbered[viewer.id] = nil
            } else {
                stored.append(try await upsertViewer(viewer, sessionId: sessionId, at: date, on: db))
            }
        }
        return stored
    }

    /// The visits' rows, in one statement (SQL text: see ``storeViewers(_:sessionId:at:on:)``;
    /// on SQLite each column as one ``JSONColumn`` text, so the statement's text is the same for any group).
    private static func insertVisits(_ visits: [VisitWrite], on db: any SQLDatabase) async throws {
        guard db.takesJSONColumns else {
            let values = visits.map { SQLBind.group([$0.id, $0.sessionId, $0.viewerId, $0.at]) }
            try await db.raw("INSERT INTO attendance (id, session_id, viewer_id, joined_at) VALUES \(SQLList(values))").run()
            return
        }
        var (ids, sessionIds, viewerIds, dates) = (JSONColumn(), JSONColumn(), JSONColumn(), JSONColumn())
        for visit in visits {
            ids.add(visit.id)
            sessionIds.add(visit.sessionId)
            viewerIds.add(visit.viewerId)
            try dates.add(visit.at)
        }
        try await db.raw(
            """
            INSERT INTO attendance (id, session_id, viewer_id, joined_at)
            SELECT value, \(bind: sessionIds.json) ->> key, \(bind: viewerIds.json) ->> key, \(bind: dates.json) ->> key
            FROM json_each(\(bind: ids.json))
            """
        ).run()
    }

    public func attendanceEnded(id: String, at date: Date) async throws {
        try await serial { db in
            try await db.update("attendance").set("left_at", to: date).where("id", .equal, id).run()
        }
    }

    public func attendance(sessionId: String) async throws -> [(viewerId: String, joinedAt: Date, leftAt: Date?)] {
        struct Row: Decodable {
            let viewerId: String
            let joinedAt: Date
            let leftAt: Date?
        }
        return try await serial { db in
            try await db.select().columns("viewer_id", "joined_at", "left_at").from("attendance")
                .where("session_id", .equal, sessionId).orderBy("joined_at").all(decoding: Row.self, with: Self.decoding)
        }.map { ($0.viewerId, $0.joinedAt, $0.leftAt) }
    }
}
