import Foundation
import Synchronization
import Testing

@testable import PodiumServer

/// A stream's held file set (``StreamBlobSets``) is loaded again on a miss so that a clip's new
/// rungs are reachable at once (the first miss after a load, however soon), but later misses at
/// most once per `missInterval` per resource: a name no blob answers, asked again and again under
/// a valid token, does not cost a store query each time, and caption files (answered from the
/// caption store, never in the set) never load it.
@Suite("Stream blob sets")
struct StreamBlobSetsTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let moment = Mutex(Date(timeIntervalSince1970: 1_000_000))
        var now: Date { moment.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { moment.withLock { $0 += seconds } }
    }

    /// Counts the loads of one resource, answering `files`.
    final class Loads: Sendable {
        private let state = Mutex((count: 0, files: Set<String>()))
        init(_ files: Set<String>) { state.withLock { $0.files = files } }
        var count: Int { state.withLock { $0.count } }
        func set(_ files: Set<String>) { state.withLock { $0.files = files } }
        func load() -> Set<String>? {
            state.withLock {
                $0.count += 1; return $0.files
            }
        }
    }

    @Test func aMissLoadsTheSetAgainAtMostOncePerInterval() async throws {
        let clock = Clock()
        let sets = StreamBlobSets(lifetime: 60, missInterval: 1) { clock.now }
        let loads = Loads(["master.m3u8", "360p.m3u8"])
        #expect(try await sets.files(of: "v1", serving: "master.m3u8") { loads.load() } == ["master.m3u8", "360p.m3u8"])
        #expect(loads.count == 1)
        // A held name: no load.
        _ = try await sets.files(of: "v1", serving: "360p.m3u8") { loads.load() }
        #expect(loads.count == 1)

        // The ladder adds a rung half a second later: the first miss loads at once and finds it
        // (a player that loaded the master just before the ladder was stored).
        loads.set(["master.m3u8", "360p.m3u8", "480p.m3u8"])
        clock.advance(0.5)
        #expect(try await sets.files(of: "v1", serving: "480p.m3u8") { loads.load() }?.contains("480p.m3u8") == true)
        #expect(loads.count == 2)
        #expect(sets.heldFiles(of: "v1", needing: "480p.m3u8") != nil, "the new rung is held")
        // Further misses within the interval answer the held set.
        loads.set(["master.m3u8", "360p.m3u8", "480p.m3u8", "720p.m3u8"])
        clock.advance(0.5)
        #expect(try await sets.files(of: "v1", serving: "720p.m3u8") { loads.load() }?.contains("720p.m3u8") == false)
        _ = try await sets.files(of: "v1", serving: "nothing.ts") { loads.load() }
        #expect(loads.count == 2, "a second miss within the interval does not load")

        // Past the interval, a miss loads again and finds the newer rung.
        clock.advance(0.5)
        #expect(try await sets.files(of: "v1", serving: "720p.m3u8") { loads.load() }?.contains("720p.m3u8") == true)
        #expect(loads.count == 3)
        // An unknown name asked again at once does not load; a second later it does, once.
        _ = try await sets.files(of: "v1", serving: "nothing.ts") { loads.load() }
        _ = try await sets.files(of: "v1", serving: "nothing.ts") { loads.load() }
        #expect(loads.count == 3)
        clock.advance(1.5)
        _ = try await sets.files(of: "v1", serving: "nothing.ts") { loads.load() }
        _ = try await sets.files(of: "v1", serving: "nothing.ts") { loads.load() }
        #expect(loads.count == 4)
        // Each resource has its own interval.
        _ = try await sets.files(of: "v2", serving: "master.m3u8") { loads.load() }
        #expect(loads.count == 5)
    }

    @Test func captionRequestsNeverLoadTheSet() async throws {
        let clock = Clock()
        let sets = StreamBlobSets(lifetime: 60, missInterval: 1) { clock.now }
        let loads = Loads(["master.m3u8", "360p.m3u8"])
        _ = try await sets.files(of: "v1", serving: "master.m3u8") { loads.load() }
        #expect(loads.count == 1)
        for step in 0..<10 {
            clock.advance(2)
            for name in ["captions-en.vtt", "captions-en.m3u8", "captions-zh-Hans.vtt", "captions-de.m3u8"] {
                let files = try await sets.files(of: "v1", serving: name) { loads.load() }
                #expect(files == ["master.m3u8", "360p.m3u8"], "\(name) at step \(step)")
            }
        }
        #expect(loads.count == 1, "caption files are never in the set and never load it")
        // The set's lifetime still applies to them.
        clock.advance(60)
        _ = try await sets.files(of: "v1", serving: "captions-en.vtt") { loads.load() }
        #expect(loads.count == 2)
    }

    @Test func onlyCaptionNamesAreCaptionFiles() {
        #expect(CaptionStreams.isCaptionFile("captions-en.vtt"))
        #expect(CaptionStreams.isCaptionFile("captions-pt-BR.m3u8"))
        #expect(!CaptionStreams.isCaptionFile("master.m3u8"))
        #expect(!CaptionStreams.isCaptionFile("captions-en.ts"))
        #expect(!CaptionStreams.isCaptionFile("0123abcd.vtt"))
    }
}
