import Testing

@testable import PodiumServer

/// A viewer's sockets in the session's member table: one kept inline, several in a set.
@Suite("Socket ids of a viewer")
struct SocketIDsTests {
    @Test func tabsOpenedAndClosedInAnyOrder() {
        var ids = SocketIDs.none
        #expect(ids.ids.isEmpty)
        ids.insert(7)
        #expect(ids == .one(7))
        ids.insert(7)
        #expect(ids == .one(7))
        ids.insert(9)
        ids.insert(4)
        #expect(ids.ids.sorted() == [4, 7, 9])
        ids.remove(7)
        #expect(ids.ids.sorted() == [4, 9])
        ids.remove(42)
        #expect(ids.ids.sorted() == [4, 9])
        ids.remove(4)
        #expect(ids == .one(9))
        ids.remove(8)
        #expect(ids == .one(9))
        ids.remove(9)
        #expect(ids == .none)
        ids.remove(9)
        #expect(ids == .none)
    }
}
