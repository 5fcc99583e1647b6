/// Storyboard strokes as filled outlines: the polygon around a stroke's points `[x, y, pressure]`,
/// whose width follows the pressure (thinning), whose path is pulled behind the pen (streamline)
/// and whose jitter is smoothed away (the technique of the perfect-freehand library).
///
/// The browser draws strokes with `Public/app/storyboard/freehand.js`; this is the same
/// algorithm for the server (PDF export), and the two give the same numbers: the same operations
/// in the same order, and no trigonometry (whose last bit differs between platforms), arcs being
/// made by repeating one fixed rotation. `Tests/Fixtures/stroke-outlines.json`, written from this
/// file by `StrokeOutlineFixtureTests`, is what the browser test holds the JavaScript to. Change
/// one, change the other, and write the fixture anew.
public enum StrokeOutline {
    /// How a stroke is outlined. Lengths are in the units of the points.
    public struct Options: Sendable, Equatable, Encodable {
        /// The diameter at pressure 0.5.
        public var size: Double
        /// -1...1: how much pressure changes the width (0.5: from half to one and a half times
        /// `size`; negative: pressing thins).
        public var thinning: Double
        /// 0...1: outline points closer than `size × smoothing` to the previous one are skipped.
        public var smoothing: Double
        /// 0...1: how far each point is pulled towards the previous one.
        public var streamline: Double
        /// For devices without pressure (a mouse): pressure made up from the speed, fast is light.
        public var simulatePressure: Bool
        /// The lengths over which the ends narrow (0: not tapered).
        public var taperStart: Double
        public var taperEnd: Double
        /// False while the stroke is being drawn (its end is cut flat and lags behind the pen),
        /// true once finished (a round cap at the exact last point).
        public var last: Bool

        public init(
            size: Double = 1, thinning: Double = 0.5, smoothing: Double = 0.5, streamline: Double = 0.5,
            simulatePressure: Bool = false, taperStart: Double = 0, taperEnd: Double = 0, last: Bool = true
        ) {
            self.size = size
            self.thinning = thinning
            self.smoothing = smoothing
            self.streamline = streamline
            self.simulatePressure = simulatePressure
            self.taperStart = taperStart
            self.taperEnd = taperEnd
            self.last = last
        }
    }

    /// How opaque each tool is drawn: the marker is translucent, the pencil a little greyer.
    public static let toolAlpha: [String: Double] = ["pen": 1, "marker": 0.4, "pencil": 0.8]

    /// cos 15° and sin 15°: one step of every arc (12 steps make a half circle).
    static let stepCos = 0.9659258262890683
    static let stepSin = 0.25881904510252074
    static let halfCircleSteps = 12
    /// How quickly simulated pressure follows the speed (a fraction per point, at full speed).
    static let pressureRate = 0.275
    /// Simulated pressure stays within 0.25...0.75: a mouse's points come about a line's width
    /// apart or more, which would otherwise read as full speed and draw every stroke at its thinnest.
    static let simulatedLow = 0.25
    static let simulatedRange = 0.5
    /// The narrowest a stroke gets (a tapered tip, no pressure at full thinning), as a fraction of size.
    static let minRadius = 0.05
    /// Points closer than this (a fraction of size) to the previous one add nothing but noise.
    static let minStep = 1e-6

    /// The options of a tool for a line `width` wide (in the units the outline is made in).
    /// pen: pressure-thinned; marker: flat (no thinning), drawn translucent (`toolAlpha`);
    /// pencil: thinner, slightly thinned. Given the stroke's points, pressure is simulated from
    /// speed when they carry none (every pressure 0.5, what Pointer Events report for a mouse or
    /// a finger), so a stroke looks the same wherever it is drawn.
    public static func options(for tool: String, width: Double, points: [[Double]]? = nil) -> Options {
        let simulate = points.map { $0.allSatisfy { $0.count < 3 || $0[2] == 0.5 } } ?? false
        switch tool {
        case "marker":
            return Options(size: width, thinning: 0, smoothing: 0.5, streamline: 0.6, simulatePressure: simulate)
        case "pencil":
            return Options(size: width * 0.6, thinning: 0.2, smoothing: 0.4, streamline: 0.4, simulatePressure: simulate)
        default:  // pen, and tools this version does not know
            return Options(size: width, thinning: 0.6, smoothing: 0.5, streamline: 0.5, simulatePressure: simulate)
        }
    }

