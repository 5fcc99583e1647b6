import Foundation
import PodiumCore
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
}
