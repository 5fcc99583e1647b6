import Foundation
import PodiumCore
import Testing

@testable import PodiumServer

/// The pictures of a replay's MP4 from its events: each change of page, zoom, blanking or ink is
/// a scene; changes closer than half a second are merged; an erased stroke leaves the picture;
/// a room shows its background until a deck is on stage.
@Suite("Replay export scenes")
struct ReplayScenesTests {
    static func at(_ ms: Int, _ seq: Int, _ change: SessionChange) -> ReplayExportSource.TimedEvent {
        ReplayExportSource.TimedEvent(at: ms, event: SessionEvent(seq: seq, change: change))
    }

    static let stroke = Stroke(id: "s1", page: 2, tool: .pen, color: "#FF0000", width: 0.01, points: [[0.1, 0.1]])

    static func pages(_ scenes: [ReplayScene]) -> [String] {
        scenes.map { scene in
            switch scene.picture {
            case .plain(let color): "\(scene.start)+\(scene.duration) \(color)"
            case .slide(_, let page, let viewport, let strokes):
                "\(scene.start)+\(scene.duration) p\(page)\(viewport == .fullPage ? "" : " zoom") ink\(strokes.count)"
            }
        }
    }

    @Test func eachChangeIsASceneAndQuickOnesAreMerged() {
        let source = ReplayExportSource(
            deckId: "d1", room: false, duration: 10_000,
            events: [
                Self.at(1000, 1, .page(3)),  // flicked past: shown 200 ms only
                Self.at(1200, 2, .page(2)),
                Self.at(3000, 3, .stroke(Self.stroke)),
                Self.at(4000, 4, .zoom(Viewport(x: 0.25, y: 0.25, w: 0.5, h: 0.5))),
                Self.at(5000, 5, .blank(.black)),
                Self.at(6000, 6, .blank(.none)),
                Self.at(7000, 7, .erased(strokeId: "s1")),
                Self.at(7000, 8, .page(1)),
            ])
        #expect(
            Self.pages(ReplayScenes.scenes(of: source)) == [
                "0+1200 p1 ink0", "1200+1800 p2 ink0", "3000+1000 p2 ink1", "4000+1000 p2 zoom ink1", "5000+1000 #000000",
                "6000+1000 p2 zoom ink1", "7000+3000 p1 ink0",
            ])
    }

    @Test func aRoomShowsItsBackgroundUntilADeckIsOnStage() {
        let deck = RoomDeck(id: "d7", title: "Talk", owner: nil, pages: [])
        let empty = ReplayExportSource(deckId: nil, room: true, duration: 4000, events: [Self.at(500, 1, .deckAdded(deck))])
        #expect(Self.pages(ReplayScenes.scenes(of: empty)) == ["0+4000 #000000"])
        #expect(!ReplayScenes.showsSlides(ReplayScenes.scenes(of: empty)))

        var shown = empty
        shown.events += [Self.at(1000, 2, .background("#1A2B3C")), Self.at(2000, 3, .deckShown(deck: "d7", page: 4))]
        let scenes = ReplayScenes.scenes(of: shown)
        #expect(Self.pages(scenes) == ["0+1000 #000000", "1000+1000 #1A2B3C", "2000+2000 p4 ink0"])
        #expect(ReplayScenes.showsSlides(scenes))
        guard case .slide(let deckId, _, _, _) = scenes.last?.picture else {
            Issue.record("the last scene is a slide")
            return
        }
        #expect(deckId == "d7")
    }

    @Test func aSessionEndingAtOnceIsOneScene() {
        let source = ReplayExportSource(deckId: "d1", room: false, duration: 300, events: [Self.at(100, 1, .page(2))])
        #expect(Self.pages(ReplayScenes.scenes(of: source)) == ["0+300 p2 ink0"])
    }
}
