import Foundation
import Testing

@testable import PodiumCore

/// The outline of a storyboard stroke (`StrokeOutline`): its shape follows the options, and it
/// is always a usable polygon.
@Suite("Stroke outline")
struct StrokeOutlineTests {
    typealias Options = StrokeOutline.Options

    /// A straight stroke along y = 0 from x = 0 to `length`, a point every `step`.
    static func line(length: Double = 100, step: Double = 2, pressure: Double = 0.5) -> [[Double]] {
        stride(from: 0.0, through: length, by: step).map { [$0, 0, pressure] }
    }

    /// Twice the signed area (shoelace): negative for the way outlines turn.
    static func signedArea(_ polygon: [[Double]]) -> Double {
        var sum = 0.0
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            sum += a[0] * b[1] - b[0] * a[1]
        }
        return sum / 2
    }

    /// The largest |y| of the outline's vertices whose x lies in `range`: the half width there,
    /// for a stroke along y = 0.
    static func halfWidth(_ polygon: [[Double]], at range: ClosedRange<Double>) -> Double {
        polygon.filter { range.contains($0[0]) }.map { abs($0[1]) }.max() ?? 0
    }

    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])).squareRoot()
    }

    /// Checks what every outline must be: points of two finite numbers, at least a triangle,
    /// closed (the last vertex is one step of the round start cap from the first: no wider a gap
    /// than that, whatever the stroke), turning the same way as all outlines.
    static func expectUsable(
        _ polygon: [[Double]], size: Double, _ comment: Comment = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(polygon.count >= 3, comment, sourceLocation: sourceLocation)
        #expect(polygon.allSatisfy { $0.count == 2 && $0[0].isFinite && $0[1].isFinite }, comment, sourceLocation: sourceLocation)
        guard polygon.count >= 3 else { return }
        // A 15° step round a radius of at most `size`: 2 sin 7.5° ≈ 0.26 of it.
        let gap = distance(polygon[polygon.count - 1], polygon[0])
        #expect(gap <= 0.27 * size, "a gap of \(gap) closes the outline: \(comment)", sourceLocation: sourceLocation)
        #expect(signedArea(polygon) < 0, comment, sourceLocation: sourceLocation)
    }

    /// A scribble of `count` points, the same every run and on every platform (no library
    /// trigonometry, whose last bits vary, as the fixture is compared byte for byte): wandering,
    /// with repeated points, pauses and sharp turns back.
    static func scribble(_ count: Int, seed: UInt64) -> [[Double]] {
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var x = 50.0
        var y = 50.0
        var dx = 1.0
        var dy = 0.0
        var points: [[Double]] = []
        for _ in 0..<count {
            switch random() {
            case ..<0.05: break  // the pen rests: the same point again
            case ..<0.1:  // back the way it came
                dx = -dx
                dy = -dy
            default:
                // Veer to one side (up to about 30°), then a step of up to 3.
                let veer = (random() - 0.5) * 1.2
                let nx = dx - dy * veer
                let ny = dy + dx * veer
                let length = (nx * nx + ny * ny).squareRoot()
                dx = nx / length
                dy = ny / length
                let step = random() * 3
                x += dx * step
                y += dy * step
            }
            points.append([x, y, random()])
        }
        return points
    }

    // MARK: Dots

    @Test func onePointIsARoundDotOfTheRadiusItsPressureGives() throws {
        for (pressure, thinning) in [(0.5, 0.5), (1.0, 0.5), (0.2, 0.6), (0.8, -0.4), (0.3, 0)] {
            let polygon = StrokeOutline.outline([[10, 20, pressure]], options: Options(size: 8, thinning: thinning))
            let radius = 8 * (0.5 - thinning * (0.5 - pressure))
            #expect(polygon.count == 24)
            for point in polygon {
                #expect(abs(Self.distance(point, [10, 20]) - radius) < 1e-9, "pressure \(pressure), thinning \(thinning)")
            }
            // Evenly spread: every edge the same length, a regular 24-gon.
            let edges = polygon.indices.map { Self.distance(polygon[$0], polygon[($0 + 1) % polygon.count]) }
            #expect(edges.allSatisfy { abs($0 - 2 * radius * sin(Double.pi / 24)) < 1e-9 })
            Self.expectUsable(polygon, size: 8)
        }
    }

    @Test func repeatedPointsAndATinyStrokeAreDotsToo() {
        let centre = [10.0, 20.0]
        let inputs: [(String, [[Double]], Options)] = [
            ("two identical points", [[10, 20, 0.5], [10, 20, 0.5]], Options(size: 8)),
            ("identical points while drawing", [[10, 20, 0.5], [10, 20, 0.5], [10, 20, 0.5]], Options(size: 8, last: false)),
            ("a stroke that hardly moves", [[10, 20, 0.5], [10 + 1e-9, 20, 0.5], [10, 20 - 1e-9, 0.5]], Options(size: 8)),
            ("a simulated-pressure dot", [[10, 20], [10, 20]], Options(size: 8, simulatePressure: true)),
            ("a tapered dot", [[10, 20, 0.5]], Options(size: 8, taperStart: 20, taperEnd: 20)),
        ]
        for (name, points, options) in inputs {
            let polygon = StrokeOutline.outline(points, options: options)
            #expect(polygon.count == 24, "\(name)")
            #expect(polygon.allSatisfy { abs(Self.distance($0, centre) - 4) < 1e-6 }, "\(name)")
            Self.expectUsable(polygon, size: 8, "\(name)")
        }
        // Shorter than its width: a round blob about the size of a dot, not a sliver.
        let short = StrokeOutline.outline([[10, 20, 0.5], [10.5, 20, 0.5], [11, 20.2, 0.5]], options: Options(size: 8))
        Self.expectUsable(short, size: 8, "a short stroke")
        let middle = [10.5, 20.1]
        let reach = short.map { Self.distance($0, middle) }
        #expect(reach.allSatisfy { $0 > 3.4 && $0 < 4.8 }, "\(reach)")
    }

    @Test func nothingToDrawIsAnEmptyPolygon() {
        #expect(StrokeOutline.outline([]).isEmpty)
        #expect(StrokeOutline.outline([[Double.nan, 1, 0.5], [1]]).isEmpty)
        #expect(StrokeOutline.outline([[1, 1, 0.5]], options: Options(size: 0)).isEmpty)
        #expect(StrokeOutline.outline([[1, 1, 0.5]], options: Options(size: -3)).isEmpty)
        // Invalid points among good ones are skipped, bad options fall back to the defaults.
        let polygon = StrokeOutline.outline(
            [[0, 0, .nan], [.infinity, 3, 0.5], [10, 0, 0.5]], options: Options(size: 4, thinning: .nan, smoothing: .infinity))
        Self.expectUsable(polygon, size: 4)
        #expect(abs(Self.halfWidth(polygon, at: -0.5...0.5) - 2) < 1e-9)
    }

    // MARK: Width

    @Test func aStraightLineIsAsWideAsItsSize() {
        let polygon = StrokeOutline.outline(Self.line(), options: Options(size: 10, thinning: 0.5))
        Self.expectUsable(polygon, size: 10)
        let ys = polygon.map { $0[1] }
        let xs = polygon.map { $0[0] }
        #expect(abs(ys.max()! - 5) < 1e-9)
        #expect(abs(ys.min()! + 5) < 1e-9)
        // Round caps reach half the width beyond each end.
        #expect(abs(xs.min()! + 5) < 1e-9)
        #expect(abs(xs.max()! - 105) < 1e-9)
        // The area of a 100 × 10 band and a 24-gon dot of radius 5, both caps together.
        let capsule = 100 * 10 + 0.5 * 24 * 25 * sin(2 * Double.pi / 24)
        #expect(abs(-Self.signedArea(polygon) - capsule) < 1e-6)
        // While drawing, the end is cut square at the last point.
        let drawing = StrokeOutline.outline(Self.line(), options: Options(size: 10, streamline: 0, last: false))
        #expect(abs(drawing.map { $0[0] }.max()! - 100) < 1e-9)
        #expect(abs(Self.halfWidth(drawing, at: 99...101) - 5) < 1e-9)
    }

    @Test func thinningMakesHighPressureWiderThanLow() {
        func width(pressure: Double, thinning: Double) -> Double {
            let polygon = StrokeOutline.outline(
                Self.line(pressure: pressure), options: Options(size: 10, thinning: thinning))
            return 2 * Self.halfWidth(polygon, at: 40...60)
        }
        #expect(abs(width(pressure: 1, thinning: 0.5) - 15) < 1e-9)
        #expect(abs(width(pressure: 0, thinning: 0.5) - 5) < 1e-9)
        #expect(width(pressure: 0.9, thinning: 0.3) > width(pressure: 0.6, thinning: 0.3))
        // Without thinning pressure changes nothing; negative thinning turns it round.
        #expect(abs(width(pressure: 0.9, thinning: 0) - width(pressure: 0.1, thinning: 0)) < 1e-9)
        #expect(width(pressure: 0.9, thinning: -0.5) < width(pressure: 0.1, thinning: -0.5))
        // Within one stroke: the outline widens where the pressure rises.
        let rising = Self.line().map { [$0[0], $0[1], $0[0] / 100] }
        let polygon = StrokeOutline.outline(rising, options: Options(size: 10, thinning: 0.8, streamline: 0))
        #expect(Self.halfWidth(polygon, at: 80...90) > Self.halfWidth(polygon, at: 10...20) + 3)
    }

    @Test func simulatedPressureThinsFastStrokes() {
        func width(step: Double) -> Double {
            let points = Self.line(length: 200, step: step).map { [$0[0], $0[1]] }
            let polygon = StrokeOutline.outline(
                points, options: Options(size: 10, thinning: 0.6, simulatePressure: true))
            return 2 * Self.halfWidth(polygon, at: 150...190)
        }
        // Pressure 0.25 at full speed, 0.75 at a crawl: 0.7 and 1.3 times the size at this thinning.
        #expect(width(step: 10) < 7.6)  // fast: light
        #expect(width(step: 0.5) > 12.2)  // slow: heavy
        #expect(width(step: 3) > 7.5 && width(step: 3) < 12)
    }

    // MARK: Streamline and taper

    @Test func streamlinePullsPointsTowardsThePreviousOnes() {
        // Along x, then a right angle up.
        let points = Self.line() + stride(from: 2.0, through: 100, by: 2).map { [100, $0, 0.5] }
        // Each point of the path the outline follows is its input point pulled towards the
        // path's previous point: at 0.8, only 0.32 of the way from there.
        let options = Options(size: 4, smoothing: 0, streamline: 0.8, last: false)
        let path = StrokeOutline.Track(points, .init(options))
        #expect(path.xs.count == points.count)
        for i in 1..<path.xs.count {
            #expect(abs(path.xs[i] - (path.xs[i - 1] + (points[i][0] - path.xs[i - 1]) * 0.32)) < 1e-9)
            #expect(abs(path.ys[i] - (path.ys[i - 1] + (points[i][1] - path.ys[i - 1]) * 0.32)) < 1e-9)
        }
        // So the end of a stroke being drawn falls behind the pen, and the corner is cut.
        let none = StrokeOutline.outline(points, options: Options(size: 4, smoothing: 0, streamline: 0, last: false))
        let strong = StrokeOutline.outline(points, options: options)
        #expect(abs(none.map { $0[1] }.max()! - 100) < 1e-9)
        #expect(strong.map { $0[1] }.max()! < 97)
        let outerCorner = { (polygon: [[Double]]) in polygon.filter { $0[0] > 101 && $0[1] < 3 }.count }
        #expect(outerCorner(none) > 0)
        #expect(outerCorner(strong) == 0)
        // A finished stroke still ends exactly where the pen lifted (and its cap beyond).
        let finished = StrokeOutline.outline(points, options: Options(size: 4, streamline: 0.8))
        #expect(abs(finished.map { $0[1] }.max()! - 102) < 1e-9)
    }

    @Test func taperNarrowsTheEnds() {
        let options = Options(size: 10, thinning: 0, smoothing: 0, streamline: 0, taperStart: 30, taperEnd: 30)
        let polygon = StrokeOutline.outline(Self.line(), options: options)
        Self.expectUsable(polygon, size: 10)
        let middle = Self.halfWidth(polygon, at: 40...60)
        #expect(abs(middle - 5) < 1e-9)
        #expect(Self.halfWidth(polygon, at: -1...3) < 1.5)
        #expect(Self.halfWidth(polygon, at: 97...101) < 1.5)
        #expect(Self.halfWidth(polygon, at: 8...12) < Self.halfWidth(polygon, at: 18...22))
        #expect(Self.halfWidth(polygon, at: 88...92) < Self.halfWidth(polygon, at: 78...82))
        // Only the tapered end narrows.
        let start = StrokeOutline.outline(Self.line(), options: Options(size: 10, thinning: 0, taperStart: 30))
        #expect(Self.halfWidth(start, at: -1...3) < 1.5)
        #expect(abs(Self.halfWidth(start, at: 97...101) - 5) < 1e-9)
    }

    // MARK: Always a usable polygon

    @Test func outlinesAreFiniteClosedAndTurnOneWay() {
        let cases: [(String, [[Double]], Options)] = [
            ("a line", Self.line(), Options(size: 10)),
            ("a line being drawn", Self.line(), Options(size: 10, last: false)),
            ("back and forth", [[0, 0, 0.5], [50, 0, 0.5], [100, 0, 0.5], [50, 1, 0.5], [0, 1, 0.5]], Options(size: 10)),
            ("a zigzag", StrokeOutlineFixtureTests.zigzag(), Options(size: 4, streamline: 0)),
            ("a scribble", Self.scribble(600, seed: 7), Options(size: 3, thinning: 0.7, taperStart: 10, taperEnd: 10)),
            ("a mouse scribble", Self.scribble(600, seed: 8).map { [$0[0], $0[1]] }, Options(size: 3, simulatePressure: true)),
            // No streamline: the resting pen's repeated points reach the outline as they are.
            ("a scribble as it came", Self.scribble(600, seed: 9), Options(size: 3, smoothing: 0, streamline: 0)),
            ("full thinning, no pressure", Self.line(pressure: 0), Options(size: 6, thinning: 1)),
        ]
        for (name, points, options) in cases {
            Self.expectUsable(StrokeOutline.outline(points, options: options), size: options.size * 1.5, "\(name)")
        }
    }

    @Test func theAreaGrowsWithTheSize() {
        let points = Self.scribble(300, seed: 3)
        let areas = [1.0, 2, 4, 8].map { size in
            -Self.signedArea(StrokeOutline.outline(points, options: Options(size: size, streamline: 0.3)))
        }
        #expect(zip(areas, areas.dropFirst()).allSatisfy { $0 < $1 }, "\(areas)")
        let dots = [1.0, 2, 4].map { -Self.signedArea(StrokeOutline.outline([[0, 0, 0.5]], options: Options(size: $0))) }
        #expect(abs(dots[1] / dots[0] - 4) < 1e-9 && abs(dots[2] / dots[1] - 4) < 1e-9)
    }

    /// How long it takes is measured by `Benchmarks/stroke-outline.sh` (docs/performance.md), not here.
    @Test func aStrokeOf4000PointsIsOutlinedAllRoundAndSimplified() {
        let points = Self.scribble(4000, seed: 11)
        let polygon = StrokeOutline.outline(points, options: Options(size: 2, thinning: 0.5))
        Self.expectUsable(polygon, size: 3)
        // It goes round the whole stroke: the outline's box holds every point of it.
        let xs = polygon.map { $0[0] }
        let ys = polygon.map { $0[1] }
        let (across, down) = (xs.min()!...xs.max()!, ys.min()!...ys.max()!)
        #expect(points.allSatisfy { across.contains($0[0]) && down.contains($0[1]) })
        #expect(StrokeOutline.simplify(points, tolerance: 0.5).count < points.count)
    }

    // MARK: Simplify and the tools

    @Test func simplifyKeepsTheEndsAndDropsCollinearPoints() {
        let straight = Self.line(length: 10, step: 1).enumerated().map { [$1[0], $1[1], Double($0) / 10] }
        #expect(StrokeOutline.simplify(straight, tolerance: 0.01) == [straight[0], straight[10]])
        // A corner, and a bump larger than the tolerance, stay, with their pressure.
        let bent = [[0, 0, 0.1], [1, 0, 0.2], [2, 0, 0.3], [2, 1, 0.4], [2, 2, 0.5], [3, 2.5, 0.6], [4, 2, 0.7]]
        #expect(
            StrokeOutline.simplify(bent, tolerance: 0.1) == [
                [0, 0, 0.1], [2, 0, 0.3], [2, 2, 0.5], [3, 2.5, 0.6], [4, 2, 0.7],
            ])
        #expect(StrokeOutline.simplify(bent, tolerance: 0.6) == [[0, 0, 0.1], [2, 0, 0.3], [2, 2, 0.5], [4, 2, 0.7]])
        // A closed loop (the ends meet) keeps its far side.
        let loop = [[0, 0, 0.5], [5, 0, 0.5], [5, 5, 0.5], [0, 5, 0.5], [0, 0, 0.5]]
        #expect(StrokeOutline.simplify(loop, tolerance: 0.1) == loop)
        #expect(StrokeOutline.simplify([[1, 1, 0.5], [2, 2, 0.5]], tolerance: 1) == [[1, 1, 0.5], [2, 2, 0.5]])
        #expect(StrokeOutline.simplify(straight, tolerance: -1) == straight)
    }

    @Test func simplifyKeepsThePressureOfAStraightLine() {
        // A stylus line drawn light, hard, light: straight on x and y, so only the pressure says
        // where it was pressed hardest. The hardest point stays, with its pressure.
        let pressed = (0...20).map { i -> [Double] in
            let t = Double(i) / 20
            return [0.2 + 0.6 * t, 0.5, 0.2 + 0.7 * (1 - abs(2 * t - 1))]
        }
        let kept = StrokeOutline.simplify(pressed, tolerance: 0.0002)
        #expect(kept.count >= 3)
        #expect(kept.contains(pressed[10]))
        #expect(kept.map { $0[2] }.max() == pressed[10][2])
        // Interpolating between the kept points misses no point's pressure by more than the limit.
        for point in pressed {
            let after = kept.firstIndex { $0[0] >= point[0] } ?? kept.count - 1
            let before = max(0, after - 1)
            let a = kept[before]
            let b = kept[after]
            let t = b[0] > a[0] ? (point[0] - a[0]) / (b[0] - a[0]) : 0
            #expect(abs(a[2] + t * (b[2] - a[2]) - point[2]) <= StrokeOutline.pressureTolerance + 1e-9)
        }
        // A steady ramp needs only its ends; without a pressure limit the line is two points.
        let ramp = (0...20).map { [Double($0), 0, Double($0) / 20] }
        #expect(StrokeOutline.simplify(ramp, tolerance: 0.01) == [ramp[0], ramp[20]])
        #expect(StrokeOutline.simplify(pressed, tolerance: 0.0002, pressureTolerance: 0) == [pressed[0], pressed[20]])
    }

    @Test func theToolsDiffer() {
        let pen = StrokeOutline.options(for: "pen", width: 10)
        let marker = StrokeOutline.options(for: "marker", width: 10)
        let pencil = StrokeOutline.options(for: "pencil", width: 10)
        #expect(pen.size == 10 && pen.thinning > 0.3)
        #expect(marker.size == 10 && marker.thinning == 0)
        #expect(pencil.size < pen.size && pencil.thinning > 0 && pencil.thinning < pen.thinning)
        #expect(StrokeOutline.options(for: "crayon", width: 10) == pen)
        #expect((StrokeOutline.toolAlpha["marker"] ?? 1) < 1 && StrokeOutline.toolAlpha["pen"] == 1)
        // A mouse's points (no pressure, or 0.5 throughout) get pressure from speed.
        #expect(StrokeOutline.options(for: "pen", width: 10, points: [[0, 0, 0.5], [1, 1, 0.5]]).simulatePressure)
        #expect(StrokeOutline.options(for: "pen", width: 10, points: [[0, 0], [1, 1]]).simulatePressure)
        #expect(!StrokeOutline.options(for: "pen", width: 10, points: [[0, 0, 0.5], [1, 1, 0.7]]).simulatePressure)
        #expect(!pen.simulatePressure)
    }
}

