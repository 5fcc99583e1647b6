import Foundation
import Testing

@testable import PodiumCore

@Suite("Wire format")
struct WireFormatTests {
    func decode(_ json: String) throws -> ClientMessage {
        try JSONDecoder().decode(ClientMessage.self, from: Data(json.utf8))
    }

    func object(_ value: some Encodable) throws -> NSDictionary {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test func decodesEveryClientMessage() throws {
        #expect(
            try decode(#"{"type":"hello","role":"viewer","name":"Ada","passcode":"1234","lastSeq":3}"#)
                == .hello(.init(role: .viewer, name: "Ada", passcode: "1234", lastSeq: 3)))
        #expect(try decode(#"{"type":"goto","id":"a","page":2}"#) == .command(id: "a", .goto(page: 2)))
        #expect(
            try decode(#"{"type":"zoom","id":"b","viewport":{"x":0.1,"y":0.2,"w":0.5,"h":0.4}}"#)
                == .command(id: "b", .zoom(Viewport(x: 0.1, y: 0.2, w: 0.5, h: 0.4))))
        #expect(try decode(#"{"type":"blank","id":"c","mode":"black"}"#) == .command(id: "c", .blank(.black)))
        #expect(try decode(#"{"type":"lock","id":"d","locked":false}"#) == .command(id: "d", .lock(false)))
        #expect(try decode(#"{"type":"end","id":"e"}"#) == .command(id: "e", .end))
        #expect(try decode(#"{"type":"pointer","x":0.5,"y":0.5}"#) == .pointer(PagePoint(x: 0.5, y: 0.5)))
        #expect(try decode(#"{"type":"pointer","visible":false}"#) == .pointer(nil))
        #expect(try decode(#"{"type":"resync","afterSeq":7}"#) == .resync(afterSeq: 7))
        #expect(try decode(#"{"type":"ping"}"#) == .ping(t: nil))
        #expect(try decode(#"{"type":"ping","t":1234.5}"#) == .ping(t: 1234.5))
        #expect(
            try decode(#"{"type":"showVideo","id":"v","videoId":"vid1"}"#)
                == .command(id: "v", .showVideo(VideoOnStage(id: "vid1", duration: nil))))
        #expect(try decode(#"{"type":"hideVideo","id":"h"}"#) == .command(id: "h", .hideVideo))
        #expect(
            try decode(#"{"type":"playback","id":"p","action":"seek","position":12.5}"#)
                == .command(id: "p", .playback(.seek(12.5))))
        #expect(
            try decode(#"{"type":"playback","id":"r","action":"rate","rate":1.5}"#) == .command(id: "r", .playback(.rate(1.5))))
    }

    @Test(arguments: [
        #"{"type":"goto","page":2}"#,  // no id
        #"{"type":"playback","id":"p","action":"rewind"}"#,  // no such action
        #"{"type":"playback","id":"p","action":"seek"}"#,  // no position
        #"{"type":"showVideo","id":"s","videoId":""}"#,  // no video
        #"{"type":"goto","id":"","page":2}"#,
        #"{"type":"goto","id":"a","page":"2"}"#,
        #"{"type":"hello","role":"janitor"}"#,
        #"{"type":"hello","role":"viewer","lastSeq":-1}"#,
        #"{"type":"blank","id":"a","mode":"grey"}"#,
        #"{"type":"launch","id":"a"}"#,
        #"{"page":2}"#,
        #"[1,2]"#,
        #"not json"#,
    ])
    func refusesMalformedMessages(json: String) {
        #expect(throws: (any Error).self) { try decode(json) }
    }

    @Test func rejectsOverlongCommandIDs() {
        let id = String(repeating: "x", count: 65)
        #expect(throws: (any Error).self) { try decode(#"{"type":"end","id":"\#(id)"}"#) }
    }

    @Test func clientMessagesRoundTrip() throws {
        let messages: [ClientMessage] = [
            .hello(.init(role: .presenter, token: "t")), .command(id: "1", .goto(page: 3)),
            .command(id: "2", .zoom(Viewport(x: 0, y: 0, w: 0.5, h: 0.5))), .command(id: "3", .blank(.white)),
            .command(id: "4", .lock(true)), .command(id: "5", .end), .pointer(PagePoint(x: 0.1, y: 0.9)), .pointer(nil),
            .resync(afterSeq: 2), .ping(t: nil), .ping(t: 99),
            .command(id: "6", .showVideo(VideoOnStage(id: "vid", duration: nil))), .command(id: "7", .hideVideo),
            .command(id: "8", .playback(.play)), .command(id: "9", .playback(.pause)), .command(id: "10", .playback(.stop)),
            .command(id: "11", .playback(.seek(3.25))), .command(id: "12", .playback(.rate(0.5))),
        ]
        for message in messages {
            let data = try JSONEncoder().encode(message)
            #expect(try JSONDecoder().decode(ClientMessage.self, from: data) == message)
        }
    }

    @Test func eventsAreFlatObjectsWithTypeAndSeq() throws {
        let page = try object(SessionEvent(seq: 4, change: .page(2)))
        #expect(page == ["type": "page", "seq": 4, "page": 2])
        let ended = try object(SessionEvent(seq: 5, change: .ended))
        #expect(ended == ["type": "ended", "seq": 5])
        let zoom = try object(SessionEvent(seq: 6, change: .zoom(Viewport(x: 0.5, y: 0, w: 0.5, h: 0.5))))
        #expect(zoom["viewport"] as? NSDictionary == ["x": 0.5, "y": 0, "w": 0.5, "h": 0.5])
        for event in [SessionEvent(seq: 1, change: .blank(.black)), SessionEvent(seq: 2, change: .lock(false))] {
            let data = try JSONEncoder().encode(event)
            #expect(try JSONDecoder().decode(SessionEvent.self, from: data) == event)
        }
    }

    @Test func pointerMessagesSayWhetherThePointerIsVisible() throws {
        #expect(
            try object(PointerMessage(PointerUpdate(content: .deckPage(deck: nil, page: 2), point: PagePoint(x: 0.5, y: 0.25))))
                == ["type": "pointer", "page": 2, "x": 0.5, "y": 0.25, "visible": true])
        #expect(
            try object(PointerMessage(PointerUpdate(content: .deckPage(deck: nil, page: 2), point: nil))) == [
                "type": "pointer", "page": 2, "visible": false,
            ])
    }

    @Test func errorsCarryTheirStableCode() throws {
        #expect(try object(ErrorMessage(id: "a", .forbidden))["code"] as? String == "forbidden")
        #expect(
            try object(ErrorMessage(.passcodeWrong)) == [
                "type": "error", "code": "passcode_wrong", "message": SessionError.passcodeWrong.message,
            ])
    }
}
