import Foundation
import Synchronization

/// Newest wins per key, at most one delivery per key per interval: the first at once, the last
/// one always (it waits for the end of the interval, replaced by anything newer meanwhile). What
/// the session bus sends often (the pointer, "records changed", presence) goes through one, so a
/// session's pointer costs at most 30 notifications a second however fast the presenter moves it.
final class Coalescer<Value: Sendable>: Sendable {
    private struct Slot {
        var last: ContinuousClock.Instant
        var pending: Value?
    }

    private let slots = Mutex<[String: Slot]>([:])
    private let deliver: @Sendable (Value) -> Void

    init(deliver: @escaping @Sendable (Value) -> Void) {
        self.deliver = deliver
    }

    private enum Next {
        case now
        case at(ContinuousClock.Instant)
        case pending
    }

    func submit(_ value: Value, key: String, interval: Duration) {
        let now = ContinuousClock.now
        let next: Next = slots.withLock { slots in
            guard var slot = slots[key] else {
                if slots.count > 10_000 {
                    // Keys of sessions gone quiet: forget them (a quiet key sends at once anyway).
                    slots = slots.filter { $0.value.pending != nil || now - $0.value.last < interval + .seconds(1) }
                }
                slots[key] = Slot(last: now, pending: nil)
                return .now
            }
            if slot.pending != nil {
                slot.pending = value
                slots[key] = slot
                return .pending
            }
            let due = slot.last + interval
            if due <= now {
                slots[key] = Slot(last: now, pending: nil)
                return .now
            }
            slot.pending = value
            slots[key] = slot
            return .at(due)
        }
        switch next {
        case .now: deliver(value)
        case .pending: break
        case .at(let due):
            Task {
                try? await ContinuousClock().sleep(until: due)
                self.flush(key)
            }
        }
    }

    private func flush(_ key: String) {
        let value = slots.withLock { slots -> Value? in
            guard var slot = slots[key], let value = slot.pending else { return nil }
            slot.pending = nil
            slot.last = .now
            slots[key] = slot
            return value
        }
        if let value { deliver(value) }
    }
}
