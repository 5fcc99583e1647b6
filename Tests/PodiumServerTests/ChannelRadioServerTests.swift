import Foundation
import HTTPTypes
import NIOCore
import PodiumMedia
import PodiumServer
import PodiumStore
import Synchronization
import Testing

/// The radio over HTTP with real ffmpeg and a test clock: stations and tracks, the live playlist
/// continuing across a track change, a restart and an admin's reorder, the non-member's daily
/// allowance, signed segment URLs, and refused uploads.
@Suite("Channel radio server", .timeLimit(.minutes(2)))
struct ChannelRadioServerTests {
    /// The clock the server reads, moved by the test.
    final class TestClock: Sendable {
        let date: Mutex<Date>
        init(_ date: Date) { self.date = Mutex(date) }
        var now: @Sendable () -> Date { { self.date.withLock { $0 } } }
        func advance(_ seconds: Double) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static let listener: HTTPFields = [.cookie: "podium_viewer=v_aaaaaaaaaaaaaaaaaaaaaaaa"]
    static let other: HTTPFields = [.cookie: "podium_viewer=v_bbbbbbbbbbbbbbbbbbbbbbbb"]

    static func server(
        _ kind: StoreKind = .sqlite, directory: URL? = nil, allowance: TimeInterval = 900, listenersPerAddress: Int = 40
    ) -> TestServer {
        TestServer(dataDirectory: directory, store: kind) {
            $0.channel.radioDailyAllowance = allowance
            $0.channel.radioListenersPerAddress = listenersPerAddress
            $0.channel.timeZone = TimeZone(identifier: "Europe/Prague")!
        }
    }

    static func tone(_ seconds: Int, frequency: Int, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("tone-\(frequency).mp3")
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "sine=frequency=\(frequency):sample_rate=44100:duration=\(seconds)", "-c:a", "libmp3lame", output.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        #expect(result.succeeded, "\(result.stderr)")
        return output
    }

    /// A published station with two ready tracks (13 s and 7 s: segments 6+6+1 and 6+1).
    static func station(_ client: Client, token: String, work: URL) async throws -> (id: String, tracks: [String]) {
        let created = try await client.request(
            .post, "/api/v1/channel/radios", token: token, json: #"{"name":"Folk","description":"Songs","published":true}"#)
        #expect(created.status == .created)
        let id = try #require(try created.object()["id"] as? String)
        var tracks: [String] = []
        for (seconds, frequency, title) in [(13, 440, "First"), (7, 660, "Second")] {
            let file = try await tone(seconds, frequency: frequency, in: work)
            let uploaded = try await client.request(
                .post, "/api/v1/channel/radios/\(id)/tracks?title=\(title)&artist=Band", token: token,
                headers: [.contentType: "audio/mpeg"], body: ByteBuffer(bytes: try Data(contentsOf: file)))
            #expect(uploaded.status == .created, "\(String(buffer: uploaded.body))")
            #expect(try uploaded.object()["jobId"] as? String != nil)
            tracks.append(try #require(try uploaded.object()["id"] as? String))
        }
        try await waitUntil("tracks packaged", seconds: 60) {
            let list = try await client.request(.get, "/api/v1/channel/radios/\(id)/tracks", token: token).array()
            return list.allSatisfy { $0["status"] as? String == "ready" }
        }
        // A track is saved ready a moment before the station's schedule is reloaded with it (the
        // worker's `tracksChanged`): wait for the station to play both too. Without this wait the
        // test once read a station of one track on a loaded machine.
        try await waitUntil("the station's schedule with both tracks", seconds: 60) {
            let station = try await client.request(.get, "/api/v1/channel/radios/\(id)", token: token).object()
            return station["trackCount"] as? Int == 2
        }
        return (id, tracks)
    }

    static func streamURL(_ client: Client, _ id: String, headers: HTTPFields = listener) async throws -> TestResponse {
        try await client.request(.get, "/api/v1/channel/radios/\(id)/stream", headers: headers)
    }

    /// Sequence numbers and the text of a playlist.
    static func playlist(_ client: Client, _ url: String, headers: HTTPFields = listener) async throws -> (
        status: HTTPResponse.Status, sequences: [Int], text: String
    ) {
        let answer = try await client.request(.get, url, headers: headers)
        let text = String(buffer: answer.body)
        let sequences = text.split(separator: "\n").filter { $0.hasSuffix(".ts") }.compactMap { Int($0.dropLast(3)) }
        return (answer.status, sequences, text)
    }

    /// Each segment's `#EXTINF` length.
    static func durations(_ text: String) -> [Int: Double] {
        var result: [Int: Double] = [:]
        var pending: Double?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst(8).split(separator: ",").first ?? "")
            } else if line.hasSuffix(".ts"), let sequence = Int(line.dropLast(3)) {
                result[sequence] = pending
            }
        }
        return result
    }

