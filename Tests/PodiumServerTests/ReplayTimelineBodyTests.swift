import Foundation
import PodiumCore
import PodiumWire
import Testing

@testable import PodiumServer

/// The timeline as sent (``ReplayTimelineBody``): the events that went out unchanged are the
/// event log's stored JSON, written in place, the others encoded; the whole is the same JSON as
/// the timeline encoded whole, and decodes to the same timeline (a title holding `"events":[]`
/// included).
@Suite("Replay timeline body")
struct ReplayTimelineBodyTests {
    static let created = Date(timeIntervalSince1970: 1_764_080_000)

    static func timeline() -> ReplayTimelineResponse {
        let session = LiveSessionInfo(
            id: "s_2", code: "ABCDEF", kind: .session, joinUrl: "http://podium.local/s/ABCDEF", presenterUrl: nil,
            moderatorUrl: nil, projectorUrl: nil, screenUrl: "http://podium.local/s/ABCDEF/screen", deckId: "d_2",
            title: "Talk \"events\":[] / 2", presenter: "Ada", hasPasscode: false, allowDownload: true, live: false,
            pageCount: 1, createdAt: created, startedAt: created, endedAt: created.addingTimeInterval(60), viewers: nil,
            replay: .link, replayUrl: "http://podium.local/s/ABCDEF/replay")
        let poll = Poll(id: 2, kind: .choice, question: "Which/why?", choices: ["A", "B"], correct: [1])
        return ReplayTimelineResponse(
            session: session, startedAt: created, duration: 60_000, live: false,
            events: [
                ReplayEvent(at: 1200, event: SessionEvent(seq: 1, change: .page(2))),
                ReplayEvent(at: 1500, event: SessionEvent(seq: 2, change: .pollOpened(poll))),
                ReplayEvent(at: 2000, event: SessionEvent(seq: 3, change: .background("#0a0b0c"))),
            ],
            views: [
                ReplayView(
                    at: 5100,
                    message: .results(ResultsMessage(pollId: 7, counts: [3, 1], answered: 4, connected: 4, answers: nil)))
            ],
            pointer: [ReplayPointer(at: 1500, page: 2, deck: nil, x: 0.41, y: 0.22), ReplayPointer(hiddenAt: 2100)],
            drawn: ["c-41": 3100], recordings: [])
    }

    static func decode(_ data: Data) throws -> ReplayTimelineResponse {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ReplayTimelineResponse.self, from: data)
    }

    /// As the event log stores an event (SQLStore's encoder: keys sorted, slashes escaped).
    static func stored(_ event: SessionEvent) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(event), as: UTF8.self)
    }

    static func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test func storedEventsAreWrittenAsTheyAreAndTheWholeIsTheSameJSON() throws {
        let timeline = Self.timeline()
        // The poll went out changed (say, without its answer): encoded; the others as stored.
        let storedJSON = try [Self.stored(timeline.events[0].event), nil, Self.stored(timeline.events[2].event)]
        let body = ReplayTimelineBody(timeline: timeline, storedJSON: storedJSON)
        let data = try body.encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"{"at":1200,"event":"# + storedJSON[0]! + "}"), "\(text)")
        #expect(text.contains(#"{"at":2000,"event":"# + storedJSON[2]! + "}"), "\(text)")
        #expect(try Self.object(data) == Self.object(try Frames.encoder.encode(timeline)))
        #expect(try Self.decode(data) == timeline)
        // No event stored as it is, and none at all: the same JSON too.
        let encodedAll = ReplayTimelineBody(timeline: timeline, storedJSON: [nil, nil, nil])
        #expect(try Self.object(try encodedAll.encoded()) == Self.object(try Frames.encoder.encode(timeline)))
        var empty = timeline
        empty.events = []
        #expect(
            try Self.object(try ReplayTimelineBody(timeline: empty, storedJSON: []).encoded())
                == Self.object(try Frames.encoder.encode(empty)))
    }
}
