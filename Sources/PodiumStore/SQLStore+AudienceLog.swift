import Foundation
import PodiumCore
import SQLKit

/// The audience's records as a sequence of their own (migration 24): each change stored also goes
/// into `audience_log` with the session's next record seq, in the same transaction.
extension SQLStore {
    /// One change to log, with the command it completes (records without an event).
    struct AudienceLogEntry: Sendable {
        var change: AudienceChange
        var commandID: String? = nil
        var commandSeq: Int? = nil
    }

    /// Numbers `entries` with the session's next record seqs and stores them. Runs inside the
    /// transaction that stores the changes themselves, after them: the head row is the last lock
    /// the transaction takes (PostgreSQL holds it to commit, so writers of one session commit in
    /// the order of their numbers, and no reader ever sees a later number before an earlier one).
    static func logAudience(_ entries: [AudienceLogEntry], sessionId: String, at date: Date, on db: any SQLDatabase)
        async throws
    {
        guard !entries.isEmpty else { return }
        let head = try await db.raw(
            """
            INSERT INTO audience_log_heads (session_id, rseq) VALUES (\(bind: sessionId), \(bind: entries.count))
            ON CONFLICT (session_id) DO UPDATE SET rseq = audience_log_heads.rseq + excluded.rseq
            RETURNING rseq
            """
        ).first(decodingColumn: "rseq", as: Int.self)
        guard let last = head else { throw NothingReturned() }
        // SQL text, not sql-kit's insert builder: see ``storeViewers(_:sessionId:at:on:)``.
        let first = last - entries.count + 1
        guard db.takesJSONColumns else {
            var values: [any SQLExpression] = []
            values.reserveCapacity(entries.count)
            for (offset, entry) in entries.enumerated() {
                let body = try LoggedChange.body(of: entry.change)
                values.append(
                    SQLBind.group([sessionId, first + offset, body, entry.commandID, entry.commandSeq, date]))
            }
            try await db.raw(
                """
                INSERT INTO audience_log (session_id, rseq, body, command_id, command_seq, created_at) \
                VALUES \(SQLList(values))
                """
            ).run()
            return
        }
        // On SQLite each column as one JSON text (see ``JSONColumn``), numbered by the row's place.
        var (bodies, commandIDs, commandSeqs) = (JSONColumn(), JSONColumn(), JSONColumn())
        for entry in entries {
            // A body is a JSON object: in the column as itself, read back as its JSON text.
            bodies.add(json: try LoggedChange.body(of: entry.change))
            commandIDs.add(entry.commandID)
            commandSeqs.add(entry.commandSeq)
        }
        try await db.raw(
            """
            INSERT INTO audience_log (session_id, rseq, body, command_id, command_seq, created_at)
            SELECT \(bind: sessionId), \(bind: first) + key, value, \(bind: commandIDs.json) ->> key,
              \(bind: commandSeqs.json) ->> key, \(bind: date)
            FROM json_each(\(bind: bodies.json))
            """
        ).run()
    }

    public func audienceRecordSeq(sessionId: String) async throws -> Int {
        struct Head: Decodable { let rseq: Int }
        return try await serial { db in
            try await db.select().column("rseq").from("audience_log_heads").where("session_id", .equal, sessionId)
                .first(decoding: Head.self)?.rseq ?? 0
        }
    }

    public func audienceRecords(sessionId: String, afterRecordSeq: Int, limit: Int) async throws -> [StoredAudienceRecord] {
        struct Row: Decodable {
            let rseq: Int
            let body: String
            let commandId: String?
            let commandSeq: Int?
            let createdAt: Date
        }
        let rows = try await serial { db in
            try await db.select().columns("rseq", "body", "command_id", "command_seq", "created_at").from("audience_log")
                .where("session_id", .equal, sessionId).where("rseq", .greaterThan, afterRecordSeq).orderBy("rseq")
                .limit(limit).all(decoding: Row.self, with: Self.decoding)
        }
        let decoder = JSONDecoder()
        return try rows.map { row in
            StoredAudienceRecord(
                rseq: row.rseq, change: try decoder.decode(LoggedChange.self, from: Data(row.body.utf8)).change,
                at: row.createdAt, commandID: row.commandId, commandSeq: row.commandSeq)
        }
    }
}

