import Foundation
import Synchronization

/// A clock a test moves by hand: the server's `now`, so nothing waits for time to pass.
final class SteppedClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        date = Mutex(start)
    }

    var now: Date { date.withLock { $0 } }

    func advance(_ seconds: TimeInterval) {
        date.withLock { $0 += seconds }
    }
}
