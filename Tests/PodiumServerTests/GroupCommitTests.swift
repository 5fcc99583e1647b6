import Foundation
import PodiumCore
import SQLKit
import Synchronization
import Testing

@testable import PodiumStore

/// Hellos that arrive together are written in one transaction (``GroupCommit``), and each caller
/// still gets its own outcome: its viewer as stored, or its own error.
@Suite("Group commit of hellos", .timeLimit(.minutes(2)))
struct GroupCommitTests {
    /// What the writes saw: each group written together, each input written alone.
    final class Log: Sendable {
        let together = Mutex<[[Int]]>([])
        let alone = Mutex<[Int]>([])
    }

    /// A first write that holds until let go, so the ones behind it queue up.
    @Test func writesThatWaitGoTogetherInTheirOrder() async throws {
        let group = GroupCommit<Int, Int>(maximum: 4)
        let log = Log()
        let (held, hold) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let together: GroupCommit<Int, Int>.Together = { inputs in
            log.together.withLock { $0.append(inputs) }
            return inputs.map { $0 * 10 }
        }
        let alone: GroupCommit<Int, Int>.Alone = { input in
            log.alone.withLock { $0.append(input) }
            if input == 0 {
                start.yield()
                for await _ in held { break }
            }
            return input * 10
        }
        try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
            tasks.addTask { (0, try await group.write(0, together: together, alone: alone)) }
            for await _ in started { break }
            // The first is being written: the next six wait, and go in groups of at most four.
            for input in 1...6 {
                tasks.addTask { (input, try await group.write(input, together: together, alone: alone)) }
            }
            while group.waitingCount < 6 { await Task.yield() }
            hold.yield()
            for try await (input, output) in tasks { #expect(output == input * 10) }
        }
        #expect(log.alone.withLock { $0 } == [0])
        let groups = log.together.withLock { $0 }
        #expect(groups.map(\.count) == [4, 2])
        #expect(groups.flatMap { $0 }.sorted() == Array(1...6))
    }

    /// One bad write fails its group's transaction: every write of the group is then written
    /// alone, and only the bad one's caller gets an error.
    @Test func aFailedGroupIsWrittenOneByOne() async throws {
        struct Refused: Error {}
        let group = GroupCommit<Int, Int>(maximum: 8)
        let log = Log()
        let (held, hold) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let together: GroupCommit<Int, Int>.Together = { inputs in
            log.together.withLock { $0.append(inputs) }
            if inputs.contains(3) { throw Refused() }
            return inputs
        }
        let alone: GroupCommit<Int, Int>.Alone = { input in
            log.alone.withLock { $0.append(input) }
            if input == 0 {
                start.yield()
                for await _ in held { break }
            }
            if input == 3 { throw Refused() }
            return input
        }
        try await withThrowingTaskGroup(of: (Int, Result<Int, Refused>).self) { tasks in
            tasks.addTask { (0, .success(try await group.write(0, together: together, alone: alone))) }
            for await _ in started { break }
            for input in 1...5 {
                tasks.addTask {
                    do {
                        return (input, .success(try await group.write(input, together: together, alone: alone)))
                    } catch {
                        return (input, .failure(Refused()))
                    }
                }
            }
            while group.waitingCount < 5 { await Task.yield() }
            hold.yield()
            for try await (input, result) in tasks {
                switch result {
                case .success(let output): #expect(input != 3 && output == input)
                case .failure: #expect(input == 3)
                }
            }
        }
        #expect(log.together.withLock { $0 }.map(\.count) == [5])
        #expect(log.alone.withLock { $0 }.sorted() == [0, 1, 2, 3, 4, 5])
    }

    static func visit(_ n: Int, newcomer: Bool = true, id: String? = nil) -> SQLStore.VisitWrite {
        SQLStore.VisitWrite(
            id: id ?? "a\(n)", sessionId: "s1", viewerId: "v\(n)",
            viewer: newcomer ? ViewerEntry(id: "v\(n)", number: 1, name: n.isMultiple(of: 2) ? "Guest \(n)" : nil) : nil,
            at: StoreTests.t0)
    }

