import Foundation
import PodiumCore

/// What an MP4 export is made from: a session's stored events with their offsets (the replay
/// timeline's `events`), its length, and the presenter's audio takes.
struct ReplayExportSource: Sendable {
    /// An event at its offset, in milliseconds since the session started.
    struct TimedEvent: Sendable {
        var at: Int
        var event: SessionEvent
    }

    /// A take of the presenter's voice: a file ffmpeg reads, and where it starts (milliseconds
    /// since the session started; negative: it began before).
    struct AudioTake: Sendable {
        var file: URL
        var offset: Int
    }

    /// The session's own deck (nil for a room, whose decks are in its events).
    var deckId: String?
    var room: Bool
    /// Milliseconds, start to end (or to now, while live).
    var duration: Int
    var events: [TimedEvent]
    var audio: [AudioTake] = []
}

/// What is on the picture for a while: a page of a deck (part of it when zoomed) with the ink on
/// it, or a plain colour (blanked, a room with nothing on stage).
enum ReplayPicture: Equatable, Sendable {
    case slide(deck: String, page: Int, viewport: Viewport, strokes: [Stroke])
    case plain(color: String)

    /// One name per distinct picture: each is rendered once.
    var key: String {
        switch self {
        case .plain(let color): return "plain \(color)"
        case .slide(let deck, let page, let viewport, let strokes):
            let ids = strokes.map { $0.id.isEmpty ? "\($0.points.count)\($0.color)" : $0.id }.joined(separator: ",")
            return "\(deck) \(page) \(viewport.x) \(viewport.y) \(viewport.w) \(viewport.h) [\(ids)]"
        }
    }
}

/// One stretch of the video with a constant picture: from `start` for `duration` milliseconds.
struct ReplayScene: Equatable, Sendable {
    var start: Int
    var duration: Int
    var picture: ReplayPicture
}

/// Turns a session's events into scenes: the picture a viewer saw (the page, or the deck's page
/// in a room; the zoom; a blank screen; the committed ink on that page, each stroke appearing
/// whole when it was committed), replayed through the same ``SessionSnapshot`` reducer the live
/// clients use. Changes closer together than ``minimumScene`` are coalesced (a page flicked past
/// is not a scene of its own), so a picture is on screen at least that long, except at the end.
enum ReplayScenes {
    static let minimumScene = 500

    static func scenes(of source: ReplayExportSource) -> [ReplayScene] {
        var snapshot = source.room ? SessionSnapshot(room: RoomSnapshot()) : SessionSnapshot()
        let total = max(0, source.duration)
        var changes: [(at: Int, picture: ReplayPicture)] = [(0, picture(snapshot, source))]
        for timed in source.events {
            snapshot.apply(timed.event.change)
            let at = min(max(0, timed.at), total)
            let next = picture(snapshot, source)
            if let last = changes.last, last.picture == next { continue }
            if let last = changes.last, last.at == at {
                changes[changes.count - 1].picture = next
            } else {
                changes.append((at, next))
            }
        }
        // Coalesce: a picture shown for less than the minimum gives way to the one before it
        // (the first picture to the one after it).
        var kept: [(at: Int, picture: ReplayPicture)] = []
        for index in changes.indices {
            let change = changes[index]
            let end = index + 1 < changes.count ? changes[index + 1].at : total
            let isLast = index + 1 == changes.count
            if end - change.at < minimumScene, !isLast {
                if kept.isEmpty, index + 1 < changes.count { changes[index + 1].at = change.at }
                continue
            }
            if let last = kept.last, last.picture == change.picture { continue }
            kept.append(change)
        }
        if kept.isEmpty, let last = changes.last { kept = [(0, last.picture)] }
        var scenes: [ReplayScene] = []
        for (index, change) in kept.enumerated() {
            let end = index + 1 < kept.count ? kept[index + 1].at : total
            if end > change.at {
                scenes.append(ReplayScene(start: change.at, duration: end - change.at, picture: change.picture))
            }
        }
        return scenes
    }

    /// Whether anything was shown at all: a session's deck, or a room's deck on stage once.
    static func showsSlides(_ scenes: [ReplayScene]) -> Bool {
        scenes.contains { if case .slide = $0.picture { true } else { false } }
    }

    static func picture(_ snapshot: SessionSnapshot, _ source: ReplayExportSource) -> ReplayPicture {
        switch snapshot.blank {
        case .black: return .plain(color: "#000000")
        case .white: return .plain(color: "#FFFFFF")
        case .none: break
        }
        let deck: String
        let inkDeck: String?
        if let room = snapshot.room {
            guard let shown = room.deck else { return .plain(color: room.background) }
            deck = shown
            inkDeck = shown
        } else {
            guard let own = source.deckId else { return .plain(color: "#000000") }
            deck = own
            inkDeck = nil
        }
        let strokes = snapshot.strokes.filter { $0.page == snapshot.page && $0.deck == inkDeck }
        return .slide(deck: deck, page: snapshot.page, viewport: snapshot.viewport, strokes: strokes)
    }
}
