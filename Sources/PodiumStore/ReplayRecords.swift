import Foundation
import PodiumCore

/// One sample of a session's pointer side log (replay, issue #44): kept only while the presenter
/// records, coalesced to a few a second, written in batches beside the event log.
public struct ReplaySample: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The laser pointer at (x, y) of a page (0…1 each); `deck` in a room.
        case pointer(page: Int, deck: String?, x: Double, y: Double)
        /// The pointer hidden.
        case hidden
        /// A stroke began to be drawn (the first `inking` message after the previous stroke ended).
        case inkStart
    }

    public var at: Date
    public var kind: Kind

    public init(at: Date, _ kind: Kind) {
        self.at = at
        self.kind = kind
    }
}

/// The pointer side log of sessions recorded for their replay: one row per batch, its samples
/// encoded compactly (``ReplaySampleCoding``).
public protocol ReplayStore: Sendable {
    /// Stores one batch of a session's samples (oldest first; nothing for none).
    func appendReplaySamples(sessionId: String, _ samples: [ReplaySample]) async throws
    /// Every sample of a session, oldest first.
    func replaySamples(sessionId: String) async throws -> [ReplaySample]
    /// Every durable event of a session in order, each with the JSON it was stored as: the
    /// replay's timeline sends that as it is (decoding it only to replay the views).
    func replayEvents(sessionId: String) async throws -> [StoredEventText]
}

/// A stored event and its JSON as stored (the event log's encoding: keys sorted).
public struct StoredEventText: Sendable, Equatable {
    public var stored: StoredEvent
    public var json: String

    public init(stored: StoredEvent, json: String) {
        self.stored = stored
        self.json = json
    }
}

/// A batch's samples as one short text: a JSON array of rows, `[ms after the batch's start, kind,
/// …]` with kind 0 a pointer (`page`, x and y in ten-thousandths, `deck` in a room), 1 hidden, 2 a
/// stroke's start. About 20 bytes a sample.
public enum ReplaySampleCoding {
    public static func encode(_ samples: [ReplaySample], from start: Date) -> String {
        var text = "["
        for (index, sample) in samples.enumerated() {
            if index > 0 { text += "," }
            let ms = Int((sample.at.timeIntervalSince(start) * 1000).rounded())
            switch sample.kind {
            case .pointer(let page, let deck, let x, let y):
                text += "[\(ms),0,\(page),\(Int((x * 10_000).rounded())),\(Int((y * 10_000).rounded()))"
                if let deck, let quoted = try? JSONEncoder().encode(deck) {
                    text += "," + String(decoding: quoted, as: UTF8.self)
                }
                text += "]"
            case .hidden: text += "[\(ms),1]"
            case .inkStart: text += "[\(ms),2]"
            }
        }
        return text + "]"
    }

    public static func decode(_ text: String, from start: Date) -> [ReplaySample] {
        guard let rows = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[Any]] else { return [] }
        return rows.compactMap { row in
            guard let ms = (row.first as? NSNumber)?.doubleValue, row.count >= 2, let kind = (row[1] as? NSNumber)?.intValue
            else { return nil }
            let at = start.addingTimeInterval(ms / 1000)
            switch kind {
            case 0:
                guard row.count >= 5, let page = (row[2] as? NSNumber)?.intValue, let x = (row[3] as? NSNumber)?.doubleValue,
                    let y = (row[4] as? NSNumber)?.doubleValue
                else { return nil }
                return ReplaySample(
                    at: at, .pointer(page: page, deck: row.count > 5 ? row[5] as? String : nil, x: x / 10_000, y: y / 10_000))
            case 1: return ReplaySample(at: at, .hidden)
            case 2: return ReplaySample(at: at, .inkStart)
            default: return nil
            }
        }
    }
}