    /// The store's group: newcomers numbered in their order, returning viewers keep theirs, and a
    /// group with a bad write stores none of it.
    @Test(arguments: TestStores.kinds) func aGroupIsOneTransaction(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let first = try await store.writeVisits((1...5).map { Self.visit($0) })
            #expect(first.map { $0?.number } == [1, 2, 3, 4, 5])
            #expect(first.map { $0?.name } == [nil, "Guest 2", nil, "Guest 4", nil])
            // v2 comes back (already known: no viewer to save), v6 is new.
            let second = try await store.writeVisits([Self.visit(2, newcomer: false, id: "b2"), Self.visit(6)])
            #expect(second.map { $0?.number } == [nil, 6])
            // A visit id that is taken fails the group: v7's visit and viewer are not stored.
            await #expect(throws: (any Error).self) {
                try await store.writeVisits([Self.visit(7), Self.visit(1)])
            }
            #expect(try await store.viewers(sessionId: "s1").map(\.id) == ["v1", "v2", "v3", "v4", "v5", "v6"])
            #expect(try await store.attendance(sessionId: "s1").count == 7)
            // Known viewers in a group keep their number (v3 takes a name, v4 keeps "Guest 4"
            // when none is given), newcomers take the next ones without a gap, and one viewer
            // twice (two tabs at once) is numbered once.
            let renamed = SQLStore.VisitWrite(
                id: "c3", sessionId: "s1", viewerId: "v3", viewer: ViewerEntry(id: "v3", number: 1, name: "Cy"),
                at: StoreTests.t1)
            let nameless = SQLStore.VisitWrite(
                id: "c4", sessionId: "s1", viewerId: "v4", viewer: ViewerEntry(id: "v4", number: 1, name: nil),
                at: StoreTests.t1)
            let third = try await store.writeVisits([
                Self.visit(7), renamed, Self.visit(9), nameless, Self.visit(9, id: "c9"), Self.visit(10),
            ])
            #expect(
                third == [
                    ViewerEntry(id: "v7", number: 7, name: nil), ViewerEntry(id: "v3", number: 3, name: "Cy"),
                    ViewerEntry(id: "v9", number: 8, name: nil), ViewerEntry(id: "v4", number: 4, name: "Guest 4"),
                    ViewerEntry(id: "v9", number: 8, name: nil), ViewerEntry(id: "v10", number: 9, name: "Guest 10"),
                ])
            #expect(try await store.viewers(sessionId: "s1").map(\.number) == Array(1...9))
            #expect(try await store.attendance(sessionId: "s1").count == 13)
        }
    }

    /// Forty hellos at once through `visitStarted`: however they were grouped, forty visits and
    /// forty viewers, numbered 1 to 40 once each.
    @Test(arguments: TestStores.kinds) func helloesAtOnceAreEachStoredOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let numbers = try await withThrowingTaskGroup(of: Int?.self) { tasks in
                for n in 1...40 {
                    tasks.addTask {
                        let visit = Self.visit(n)
                        return try await store.visitStarted(
                            id: visit.id, sessionId: "s1", viewerId: visit.viewerId, saving: visit.viewer, at: visit.at)?.number
                    }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(numbers.compactMap { $0 }.sorted() == Array(1...40))
            #expect(try await store.attendance(sessionId: "s1").count == 40)
            #expect(try await store.viewers(sessionId: "s1").count == 40)
        }
    }

    /// A group's visits on SQLite go as JSON texts (`JSONColumn`): each date must be stored as
    /// the value a bound `Date` stores (the same REAL on SQLite, bit for bit; the same timestamp on
    /// PostgreSQL), for dates of today with every fraction, whole ones, small and before 1970.
    @Test(arguments: TestStores.kinds) func aGroupsDatesAreStoredAsBound(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let special: [Double] = [
                0, 1, -1.5, 1e-7, 0.1, 1_796_155_555.123_456_789, 1_796_155_555, Date.distantPast.timeIntervalSince1970,
                4_102_444_800.999_999_9, StoreTests.t0.timeIntervalSince1970, (1_796_155_555.5).nextUp,
                (1_796_155_555.5).nextDown,
            ]
            let seconds =
                special + (0..<500).map { _ in Double.random(in: 1.6e9..<1.9e9) }
                + (0..<100).map { _ in Double.random(in: -3e9..<5e9) }
            var written: [(id: String, at: Date)] = []
            for (group, start) in stride(from: 0, to: seconds.count, by: 64).enumerated() {
                let visits = seconds[start..<min(start + 64, seconds.count)].enumerated().map { offset, second in
                    SQLStore.VisitWrite(
                        id: "d\(group)-\(offset)", sessionId: "s1", viewerId: "v\(offset)", viewer: nil,
                        at: Date(timeIntervalSince1970: second))
                }
                _ = try await store.writeVisits(visits)
                written += visits.map { ($0.id, $0.at) }
            }
            var differing: [Double] = []
            for (id, at) in written {
                let same = try await store.serial { db in
                    try await db.raw(
                        "SELECT COUNT(*) AS n FROM attendance WHERE id = \(bind: id) AND joined_at = \(bind: at)"
                    ).first(decodingColumn: "n", as: Int.self)
                }
                if same != 1 { differing.append(at.timeIntervalSince1970) }
            }
            #expect(written.count == seconds.count)
            #expect(differing == [])
        }
    }

    /// Names of every kind through a group (on SQLite JSON texts, the logged body escaped twice):
    /// the viewers, the stored viewers and the audience log give each back as it was.
    @Test(arguments: TestStores.kinds) func aGroupsNamesComeBackAsTheyWere(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            _ = try await StoreTests.seed(store)
            let names: [String?] = [
                nil, "Ada", "Zoë \"the\" <best>", "back\\slash/and/slash", "tab\tnew\nline\r\u{8}\u{c}", "\u{1}\u{1f}\u{7f}",
                "🎤 ünïcødé", "null", "[1]", "'quoted'",
            ]
            let visits = names.enumerated().map { n, name in
                SQLStore.VisitWrite(
                    id: "n\(n)", sessionId: "s1", viewerId: "odd\"/id\(n)",
                    viewer: ViewerEntry(id: "odd\"/id\(n)", number: 1, name: name), at: StoreTests.t0)
            }
            let expected = names.enumerated().map { n, name in ViewerEntry(id: "odd\"/id\(n)", number: n + 1, name: name) }
            #expect(try await store.writeVisits(visits) == expected)
            #expect(try await store.viewers(sessionId: "s1") == expected)
            let logged = try await store.audienceRecords(sessionId: "s1", afterRecordSeq: 0, limit: 100)
            #expect(logged.map(\.change) == expected.map { .viewer($0) })
            #expect(logged.map(\.rseq) == Array(1...names.count))
            #expect(logged.allSatisfy { $0.at == StoreTests.t0 && $0.commandID == nil && $0.commandSeq == nil })
        }
    }
}
