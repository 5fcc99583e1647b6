import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import PodiumServer

/// The allocator's free pages go back once a burst of joins or leaves is over (``HeapTrim``):
/// not per socket, not while the burst goes on, not for a few sockets.
@Suite("Heap trim")
struct HeapTrimTests {
    final class Counter: Sendable {
        let trims = Atomic<Int>(0)
        var count: Int { trims.load(ordering: .relaxed) }
    }

    static func make() -> (HeapTrim, Counter, EmbeddedEventLoop) {
        let counter = Counter()
        return (HeapTrim(trim: { counter.trims.add(1, ordering: .relaxed) }), counter, EmbeddedEventLoop())
    }

    @Test("One trim once a burst has been quiet for the quiet time")
    func trimsOnceAfterABurst() {
        let (heap, counter, loop) = Self.make()
        for _ in 0..<(HeapTrim.threshold * 3) { heap.noteSocketChange(on: loop) }
        loop.advanceTime(by: HeapTrim.quiet - .milliseconds(1))
        #expect(counter.count == 0)
        loop.advanceTime(by: .milliseconds(1))
        #expect(counter.count == 1)
        loop.advanceTime(by: HeapTrim.quiet * 4)
        #expect(counter.count == 1)
    }

    @Test("A burst that goes on puts the trim off until it stops")
    func waitsForTheBurstToEnd() {
        let (heap, counter, loop) = Self.make()
        for _ in 0..<HeapTrim.threshold { heap.noteSocketChange(on: loop) }
        // One socket more every 100 ms for ten times the quiet time: never quiet long enough.
        for _ in 0..<50 {
            loop.advanceTime(by: .milliseconds(100))
            heap.noteSocketChange(on: loop)
            #expect(counter.count == 0)
        }
        loop.advanceTime(by: HeapTrim.quiet)
        #expect(counter.count == 1)
    }

    @Test("Fewer joins and leaves than the threshold: no trim; the next burst gets its own")
    func fewChangesNoTrim() {
        let (heap, counter, loop) = Self.make()
        for _ in 0..<(HeapTrim.threshold - 1) { heap.noteSocketChange(on: loop) }
        loop.advanceTime(by: HeapTrim.quiet * 4)
        #expect(counter.count == 0)
        heap.noteSocketChange(on: loop)
        loop.advanceTime(by: HeapTrim.quiet)
        #expect(counter.count == 1)
        for _ in 0..<HeapTrim.threshold { heap.noteSocketChange(on: loop) }
        loop.advanceTime(by: HeapTrim.quiet)
        #expect(counter.count == 2)
    }
}