    /// The closed polygon around a stroke, `[[x, y]]` (the last vertex joins the first), in the
    /// units of the points, always turning the same way (clockwise with y up: a negative
    /// shoelace area). Work in units where x and y are the same length (points of a page, not
    /// fractions of a wide shot), or round caps come out oval.
    ///
    /// One point, repeated points or a stroke that hardly moves is a round dot; no valid point,
    /// or a size that is not positive, is `[]`.
    public static func outline(_ points: [[Double]], options: Options = Options()) -> [[Double]] {
        let o = Resolved(options)
        guard o.size > 0, o.size.isFinite else { return [] }
        let path = Track(points, o)
        let xs = path.xs
        let ys = path.ys
        let n = xs.count
        if n == 0 { return [] }
        let rs = radii(path, o)
        if n == 1 {
            var dot = [[xs[0] + rs[0], ys[0]]]
            arc(&dot, xs[0], ys[0], rs[0], 0, 2 * halfCircleSteps - 1)
            return dot
        }
        // The direction of travel into each point (the first takes the second's).
        var vx = [0.0]
        var vy = [0.0]
        vx.reserveCapacity(n)
        vy.reserveCapacity(n)
        for i in 1..<n {
            vx.append((xs[i] - xs[i - 1]) / path.ds[i])
            vy.append((ys[i] - ys[i - 1]) / path.ds[i])
        }
        vx[0] = vx[1]
        vy[0] = vy[1]
        let minDistance = o.size * o.smoothing
        let minDistance2 = minDistance * minDistance
        var left: [[Double]] = []
        var right: [[Double]] = []
        func add(_ side: inout [[Double]], _ x: Double, _ y: Double, _ always: Bool) {
            guard !always, let previous = side.last else {
                side.append([x, y])
                return
            }
            let dx = x - previous[0]
            let dy = y - previous[1]
            if dx * dx + dy * dy > minDistance2 { side.append([x, y]) }
        }
        for i in 0..<n {
            let x = xs[i]
            let y = ys[i]
            let r = rs[i]
            var ux = vx[i]
            var uy = vy[i]
            if i > 0 && i < n - 1 {
                if vx[i] * vx[i + 1] + vy[i] * vy[i + 1] < 0 {
                    // A turn sharper than a right angle: a half circle around the corner on each
                    // side, so the outline goes round it instead of crossing it with a spike.
                    left.append([x - vy[i] * r, y + vx[i] * r])
                    arc(&left, x, y, -vy[i] * r, vx[i] * r, halfCircleSteps)
                    right.append([x + vy[i] * r, y - vx[i] * r])
                    arcBack(&right, x, y, vy[i] * r, -vx[i] * r, halfCircleSteps)
                    continue
                }
                // Elsewhere the outline is square to the mean of the directions in and out.
                let sx = vx[i] + vx[i + 1]
                let sy = vy[i] + vy[i + 1]
                let s = (sx * sx + sy * sy).squareRoot()
                ux = sx / s
                uy = sy / s
            }
            let ends = i == 0 || i == n - 1
            add(&left, x - uy * r, y + ux * r, ends)
            add(&right, x + uy * r, y - ux * r, ends)
        }
        var polygon: [[Double]] = []
        polygon.reserveCapacity(left.count + right.count + 2 * halfCircleSteps)
        // The start is round: from the right side, back behind the first point, to the left side.
        arc(&polygon, xs[0], ys[0], vy[0] * rs[0], -vx[0] * rs[0], halfCircleSteps - 1)
        polygon.append(contentsOf: left)
        if o.last {
            // A finished stroke ends round: from the left side, ahead of the last point, to the right.
            let e = n - 1
            arc(&polygon, xs[e], ys[e], -vy[e] * rs[e], vx[e] * rs[e], halfCircleSteps - 1)
        }
        polygon.append(contentsOf: right.reversed())
        return polygon
    }

