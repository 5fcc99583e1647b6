import Foundation
import Testing

@testable import PodiumStore

/// Radio stations, their tracks and daily listening on both databases.
@Suite("Channel radio store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct ChannelRadioStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let t1 = Date(timeIntervalSince1970: 1_700_000_060.5)

    static func station(_ id: String = "r1", position: Int = 0) -> ChannelRadioRecord {
        ChannelRadioRecord(
            id: id, name: "Folk", description: "Songs", website: nil, position: position, createdAt: t0, updatedAt: t0)
    }

    static func track(_ id: String, position: Int, source: String = "aa.audio", segments: String = "[]")
        -> ChannelRadioTrackRecord
    {
        ChannelRadioTrackRecord(
            id: id, radioId: "r1", position: position, title: "Song \(id)", status: .queued, sourceBlob: source,
            sourceBytes: 1000, segments: segments, createdAt: t0, updatedAt: t0)
    }

    @Test(arguments: TestStores.kinds) func aStationComesBackAsStoredAndChanges(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertRadio(Self.station())
            try await store.insertRadio(Self.station("r0", position: -1))
            #expect(try await store.radio(id: "r1") == Self.station())
            #expect(try await store.radios().map(\.id) == ["r0", "r1"])

            var changed = Self.station()
            changed.name = "Classical"
            changed.website = "https://example.org"
            changed.epoch = Self.t1
            changed.sequenceBase = 12_345_678_901
            changed.discontinuityBase = 77
            changed.publishedAt = Self.t1
            changed.updatedAt = Self.t1
            changed.archivedAt = Self.t1
            try await store.updateRadio(changed)
            #expect(try await store.radio(id: "r1") == changed)
            changed.archivedAt = nil
            changed.website = nil
            try await store.updateRadio(changed)
            #expect(try await store.radio(id: "r1") == changed)
            #expect(try await store.radio(id: "nope") == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func tracksKeepTheirOrderAndFreeOnlyTheirOwnBlobs(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await store.insertRadio(Self.station())
            try await store.insertRadioTrack(Self.track("t1", position: 0))
            try await store.insertRadioTrack(Self.track("t2", position: 1, source: "bb.audio"))
            // The same upload twice shares the source blob.
            try await store.insertRadioTrack(Self.track("t3", position: 2))
            #expect(try await store.radioTracks(radioId: "r1").map(\.id) == ["t1", "t2", "t3"])

            var ready = try #require(try await store.radioTrack(id: "t1"))
            ready.status = .ready
            ready.duration = 12.5
            ready.segments = #"[{"blob":"s1.ts","duration":6},{"blob":"s2.ts","duration":6.5}]"#
            ready.title = "Polka"
            ready.artist = "Band"
            ready.website = "https://band.example"
            ready.updatedAt = Self.t1
            try await store.updateRadioTrack(ready)
            #expect(try await store.radioTrack(id: "t1") == ready)
            #expect(ready.segmentList.map(\.blob) == ["s1.ts", "s2.ts"])

            try await store.reorderRadioTracks(radioId: "r1", ids: ["t3", "t1", "t2"], at: Self.t1)
            #expect(try await store.radioTracks(radioId: "r1").map(\.id) == ["t3", "t1", "t2"])

            #expect(try await store.radioBlobsUnused(["aa.audio", "s1.ts"], exceptTrack: "t1") == ["s1.ts"])
            // t3 still uses the shared upload: only t1's segments go.
            #expect(try await store.deleteRadioTrack(id: "t1") == ["s1.ts", "s2.ts"])
            #expect(try await store.deleteRadioTrack(id: "t1") == [])
            #expect(try await store.deleteRadio(id: "r1") == ["aa.audio", "bb.audio"])
            #expect(try await store.radioTracks(radioId: "r1").isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds) func listeningAddsUpPerPersonAndDay(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            #expect(try await store.radioUsage(viewerKey: "v_1", day: "2026-11-25") == 0)
            try await store.addRadioUsage([
                RadioUsage(viewerKey: "v_1", day: "2026-11-25", seconds: 6),
                RadioUsage(viewerKey: "v_2", day: "2026-11-25", seconds: 3),
            ])
            try await store.addRadioUsage([RadioUsage(viewerKey: "v_1", day: "2026-11-25", seconds: 5.5)])
            try await store.addRadioUsage([RadioUsage(viewerKey: "v_1", day: "2026-11-26", seconds: 1)])
            #expect(try await store.radioUsage(viewerKey: "v_1", day: "2026-11-25") == 11.5)
            #expect(try await store.radioUsage(viewerKey: "v_2", day: "2026-11-25") == 3)
            #expect(try await store.radioUsage(viewerKey: "v_1", day: "2026-11-26") == 1)
        }
    }
}
