import Foundation
import PodiumCore

/// `stroke-outline`: how long `StrokeOutline` takes for one long stroke, the 4,000-point
/// scribble that `StrokeOutlineTests.aStrokeOf4000PointsIsHandled` outlines (that test keeps what
/// the outline must be; its time is measured here, where a busy machine makes no test fail).
///
///     swift run -c release --package-path Benchmarks stroke-outline [runs]
///
/// Prints the median, fastest and slowest of `runs` outlines (20 by default) and of as many
/// simplifications, and whether the median is within the goal: one frame at 60 Hz (the test
/// allowed a debug build 2 s; a PDF export outlines every stroke of every shot).
@main
enum StrokeOutlineBenchmark {
    static let goal: Duration = .microseconds(16_667)

    static func main() {
        let runs = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20
        let points = scribble(4000, seed: 11)
        let options = StrokeOutline.Options(size: 2, thinning: 0.5)
        var vertices = 0
        let outline = measure(runs) { vertices = StrokeOutline.outline(points, options: options).count }
        var kept = 0
        let simplify = measure(runs) { kept = StrokeOutline.simplify(points, tolerance: 0.5).count }
        print("stroke-outline: \(points.count) points, \(runs) runs each")
        func line(_ name: String, _ times: (median: Duration, fastest: Duration, slowest: Duration)) -> String {
            "\(name) median \(format(times.median)), fastest \(format(times.fastest)), slowest \(format(times.slowest))"
        }
        print("\(line("outline: ", outline)); \(vertices) vertices")
        print("\(line("simplify:", simplify)); \(kept) points kept")
        print("goal: outline median < \(format(goal)): \(outline.median < goal ? "met" : "NOT MET")")
    }

    static func measure(_ runs: Int, _ body: () -> Void) -> (median: Duration, fastest: Duration, slowest: Duration) {
        let clock = ContinuousClock()
        let times = (0..<max(1, runs)).map { _ in clock.measure(body) }.sorted()
        return (times[times.count / 2], times[0], times[times.count - 1])
    }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// The scribble of `StrokeOutlineTests.scribble`: the same points for the same seed, wandering,
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
}