    /// How far (in pressure, 0…1) a point's pressure may stray from the line between kept points.
    public static let pressureTolerance = 0.05

    /// Ramer–Douglas–Peucker on `[x, y, pressure]` points: the fewest points whose path stays
    /// within `tolerance` of the original on x and y, and whose pressure stays within
    /// `pressureTolerance` of the pressure interpolated between the kept points (so a straight
    /// line drawn light, hard, light keeps the hard point). The farthest point is the one
    /// farthest on either measure, each as a share of its tolerance. The ends are always kept.
    /// A point without pressure counts as 0.5. The same as `simplify` in freehand.js.
    public static func simplify(
        _ points: [[Double]], tolerance: Double, pressureTolerance: Double = pressureTolerance
    ) -> [[Double]] {
        guard points.count >= 3, tolerance >= 0, points.allSatisfy({ $0.count >= 2 }) else { return points }
        let pressureLimit = pressureTolerance > 0 ? pressureTolerance : 0
        func pressure(_ point: [Double]) -> Double { point.count > 2 ? finite(point[2], 0.5) : 0.5 }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        while let (first, end) = stack.popLast() {
            let ax = points[first][0]
            let ay = points[first][1]
            let ap = pressure(points[first])
            let dx = points[end][0] - ax
            let dy = points[end][1] - ay
            let dp = pressure(points[end]) - ap
            let length2 = dx * dx + dy * dy
            var farthest = -1
            var score = 1.0
            for i in (first + 1)..<max(first + 1, end) {
                let px = points[i][0] - ax
                let py = points[i][1] - ay
                let t = length2 > 0 ? clamp((px * dx + py * dy) / length2, 0, 1) : 0
                let ex = px - t * dx
                let ey = py - t * dy
                let d = (ex * ex + ey * ey).squareRoot()
                let ep = abs(pressure(points[i]) - (ap + t * dp))
                var s = tolerance > 0 ? d / tolerance : (d > 0 ? Double.infinity : 0)
                if pressureLimit > 0 { s = max(s, ep / pressureLimit) }
                if s > score {
                    score = s
                    farthest = i
                }
            }
            if farthest >= 0 {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, end))
            }
        }
        return points.indices.filter { keep[$0] }.map { points[$0] }
    }

    // MARK: - The steps

    /// The options with non-finite values replaced by the defaults and the rest clamped, as the
    /// JavaScript does.
    struct Resolved {
        var size, thinning, smoothing, streamline, taperStart, taperEnd: Double
        var simulatePressure, last: Bool

        init(_ options: Options) {
            size = finite(options.size, 1)
            thinning = clamp(finite(options.thinning, 0.5), -1, 1)
            smoothing = clamp(finite(options.smoothing, 0.5), 0, 1)
            streamline = clamp(finite(options.streamline, 0.5), 0, 1)
            simulatePressure = options.simulatePressure
            taperStart = max(0, finite(options.taperStart, 0))
            taperEnd = max(0, finite(options.taperEnd, 0))
            last = options.last
        }
    }

    /// The path the outline is built around: each input point pulled towards the previous one
    /// (streamline), points that do not move dropped, with each point's distance from the
    /// previous and the length so far. While drawing (`last` false) the end lags behind the pen;
    /// a finished stroke ends exactly where the pen lifted.
    struct Track {
        var xs: [Double] = []
        var ys: [Double] = []
        var ps: [Double] = []
        var ds: [Double] = []
        var ls: [Double] = []

        init(_ points: [[Double]], _ o: Resolved) {
            let valid: [(Double, Double, Double)] = points.compactMap { point in
                guard point.count >= 2, point[0].isFinite, point[1].isFinite else { return nil }
                let pressure = point.count >= 3 ? finite(point[2], 0.5) : 0.5
                return (point[0], point[1], clamp(pressure, 0, 1))
            }
            guard let start = valid.first else { return }
            let t = 0.15 + (1 - o.streamline) * 0.85
            let minStep = o.size * StrokeOutline.minStep
            var (px, py, pp) = start
            var length = 0.0
            xs = [px]
            ys = [py]
            ps = [pp]
            ds = [0]
            ls = [0]
            for i in valid.indices.dropFirst() {
                let (ix, iy, ip) = valid[i]
                var x = ix
                var y = iy
                var p = ip
                if !(o.last && i == valid.count - 1) {
                    x = px + (ix - px) * t
                    y = py + (iy - py) * t
                    p = pp + (ip - pp) * t
                }
                let dx = x - px
                let dy = y - py
                let d = (dx * dx + dy * dy).squareRoot()
                if !(d > minStep) { continue }
                length += d
                xs.append(x)
                ys.append(y)
                ps.append(p)
                ds.append(d)
                ls.append(length)
                px = x
                py = y
                pp = p
            }
        }
    }

    /// The radius at each point of the track: the pressure (or one made up from the speed)
    /// widened or narrowed by thinning, then narrowed towards tapered ends. A stroke shorter
    /// than its own width is not tapered (it would vanish).
    static func radii(_ path: Track, _ o: Resolved) -> [Double] {
        let n = path.ls.count
        let total = path.ls[n - 1]
        let tapered = n > 1 && total >= o.size
        let smallest = o.size * minRadius
        var out: [Double] = []
        out.reserveCapacity(n)
        var simulated = 0.5
        for i in 0..<n {
            var pressure = path.ps[i]
            if o.simulatePressure {
                let speed = min(1, path.ds[i] / o.size)
                let target = min(1, 1 - speed)
                simulated = min(1, simulated + (target - simulated) * (speed * pressureRate))
                pressure = simulatedLow + simulatedRange * simulated
            }
            let base = o.size * (0.5 - o.thinning * (0.5 - pressure))
            var factor = 1.0
            if tapered {
                if o.taperStart > 0 && path.ls[i] < o.taperStart {
                    let u = path.ls[i] / o.taperStart
                    factor = min(factor, u * (2 - u))
                }
                if o.taperEnd > 0 && total - path.ls[i] < o.taperEnd {
                    let w = 1 - (total - path.ls[i]) / o.taperEnd
                    factor = min(factor, 1 - w * w * w)
                }
            }
            out.append(max(smallest, base * factor))
        }
        return out
    }

    /// Appends `count` points of an arc around (x, y), starting one step after the offset
    /// (ox, oy), turning clockwise (y up).
    static func arc(_ into: inout [[Double]], _ x: Double, _ y: Double, _ ox: Double, _ oy: Double, _ count: Int) {
        var ax = ox
        var ay = oy
        for _ in 0..<count {
            let nx = ax * stepCos + ay * stepSin
            let ny = ay * stepCos - ax * stepSin
            ax = nx
            ay = ny
            into.append([x + ax, y + ay])
        }
    }

    /// Like `arc`, turning the other way (counter-clockwise with y up).
    static func arcBack(_ into: inout [[Double]], _ x: Double, _ y: Double, _ ox: Double, _ oy: Double, _ count: Int) {
        var ax = ox
        var ay = oy
        for _ in 0..<count {
            let nx = ax * stepCos - ay * stepSin
            let ny = ax * stepSin + ay * stepCos
            ax = nx
            ay = ny
            into.append([x + ax, y + ay])
        }
    }

    /// A finite number, or the default.
    static func finite(_ value: Double, _ fallback: Double) -> Double {
        value.isFinite ? value : fallback
    }

    static func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double {
        min(high, max(low, value))
    }
}
