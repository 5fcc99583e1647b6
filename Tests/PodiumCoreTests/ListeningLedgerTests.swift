import Foundation
import Testing

@testable import PodiumCore

/// The daily radio allowance of non-members, with the time passed in.
@Suite("Listening ledger")
struct ListeningLedgerTests {
    static let chicago = TimeZone(identifier: "America/Chicago")!
    /// 2026-11-25 23:59:00 in Chicago (05:59 UTC the next day).
    static let beforeMidnight = Date(timeIntervalSince1970: 1_795_672_740)

    // #expect cannot call a mutating method itself.
    static func serve(_ ledger: inout ListeningLedger, _ key: String, station: String, sequence: Int, duration: Double, at: Date)
        -> Bool
    {
        ledger.serve(key, station: station, sequence: sequence, duration: duration, at: at)
    }

    static func drain(_ ledger: inout ListeningLedger, at: Date) -> [ListeningLedger.Addition] { ledger.drain(at: at) }

    @Test func eachSegmentCountsOncePerPersonAndTheAllowanceStopsNewOnes() {
        var ledger = ListeningLedger(allowance: 20, timeZone: .gmt)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        ledger.loaded("v_a", day: ledger.day(of: now), seconds: 0)
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 10, duration: 6, at: now))
        // A second tab asks for the same segment: free.
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 10, duration: 6, at: now))
        #expect(ledger.remaining("v_a", at: now) == 14)
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 11, duration: 6, at: now))
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 12, duration: 6, at: now))
        // 18 s used, 2 left: one more may pass the allowance a little, then no more.
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 13, duration: 6, at: now))
        #expect(ledger.remaining("v_a", at: now) == 0)
        #expect(!Self.serve(&ledger, "v_a", station: "r1", sequence: 14, duration: 6, at: now))
        #expect(!Self.serve(&ledger, "v_a", station: "r2", sequence: 14, duration: 6, at: now))
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 13, duration: 6, at: now))  // counted already
        // Someone else is not affected.
        #expect(Self.serve(&ledger, "v_b", station: "r1", sequence: 14, duration: 6, at: now))
    }

    @Test func additionsAreWrittenInBatchesAndAStoredTotalCounts() {
        var ledger = ListeningLedger(allowance: 900, timeZone: .gmt)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        #expect(ledger.needsLoading("v_a", at: now))
        ledger.loaded("v_a", day: "2025-11-24", seconds: 895)
        #expect(!ledger.needsLoading("v_a", at: now))
        #expect(ledger.remaining("v_a", at: now) == 5)
        for sequence in 0..<3 { _ = ledger.serve("v_a", station: "r1", sequence: sequence, duration: 6, at: now) }
        #expect(Self.drain(&ledger, at: now) == [.init(viewerKey: "v_a", day: "2025-11-24", seconds: 6)])
        #expect(Self.drain(&ledger, at: now) == [])
        ledger.restore([.init(viewerKey: "v_a", day: "2025-11-24", seconds: 6)])
        #expect(Self.drain(&ledger, at: now) == [.init(viewerKey: "v_a", day: "2025-11-24", seconds: 6)])
    }

    @Test func theAllowanceComesBackAtMidnightInTheChannelsTimeZone() {
        var ledger = ListeningLedger(allowance: 12, timeZone: Self.chicago)
        let before = Self.beforeMidnight
        #expect(ledger.day(of: before) == "2026-11-25")  // already the 26th in UTC
        ledger.loaded("v_a", day: "2026-11-25", seconds: 0)
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 1, duration: 6, at: before))
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 2, duration: 6, at: before))
        #expect(!Self.serve(&ledger, "v_a", station: "r1", sequence: 3, duration: 6, at: before))
        #expect(ledger.resetsAt(after: before) == before.addingTimeInterval(60))

        let after = before.addingTimeInterval(61)
        #expect(ledger.day(of: after) == "2026-11-26")
        #expect(ledger.needsLoading("v_a", at: after))
        #expect(ledger.remaining("v_a", at: after) == 12)
        ledger.loaded("v_a", day: "2026-11-26", seconds: 0)
        #expect(Self.serve(&ledger, "v_a", station: "r1", sequence: 3, duration: 6, at: after))
        // Yesterday's seconds are still written, to yesterday.
        #expect(
            Self.drain(&ledger, at: after) == [
                .init(viewerKey: "v_a", day: "2026-11-25", seconds: 12), .init(viewerKey: "v_a", day: "2026-11-26", seconds: 6),
            ])
        #expect(Self.drain(&ledger, at: after) == [])
    }
}