/// The outlines the browser's `Public/app/storyboard/freehand.js` is held to
/// (`Tests/JS/freehand.test.mjs`, `make test-js`): strokes of every kind with their options and the outline
/// this side makes of them, the tools' options, and simplified strokes.
///
/// The fixture is committed, so the JavaScript test needs no Swift. This test fails when the core
/// would write something else: run it with `PODIUM_UPDATE_FIXTURES=1` to write the file anew,
/// then `make test-js`, which tells whether `freehand.js` still agrees.
@Suite("Stroke outline fixture")
struct StrokeOutlineFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stroke-outlines.json")

    struct Outline: Encodable {
        var name: String
        var points: [[Double]]
        var options: StrokeOutline.Options
        var outline: [[Double]]
    }

    struct Tool: Encodable {
        var tool: String
        var width: Double
        var points: [[Double]]?
        var options: StrokeOutline.Options
    }

    struct Simplified: Encodable {
        var name: String
        var points: [[Double]]
        var tolerance: Double
        var simplified: [[Double]]
    }

    struct Fixture: Encodable {
        var note =
            "Written by Tests/PodiumCoreTests/StrokeOutlineTests.swift (PODIUM_UPDATE_FIXTURES=1); read by Tests/JS/freehand.test.mjs."
        var outlines: [Outline]
        var tools: [Tool]
        var simplified: [Simplified]
    }

    typealias Options = StrokeOutline.Options

    /// A spiral outwards, a twelfth of a radian a point (by a fixed rotation: no library
    /// trigonometry, see `scribble`), its pressure rising and falling.
    static func spiral(_ count: Int) -> [[Double]] {
        let (c, s) = (0.9965297867005595, 0.08323691620031025)  // cos and sin of 1/12
        var (ux, uy) = (1.0, 0.0)
        var points: [[Double]] = []
        for i in 0..<count {
            let t = Double(i) / 12
            let radius = 10 + 2 * t
            let wave = Double(i % 60) / 60
            points.append([200 + ux * radius, 150 + uy * radius, 0.3 + 0.4 * 4 * wave * (1 - wave)])
            (ux, uy) = (ux * c - uy * s, ux * s + uy * c)
        }
        return points
    }

    /// Thirty points up and down. Its own function: as a closure inside the cases' literal, it
    /// cost the type checker two seconds each time.
    static func zigzag() -> [[Double]] {
        (0..<30).map { index -> [Double] in [Double(index) * 3, index % 2 == 0 ? 0 : 20, 0.7] }
    }

    static func fixtureData() -> Fixture {
        let line = StrokeOutlineTests.line()
        let scribble = StrokeOutlineTests.scribble(150, seed: 5)
        let mouse = StrokeOutlineTests.scribble(120, seed: 6).map { [$0[0], $0[1], 0.5] }
        // A stroke as the editor stores it (shot fractions) on a 1280 × 720 shot, as drawStroke does.
        let shot = (width: 1280.0, height: 720.0)
        let stored = (0..<80).map { i -> [Double] in
            let t = Double(i) / 79
            return [0.2 + 0.6 * t, 0.5 + 1.2 * t * (1 - t) * (1 - 2 * t), 0.2 + 0.7 * t]
        }
        let inPixels = stored.map { [$0[0] * shot.width, $0[1] * shot.height, $0[2]] }
        var cases: [(String, [[Double]], Options)] = [
            ("one point", [[10, 20, 0.7]], Options(size: 8)),
            ("two identical points", [[10, 20, 0.5], [10, 20, 0.5]], Options(size: 8, last: false)),
            ("a short stroke", [[10, 20, 0.5], [10.5, 20, 0.6], [11, 20.2, 0.7]], Options(size: 8)),
            ("a line", line, Options(size: 10)),
            ("a line being drawn", line, Options(size: 10, streamline: 0.8, last: false)),
            ("a pressure ramp", line.map { [$0[0], $0[1], $0[0] / 100] }, Options(size: 10, thinning: 0.8)),
            ("negative thinning", line.map { [$0[0], $0[1], $0[0] / 100] }, Options(size: 10, thinning: -0.7)),
            ("back and forth", [[0, 0, 0.5], [50, 0, 0.5], [100, 0, 0.5], [50, 1, 0.5], [0, 1, 0.5]], Options(size: 10)),
            ("a zigzag", StrokeOutlineFixtureTests.zigzag(), Options(size: 4, streamline: 0)),
            ("tapered", line, Options(size: 10, thinning: 0, taperStart: 30, taperEnd: 30)),
            ("a spiral", spiral(150), Options(size: 6, thinning: 0.6, smoothing: 0.3, streamline: 0.4)),
            ("a scribble", scribble, Options(size: 3, thinning: 0.7, smoothing: 0.6, taperStart: 10, taperEnd: 20)),
            ("a scribble being drawn", scribble, Options(size: 3, thinning: -0.3, smoothing: 0, streamline: 1, last: false)),
            ("a mouse", mouse, Options(size: 5, thinning: 0.6, simulatePressure: true)),
            ("points without pressure", mouse.map { [$0[0], $0[1]] }, Options(size: 5, thinning: 0.6, simulatePressure: true)),
        ]
        for tool in ["pen", "marker", "pencil"] {
            cases.append(
                (
                    "a \(tool) stroke on a 1280 × 720 shot", inPixels,
                    StrokeOutline.options(for: tool, width: 0.004 * shot.width, points: stored)
                ))
        }
        let outlines = cases.map { name, points, options in
            Outline(name: name, points: points, options: options, outline: StrokeOutline.outline(points, options: options))
        }
        let tools = [("pen", nil), ("marker", nil), ("pencil", nil), ("pen", mouse), ("pencil", stored), ("crayon", nil)].map {
            Tool(tool: $0.0, width: 0.01, points: $0.1, options: StrokeOutline.options(for: $0.0, width: 0.01, points: $0.1))
        }
        let simplified = [
            ("a line", line, 0.01), ("a scribble", scribble, 0.5), ("a spiral", spiral(150), 0.2),
            ("a stroke of a shot", stored, 0.002),
            (
                "a straight line drawn light, hard, light",
                (0...40).map { i -> [Double] in
                    let t = Double(i) / 40
                    return [0.2 + 0.6 * t, 0.5, 0.2 + 0.7 * (1 - abs(2 * t - 1))]
                }, 0.0002
            ),
        ].map { Simplified(name: $0.0, points: $0.1, tolerance: $0.2, simplified: StrokeOutline.simplify($0.1, tolerance: $0.2)) }
        return Fixture(outlines: outlines, tools: tools, simplified: simplified)
    }

    static func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(fixtureData())
        data.append(0x0A)
        return data
    }

    @Test func theCommittedFixtureIsWhatTheCoreProduces() throws {
        let data = try Self.encoded()
        try expectCommittedFixture(data, at: Self.fixture, suite: "StrokeOutlineFixtureTests", jsCheck: "freehand.js")
    }
}
