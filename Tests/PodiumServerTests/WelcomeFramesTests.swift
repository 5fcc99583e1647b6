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
            #expect(try Self.decoded(frames.frame(welcome)) == welcome)
        }
    }

    /// One keeper for a whole series, as a session has: each welcome has its own session,
    /// snapshot and participant's fields, never the ones kept from the welcome before.
    @Test func aSeriesOfWelcomesNeverTakesAnotherOnesParts() throws {
        let documented = try Self.documentedWelcomes()
        var series: [Welcome] = []
        for base in documented {
            var welcome = base
            series.append(welcome)
            welcome.snapshot.page += 1
            series.append(welcome)
            welcome.viewerId = "v_other"
            welcome.viewers += 1
            series.append(welcome)
            welcome.session.title += " (renamed)"
            series.append(welcome)
            series.append(base)
        }
        var frames = WelcomeFrames()
        for welcome in series + series.reversed() {
            #expect(try Self.decoded(frames.frame(welcome)) == welcome)
        }
    }

    /// A member added to `Welcome` but not to ``WelcomeRest`` would never be sent.
    @Test func theRestHasEveryMemberButTheKeptOnes() throws {
        let welcome = try #require(try Self.documentedWelcomes().first)
        let all = Set(Mirror(reflecting: welcome).children.compactMap(\.label))
        let rest = Set(Mirror(reflecting: WelcomeRest(welcome)).children.compactMap(\.label))
        #expect(rest == all.subtracting(["session", "snapshot"]))
    }
}
