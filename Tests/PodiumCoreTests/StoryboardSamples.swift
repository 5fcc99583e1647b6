import PodiumCore

/// Small storyboards and strokes for the storyboard tests.
enum Sample {
    static func stroke(_ id: String, author: String = "", x: Double = 0.1, color: String = "#112233") -> SketchStroke {
        SketchStroke(
            id: id, author: author, tool: .pen, color: color, width: 0.01, points: [[x, 0.2, 0.5], [x + 0.1, 0.3, 0.6]])
    }

    static func layer(_ id: String, strokes: [String] = [], author: String = "u1") -> SketchLayer {
        SketchLayer(id: id, name: "Layer \(id)", strokes: strokes.map { stroke($0, author: author) })
    }

    static func shot(_ id: String, number: String = "", layers: [SketchLayer]? = nil) -> Shot {
        Shot(id: id, number: number, layers: layers ?? [layer("\(id)L1")])
    }

    /// Scene s1 with shots a (1), b (2); scene s2 with shot c (3). Shot a has layers aL1 (strokes
    /// a1, a2, a3) and aL2 (stroke a4); the others one empty layer each.
    static var board: Storyboard {
        Storyboard(scenes: [
            StoryScene(
                id: "s1", title: "Opening",
                shots: [
                    shot("a", number: "1", layers: [layer("aL1", strokes: ["a1", "a2", "a3"]), layer("aL2", strokes: ["a4"])]),
                    shot("b", number: "2"),
                ]),
            StoryScene(id: "s2", title: "Chase", shots: [shot("c", number: "3")]),
        ])
    }
}

extension Storyboard {
    var shotIDs: [[String]] { scenes.map { $0.shots.map(\.id) } }
    var numbers: [String] { allShots.map(\.number) }

    func layerIDs(_ shot: String) -> [String] { self.shot(id: shot)?.layers.map(\.id) ?? [] }

    func layer(_ shot: String, _ layer: String) -> SketchLayer? { self.shot(id: shot)?.layers.first { $0.id == layer } }

    func strokeIDs(_ shot: String, _ layer: String) -> [String] { self.layer(shot, layer)?.strokes.map(\.id) ?? [] }
}