/// An ``AudienceChange`` as `audience_log.body` keeps it: JSON with a `kind`.
struct LoggedChange: Codable {
    var kind: String
    var pollId: Int?
    var viewerId: String?
    var answer: PollAnswer?
    var question: AudienceQuestion?
    var questionId: String?
    var on: Bool?
    var viewer: ViewerEntry?

    init(kind: String) { self.kind = kind }

    /// `audience_log.body` for a change: JSON with sorted keys. A viewer's arrival, one per
    /// newcomer's hello, is written by hand (`JSONEncoder` cost about 60,000 instructions a
    /// call, `Benchmarks/fanout-instructions.sh`); it reads back as the encoder's form does.
    static func body(of change: AudienceChange) throws -> String {
        if case .viewer(let entry) = change { return viewerBody(entry) }
        return String(decoding: try sortedEncoder.encode(LoggedChange(change)), as: UTF8.self)
    }

    /// `{"kind":"viewer","viewer":{"id":…,"name":…,"number":…}}`, `name` left out when nil.
    static func viewerBody(_ entry: ViewerEntry) -> String {
        var json = #"{"kind":"viewer","viewer":{"id":"#
        appendJSONString(entry.id, to: &json)
        if let name = entry.name {
            json += #","name":"#
            appendJSONString(name, to: &json)
        }
        json += #","number":"#
        json += String(entry.number)
        json += "}}"
        return json
    }

    /// A JSON string as `JSONEncoder` writes it: the quotation mark, the reverse solidus, the
    /// solidus and control characters escaped, everything else as it is. Read as bytes: a logged
    /// body, escaped again as a bound JSON column, has a dozen quotation marks, and appended
    /// scalar by scalar (or run by run through the string's indices) it cost 30,000–48,000
    /// instructions a join.
    static func appendJSONString(_ string: String, to json: inout String) {
        var string = string
        let escaped: [UInt8]? = string.withUTF8 { bytes in
            guard !bytes.allSatisfy({ !needsEscape($0) }) else { return nil }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 16)
            for byte in bytes {
                guard needsEscape(byte) else {
                    escaped.append(byte)
                    continue
                }
                escaped.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped.append(byte)
                case UInt8(ascii: "\n"): escaped.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): escaped.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): escaped.append(UInt8(ascii: "t"))
                case 0x08: escaped.append(UInt8(ascii: "b"))
                case 0x0C: escaped.append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    escaped += [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                    ]
                }
            }
            return escaped
        }
        json += "\""
        if let escaped { json += String(decoding: escaped, as: UTF8.self) } else { json += string }
        json += "\""
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    /// One encoder for every other change: making one per call cost as much as the encoding.
    private static let sortedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    init(_ change: AudienceChange) {
        switch change {
        case .viewer(let entry):
            self.init(kind: "viewer")
            viewer = entry
        case .record(.answer(let pollId, let viewerId, let answer)):
            self.init(kind: "answer")
            (self.pollId, self.viewerId, self.answer) = (pollId, viewerId, answer)
        case .record(.question(let question)):
            self.init(kind: "question")
            self.question = question
        case .record(.questionAnswered(let questionId, let answered)):
            self.init(kind: "questionAnswered")
            (self.questionId, on) = (questionId, answered)
        case .record(.questionApproved(let questionId, let approved)):
            self.init(kind: "questionApproved")
            (self.questionId, on) = (questionId, approved)
        case .record(.vote(let questionId, let viewerId, let up)):
            self.init(kind: "vote")
            (self.questionId, self.viewerId, on) = (questionId, viewerId, up)
        }
    }

    struct Unknown: Error, CustomStringConvertible {
        let kind: String
        var description: String { "an audience log entry of unknown kind \(kind)" }
    }

    var change: AudienceChange {
        get throws {
            switch kind {
            case "viewer":
                if let viewer { return .viewer(viewer) }
            case "answer":
                if let pollId, let viewerId, let answer { return .record(.answer(pollId: pollId, viewerId: viewerId, answer)) }
            case "question":
                if let question { return .record(.question(question)) }
            case "questionAnswered":
                if let questionId, let on { return .record(.questionAnswered(questionId: questionId, on)) }
            case "questionApproved":
                if let questionId, let on { return .record(.questionApproved(questionId: questionId, on)) }
            case "vote":
                if let questionId, let viewerId, let on {
                    return .record(.vote(questionId: questionId, viewerId: viewerId, up: on))
                }
            default:
                break
            }
            throw Unknown(kind: kind)
        }
    }
}
