import Foundation
import NIOCore
import PodiumCore
import Testing

@testable import PodiumServer

/// A welcome built from kept parts (``WelcomeFrames``) says what `Welcome` says, whichever
/// welcomes came before it.
@Suite("Welcome frames")
struct WelcomeFramesTests {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// The welcomes protocol.md shows: a viewer's, a presenter's, a room's.
    static func documentedWelcomes() throws -> [Welcome] {
        let examples = try ProtocolDocumentTests.examples().filter { $0.side == .server && $0.name.hasPrefix("welcome") }
        return try examples.map { try decoder.decode(Welcome.self, from: Data($0.text.utf8)) }
    }

    static func decoded(_ frame: ByteBuffer) throws -> Welcome {
        try decoder.decode(Welcome.self, from: Data(buffer: frame))
    }

    @Test func everyDocumentedWelcomeComesOutAsItWent() throws {
        let welcomes = try Self.documentedWelcomes()
        #expect(welcomes.count >= 3)
        for welcome in welcomes {
            var frames = WelcomeFrames()
            #expect(try Self.decoded(frames.frame(welcome, host: Self.host(welcome))) == welcome)
        }
    }

    /// Whether a documented welcome has the hosts' form of the snapshot: everyone's but a viewer's.
    static func host(_ welcome: Welcome) -> Bool { welcome.role != .viewer }

    /// One keeper for a whole series, as a session has: each welcome has the snapshot of its own
    /// `seq` and form and its own participant's fields, never the ones kept from the welcome
    /// before. (A live session's info never changes: each documented welcome gets a keeper.)
    @Test func aSeriesOfWelcomesNeverTakesAnotherOnesParts() throws {
        for base in try Self.documentedWelcomes() {
            var series: [(Welcome, host: Bool)] = []
            var welcome = base
            for step in 0..<3 {
                series.append((welcome, Self.host(welcome)))
                // Another participant at the same seq: their own fields, the same head.
                welcome.viewerId = welcome.viewerId.map { "\($0)_\(step)" }
                welcome.viewers += 1
                welcome.myAnswers = welcome.role == .viewer ? ["1": .choices([step])] : nil
                series.append((welcome, Self.host(welcome)))
                // The other form of the snapshot at the same seq (a presenter beside viewers).
                var other = welcome
                other.snapshot.page = welcome.snapshot.page + 100
                series.append((other, !Self.host(welcome)))
                series.append((welcome, Self.host(welcome)))
                // The next event: a new seq, a new snapshot.
                welcome.seq += 1
                welcome.snapshot.page += 1
            }
            var frames = WelcomeFrames()
            for (welcome, host) in series {
                #expect(try Self.decoded(frames.frame(welcome, host: host)) == welcome)
            }
        }
    }

    /// A member added to `Welcome` but not written by ``WelcomeFrames`` would never be sent; and
    /// the documented welcomes, between them, have every member, so the round trips above read
    /// each one back.
    @Test func everyMemberIsWrittenAndReadBack() throws {
        let welcomes = try Self.documentedWelcomes()
        let all = Set(Mirror(reflecting: try #require(welcomes.first)).children.compactMap(\.label))
        #expect(all == WelcomeFrames.members)
        var present: Set<String> = []
        for welcome in welcomes {
            for child in Mirror(reflecting: welcome).children {
                guard let label = child.label else { continue }
                let optional = Mirror(reflecting: child.value)
                if optional.displayStyle == .optional, optional.children.isEmpty { continue }
                present.insert(label)
            }
        }
        #expect(present == all)
    }

    /// Strings written by hand read back as they were, whatever they hold.
    @Test(arguments: ["", "Ada", "Zoë \"the\" <best>", "back\\slash/", "tab\tnew\nline\r", "\u{1}\u{1f}\u{7f}", "🎤 ünïcødé"])
    func handWrittenStringsReadBack(_ text: String) throws {
        var object = JSONObjectWriter(capacity: 16)
        object.string("text", text)
        object.int("n", -42)
        let written = [
            object.array("none", [Int]()), object.dictionary("nothing", [String: Int]()), object.array("some", [1, 2]),
        ]
        #expect(written == [true, true, true])
        struct Decoded: Decodable, Equatable {
            let text: String
            let n: Int
            let none: [Int]
            let nothing: [String: Int]
            let some: [Int]
        }
        let decoded = try JSONDecoder().decode(Decoded.self, from: Data(buffer: object.finished()))
        #expect(decoded == Decoded(text: text, n: -42, none: [], nothing: [:], some: [1, 2]))
    }

    @Test func thePresenceFrameIsAPresenceMessage() throws {
        let frame = LiveSession.presenceFrame(viewers: 1234)
        #expect(try JSONDecoder().decode(PresenceMessage.self, from: Data(buffer: frame)) == PresenceMessage(viewers: 1234))
        #expect(String(buffer: frame) == #"{"type":"presence","viewers":1234}"#)
    }
}
