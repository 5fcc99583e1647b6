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

    static func serve(
        _ ledger: inout ListeningLedger, _ key: String, pool: String, station: String = "r1", sequence: Int,
        duration: Double = 6, at: Date
    ) -> Bool {
        ledger.serve(key, pool: pool, station: station, sequence: sequence, duration: duration, at: at)
    }

    @Test func guestsWhoDropTheCookieShareTheirAddresssPool() {
        // 12 s each, 2 allowances per address: 24 s from one address, whoever asks.
        var ledger = ListeningLedger(allowance: 12, timeZone: .gmt, listenersPerAddress: 2)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let home = ListeningLedger.addressPool(of: "198.51.100.7")
        var sequence = 0
        var served = 0
        // Every request a new person (no cookie): only the pool stops them.
        for fresh in 0..<20 {
            sequence += 1
            if Self.serve(&ledger, "v_fresh\(fresh)", pool: home, sequence: sequence, at: now) { served += 1 }
        }
        #expect(served == 4)
        #expect(ledger.remaining("v_new", pool: home, at: now) == 0)
        #expect(!Self.serve(&ledger, "v_new", pool: home, sequence: 100, at: now))
        // Another address is not affected, and a person's own allowance still counts there.
        let office = ListeningLedger.addressPool(of: "203.0.113.9")
        #expect(ledger.remaining("v_new", pool: office, at: now) == 12)
        #expect(Self.serve(&ledger, "v_new", pool: office, sequence: 100, at: now))
        // The pool is written like a person, under its key.
        let written = Self.drain(&ledger, at: now)
        #expect(written.first { $0.viewerKey == home } == .init(viewerKey: home, day: "2025-11-24", seconds: 24))
        #expect(written.first { $0.viewerKey == office } == .init(viewerKey: office, day: "2025-11-24", seconds: 6))
        // A stored pool counts after a restart.
        var restarted = ListeningLedger(allowance: 12, timeZone: .gmt, listenersPerAddress: 2)
        restarted.loaded(home, day: "2025-11-24", seconds: 24)
        restarted.loaded("v_other", day: "2025-11-24", seconds: 0)
        #expect(restarted.remaining("v_other", pool: home, at: now) == 0)
        #expect(!Self.serve(&restarted, "v_other", pool: home, sequence: 1, at: now))
    }

    @Test func aLectureHallBehindOneAddressEachListensTheirOwnAllowance() {
        let listeners = 5
        var ledger = ListeningLedger(allowance: 12, timeZone: .gmt, listenersPerAddress: listeners)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let hall = ListeningLedger.addressPool(of: "192.0.2.1")
        // Everyone hears the same segments of the live window.
        for person in 0..<listeners {
            for sequence in 1...2 { #expect(Self.serve(&ledger, "v_student\(person)", pool: hall, sequence: sequence, at: now)) }
            #expect(!Self.serve(&ledger, "v_student\(person)", pool: hall, sequence: 3, at: now))
            // A segment they had is still theirs (a second tab), the pool full or not.
            #expect(Self.serve(&ledger, "v_student\(person)", pool: hall, sequence: 2, at: now))
        }
        // One more than the pool holds gets nothing new.
        #expect(ledger.remaining("v_late", pool: hall, at: now) == 0)
        #expect(!Self.serve(&ledger, "v_late", pool: hall, sequence: 1, at: now))
    }

    @Test func noAddressPoolWhenTurnedOff() {
        var ledger = ListeningLedger(allowance: 6, timeZone: .gmt, listenersPerAddress: 0)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        for fresh in 0..<10 { #expect(Self.serve(&ledger, "v_\(fresh)", pool: "addr:192.0.2.1", sequence: 1, at: now)) }
        #expect(Self.drain(&ledger, at: now).allSatisfy { $0.viewerKey.hasPrefix("v_") })
    }

    @Test func anAddressPoolIsTheIPv4AddressOrTheIPv6Slash64() {
        #expect(ListeningLedger.addressPool(of: "198.51.100.7") == "addr:198.51.100.7")
        #expect(ListeningLedger.addressPool(of: "2001:db8:0:1::1") == "addr:2001:db8:0:1::/64")
        #expect(ListeningLedger.addressPool(of: "2001:DB8:0:1:ffff:eeee:dddd:cccc") == "addr:2001:db8:0:1::/64")
        #expect(ListeningLedger.addressPool(of: "2001:0db8:0000:0001:0000:0000:0000:0002") == "addr:2001:db8:0:1::/64")
        #expect(ListeningLedger.addressPool(of: "[2001:db8::7]") == "addr:2001:db8:0:0::/64")
        #expect(ListeningLedger.addressPool(of: "fe80::1%eth0") == "addr:fe80:0:0:0::/64")
        #expect(ListeningLedger.addressPool(of: "::ffff:198.51.100.7") == "addr:198.51.100.7")
        #expect(ListeningLedger.addressPool(of: "::1") == "addr:0:0:0:0::/64")
        #expect(ListeningLedger.addressPool(of: "unknown") == "addr:unknown")
        #expect(ListeningLedger.addressPool(of: "1:2:3") == "addr:1:2:3")
        #expect(ListeningLedger.addressPool(of: "1::2::3") == "addr:1::2::3")
    }
}