    static func base(_ url: String) -> String { String(url.dropLast("live.m3u8".count)) }

    @Test(arguments: TestStores.kinds) func aStationPlaysLiveAndContinuesAcrossChangesAndARestart(_ kind: StoreKind)
        async throws
    {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-radio-\(UUID().uuidString)")
        let server = Self.server(kind, directory: directory)
        defer { server.removeData() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let last = Mutex<(sequences: [Int], text: String, id: String, url: String)?>(nil)
        try await server.run(now: clock.now) { client in
            let token = try await client.login()
            let (id, tracks) = try await Self.station(client, token: token, work: work)
            let list = try await client.request(.get, "/api/v1/channel/radios", headers: Self.listener)
            #expect(list.status == .ok)
            #expect(list.headers[.vary] == "Accept")
            let station = try #require(try list.array().first)
            #expect(station["radioId"] as? String == id)
            #expect(station["trackCount"] as? Int == 2)
            let playing = try #require(station["nowPlaying"] as? [String: Any])
            #expect(playing["title"] as? String == "First")
            #expect((playing["next"] as? [String: Any])?["title"] as? String == "Second")
            let etag = try #require(list.headers[.eTag])
            let again = try await client.request(
                .get, "/api/v1/channel/radios", headers: Self.listener + [.ifNoneMatch: etag])
            #expect(again.status == .notModified)

            let stream = try await Self.streamURL(client, id).object()
            let url = try #require(stream["url"] as? String)
            #expect(url.hasPrefix("/stream/") && url.hasSuffix("/live.m3u8"))
            #expect(stream["remainingToday"] as? Double == 900)
            // Nothing has ended yet: an empty window, then the segments as they end.
            clock.advance(13.5)  // First's 3 segments (6, 6, ~1) have ended
            var window = try await Self.playlist(client, url)
            #expect(window.status == .ok)
            #expect(window.sequences == [0, 1, 2], "\(window.text)")
            #expect(window.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:0"))
            clock.advance(8)  // and Second's two: a discontinuity before it, then the loop again
            window = try await Self.playlist(client, url)
            #expect(window.sequences == [0, 1, 2, 3, 4])
            #expect(window.text.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 3)
            let segment = try await client.request(.get, Self.base(url) + "3.ts", headers: Self.listener)
            #expect(segment.status == .ok)
            #expect(segment.headers[.contentType] == "video/mp2t")
            #expect(segment.body.getInteger(at: 0, as: UInt8.self) == 0x47)
            #expect(segment.headers[.cacheControl]?.contains("immutable") == true)
            // Not yet played: not served.
            #expect(try await client.request(.get, Self.base(url) + "40.ts", headers: Self.listener).status == .notFound)

            // The admin moves Second first: the window goes on, numbered after what was listed.
            let reordered = try await client.request(
                .put, "/api/v1/channel/radios/\(id)/tracks/order", token: token,
                json: #"{"ids":["\#(tracks[1])","\#(tracks[0])"]}"#)
            #expect(reordered.status == .noContent)
            clock.advance(7)
            let after = try await Self.playlist(client, url)
            #expect(after.sequences.first! >= window.sequences.first!)
            #expect(Set(after.sequences).isSuperset(of: Set(window.sequences.filter { $0 >= after.sequences.first! })))
            #expect(after.sequences == Array(after.sequences.first!...after.sequences.last!))
            last.withLock { $0 = (after.sequences, after.text, id, url) }
        }
        // A restart: the stored anchor alone gives the window that continues the last one.
        clock.advance(6)
        try await Self.server(kind, directory: directory).run(now: clock.now) { client in
            let (sequences, _, _, url) = try #require(last.withLock { $0 })
            let window = try await Self.playlist(client, url)
            #expect(window.status == .ok)
            #expect(window.sequences.first! >= sequences.first!)
            #expect(window.sequences.last! >= sequences.last!)
            #expect(window.sequences.last! <= sequences.last! + 2)
        }
    }

    @Test func aNonMemberListensUntilTheAllowanceIsSpentAndAMemberDoesNot() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = Self.server(allowance: 14)
        defer { server.removeData() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await server.run(now: clock.now) { client in
            let token = try await client.login()
            let (id, _) = try await Self.station(client, token: token, work: work)
            clock.advance(60)
            let url = try #require(try await Self.streamURL(client, id).object()["url"] as? String)
            let window = try await Self.playlist(client, url)
            #expect(window.sequences.count == 5)
            let durations = Self.durations(window.text)
            let sixes = window.sequences.filter { durations[$0]! > 5.9 }
            let short = try #require(window.sequences.first { durations[$0]! < 2 })
            #expect(sixes.count >= 3, "\(window.text)")
            let segment = { (sequence: Int) in
                try await client.request(.get, Self.base(url) + "\(sequence).ts", headers: Self.listener)
            }
            // 6 s, the same segment again (a second tab) counting once, then 6 s more: 12 of 14.
            for sequence in [sixes[0], sixes[0], sixes[1]] { #expect(try await segment(sequence).status == .ok) }
            let left = try await Self.streamURL(client, id).object()["remainingToday"] as? Double
            #expect(left.map { abs($0 - 2) < 0.3 } == true, "\(String(describing: left))")
            // The next passes the allowance a little; after it, the membership message everywhere.
            #expect(try await segment(sixes[2]).status == .ok)
            let refused = try await segment(short)
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "membership_required")
            let body = try refused.object()["error"] as? [String: Any]
            #expect(body?["limit"] as? String == "radio_daily")
            #expect(body?["join"] as? String != nil)
            #expect(try await Self.playlist(client, url).status == .forbidden)
            #expect(try await Self.streamURL(client, id).errorCode == "membership_required")
            // A segment they had is still theirs.
            #expect(try await segment(sixes[0]).status == .ok)
            // Someone else is not affected; an admin (a member) is not counted.
            #expect(try await Self.streamURL(client, id, headers: Self.other).status == .ok)
            let adminStream = try await client.request(.get, "/api/v1/channel/radios/\(id)/stream", token: token).object()
            #expect(adminStream["remainingToday"] is NSNull)
            let adminURL = try #require(adminStream["url"] as? String)
            for sequence in window.sequences {
                #expect(try await client.request(.get, Self.base(adminURL) + "\(sequence).ts", token: token).status == .ok)
            }
            // Midnight in Prague (the channel's time zone) gives the allowance back.
            let midnight = Self.nextMidnight(after: clock.now(), in: TimeZone(identifier: "Europe/Prague")!)
            clock.advance(midnight.timeIntervalSince(clock.now()) + 1)
            let fresh = try await Self.streamURL(client, id).object()
            #expect(fresh["remainingToday"] as? Double == 14)
        }
    }

    /// A request from `address`, as the (trusted, loopback) proxy in front of the server says.
    static func from(_ address: String, cookie: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: address]
        if let cookie { fields[.cookie] = "podium_viewer=\(cookie)" }
        return fields
    }

    /// 12 s a day each, two allowances an address: a guest who drops the cookie at every request
    /// gets the address's 24 s and no more, on SQLite and PostgreSQL and after a restart; another
    /// address, a lecture hall of two on a third, and a member are not held back by it.
    @Test(arguments: TestStores.kinds) func aGuestWhoDropsTheCookieListensNoLongerThanTheirAddresssPool(_ kind: StoreKind)
        async throws
    {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-radio-\(UUID().uuidString)")
        let server = Self.server(kind, directory: directory, allowance: 12, listenersPerAddress: 2)
        defer { server.removeData() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let home = "198.51.100.7"
        let station = Mutex<(id: String, sequence: Int)?>(nil)
        try await server.run(now: clock.now) { client in
            let token = try await client.login()
            let (id, _) = try await Self.station(client, token: token, work: work)
            clock.advance(60)
            let first = try await Self.streamURL(client, id, headers: Self.from(home))
            #expect(first.headers[.setCookie] != nil)  // a new person
            let window = try await Self.playlist(client, try #require(first.object()["url"] as? String), headers: [:])
            let durations = Self.durations(window.text)
            let sixes = window.sequences.filter { durations[$0]! > 5.9 }
            #expect(sixes.count >= 3, "\(window.text)")
            station.withLock { $0 = (id, sixes[0]) }

            // Four guests without a cookie, each a new person with a full 12 s, from one address:
            // 6 s each until the pool's 24 s are spent.
            var urls: [String] = []
            for (guest, left) in [12.0, 12, 12, 6].enumerated() {
                let stream = try await Self.streamURL(client, id, headers: Self.from(home))
                #expect(stream.status == .ok, "guest \(guest)")
                // Segments are about 6 s (6.0something): about, not exactly.
                let remaining = try stream.object()["remainingToday"] as? Double
                #expect(remaining.map { abs($0 - left) < 0.3 } == true, "guest \(guest): \(String(describing: remaining))")
                let url = try #require(stream.object()["url"] as? String)
                urls.append(url)
                let heard = try await client.request(.get, Self.base(url) + "\(sixes[0]).ts", headers: Self.from(home))
                #expect(heard.status == .ok, "guest \(guest)")
            }
            // The fifth gets the membership message; so do the others' new segments and playlists.
            let fifth = try await Self.streamURL(client, id, headers: Self.from(home))
            #expect(fifth.status == .forbidden)
            #expect(fifth.errorCode == "membership_required")
            #expect((try fifth.object()["error"] as? [String: Any])?["limit"] as? String == "radio_daily")
            let more = try await client.request(.get, Self.base(urls[0]) + "\(sixes[1]).ts", headers: Self.from(home))
            #expect(more.status == .forbidden)
            #expect(more.errorCode == "membership_required")
            #expect(try await Self.playlist(client, urls[1], headers: Self.from(home)).status == .forbidden)
            // What a guest had is still theirs.
            let again = try await client.request(.get, Self.base(urls[0]) + "\(sixes[0]).ts", headers: Self.from(home))
            #expect(again.status == .ok)

            // Another address is not affected.
            let elsewhere = try await Self.streamURL(client, id, headers: Self.from("203.0.113.50"))
            #expect(try elsewhere.object()["remainingToday"] as? Double == 12)
            let elsewhereURL = try #require(elsewhere.object()["url"] as? String)
            let heard = try await client.request(
                .get, Self.base(elsewhereURL) + "\(sixes[0]).ts", headers: Self.from("203.0.113.50"))
            #expect(heard.status == .ok)

            // A member at the spent address is never counted.
            let member = try await client.request(
                .get, "/api/v1/channel/radios/\(id)/stream", token: token, headers: Self.from(home))
            #expect(member.status == .ok)
            #expect(try member.object()["remainingToday"] is NSNull)
            let memberURL = try #require(member.object()["url"] as? String)
            for sequence in window.sequences {
                let segment = try await client.request(
                    .get, Self.base(memberURL) + "\(sequence).ts", token: token, headers: Self.from(home))
                #expect(segment.status == .ok)
            }

            // A lecture hall of two behind one address: each listens their whole allowance.
            let hall = "192.0.2.80"
            for student in ["v_cccccccccccccccccccccccc", "v_dddddddddddddddddddddddd"] {
                let stream = try await Self.streamURL(client, id, headers: Self.from(hall, cookie: student))
                let remaining = try stream.object()["remainingToday"] as? Double
                #expect(remaining.map { abs($0 - 12) < 0.3 } == true, "\(student): \(String(describing: remaining))")
                let url = try #require(stream.object()["url"] as? String)
                for sequence in sixes[0...1] {
                    let segment = try await client.request(
                        .get, Self.base(url) + "\(sequence).ts", headers: Self.from(hall, cookie: student))
                    #expect(segment.status == .ok, "\(student) \(sequence)")
                }
            }
            // A third finds the hall's pool spent.
            let third = try await Self.streamURL(client, id, headers: Self.from(hall, cookie: "v_eeeeeeeeeeeeeeeeeeeeeeee"))
            #expect(third.errorCode == "membership_required")
        }
        // The pool was stored (written at the graceful stop): after a restart it is still spent.
        try await Self.server(kind, directory: directory, allowance: 12, listenersPerAddress: 2).run(now: clock.now) { client in
            let (id, _) = try #require(station.withLock { $0 })
            let stream = try await Self.streamURL(client, id, headers: Self.from(home))
            #expect(stream.status == .forbidden)
            #expect(stream.errorCode == "membership_required")
            let elsewhere = try await Self.streamURL(client, id, headers: Self.from("2001:db8:5:6::1"))
            #expect(elsewhere.status == .ok)
        }
    }

    static func nextMidnight(after date: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.nextDate(after: date, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)!
    }

    @Test func aForgedOrExpiredTokenGetsNoSegment() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = Self.server()
        defer { server.removeData() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await server.run(now: clock.now) { client in
            let token = try await client.login()
            let (id, _) = try await Self.station(client, token: token, work: work)
            clock.advance(30)
            let url = try #require(try await Self.streamURL(client, id).object()["url"] as? String)
            let sequence = try #require(try await Self.playlist(client, url).sequences.first)
            #expect(try await client.request(.get, Self.base(url) + "\(sequence).ts", headers: Self.listener).status == .ok)
            // One character of the token changed.
            var forged = Array(url)
            let index = "/stream/".count + 3
            forged[index] = forged[index] == "A" ? "B" : "A"
            let refused = try await client.request(
                .get, Self.base(String(forged)) + "\(sequence).ts", headers: Self.listener)
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "stream_forbidden")
            // A station's token does not open another kind's, nor another station.
            clock.advance(7 * 3600)
            let expired = try await client.request(.get, Self.base(url) + "\(sequence).ts", headers: Self.listener)
            #expect(expired.status == .gone)
            #expect(expired.errorCode == "stream_expired")
        }
    }

    @Test func uploadsThatAreNotAudioAreRefusedAndLeaveNothing() async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = Self.server()
        defer { server.removeData() }
        let video = try await VideoClipMaker.mp4(seconds: 1, in: work)
        try await server.run { client in
            let token = try await client.login()
            let id = try #require(
                try await client.request(.post, "/api/v1/channel/radios", token: token, json: #"{"name":"Jazz"}"#)
                    .object()["id"] as? String)
            let bodies: [(Data, String)] = [
                (try Data(contentsOf: video), "not_audio"), (Data("just some words\n".utf8), "corrupt"),
                (Data("%PDF-1.4\n".utf8), "not_audio"), (Data(), "empty"),
            ]
            for (data, code) in bodies {
                let answer = try await client.request(
                    .post, "/api/v1/channel/radios/\(id)/tracks", token: token, headers: [.contentType: "audio/mpeg"],
                    body: ByteBuffer(bytes: data))
                #expect(answer.errorCode == code, "\(String(buffer: answer.body))")
                #expect(answer.status != .created)
            }
            #expect(try await client.request(.get, "/api/v1/channel/radios/\(id)/tracks", token: token).array().isEmpty)
            // Not an admin: no writes.
            let anonymous = try await client.request(
                .post, "/api/v1/channel/radios", headers: Self.listener, json: #"{"name":"Mine"}"#)
            #expect(anonymous.status == .unauthorized || anonymous.status == .forbidden)
            // Unpublished: not on the air for the audience, 404.
            #expect(try await client.request(.get, "/api/v1/channel/radios/\(id)", headers: Self.listener).status == .notFound)
            #expect(
                try await client.request(.get, "/api/v1/channel/radios?status=all", headers: Self.listener).status == .forbidden)
            #expect(try await client.request(.get, "/api/v1/channel/radios?limit=0").status == .badRequest)
            // Archive, restore, delete for ever only from the archive.
            #expect(
                try await client.request(.delete, "/api/v1/channel/radios/\(id)?permanent=true", token: token).status == .conflict
            )
            #expect(try await client.request(.delete, "/api/v1/channel/radios/\(id)", token: token).status == .ok)
            let archived = try await client.request(.get, "/api/v1/channel/radios?status=archived", token: token).array()
            #expect(archived.map { $0["id"] as? String } == [id])
            #expect(try await client.request(.post, "/api/v1/channel/radios/\(id)/restore", token: token).status == .ok)
            #expect(try await client.request(.delete, "/api/v1/channel/radios/\(id)", token: token).status == .ok)
            #expect(
                try await client.request(.delete, "/api/v1/channel/radios/\(id)?permanent=true", token: token).status
                    == .noContent)
        }
        #expect(try VideoClipMaker.blobCount(server.configuration.blobDirectory) == 0)
    }
}
