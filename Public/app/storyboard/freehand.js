// Storyboard strokes as filled outlines (docs/architecture.md, "Storyboards").
//
// A stroke is points [x, y, pressure]; it is drawn as the polygon around it, whose width follows
// the pressure (thinning), whose path is pulled behind the pen (streamline) and whose jitter is
// smoothed away: the technique of the perfect-freehand library, written anew here because no
// such library is packaged for us.
//
// The server draws the same strokes into PDF exports with its own copy of this algorithm
// (Sources/PodiumCore/Storyboard/StrokeOutline.swift). The two must give the same numbers, so
// both use the same operations in the same order, and no trigonometry (whose last bit differs
// between platforms): arcs are made by repeating one fixed rotation. Tests/Fixtures/
// stroke-outlines.json, written by the Swift side, is what Tests/Browser/test_freehand.py holds
// this module to. Change one, change the other, and write the fixture anew.

/** cos 15° and sin 15°: one step of every arc (12 steps make a half circle). */
const STEP_COS = 0.9659258262890683;
const STEP_SIN = 0.25881904510252074;
const HALF_CIRCLE_STEPS = 12;
/** How quickly simulated pressure follows the speed (a fraction per point, at full speed). */
const PRESSURE_RATE = 0.275;
/**
 * Simulated pressure stays within 0.25…0.75: a mouse's points come about a line's width apart
 * or more, which would otherwise read as full speed and draw every stroke at its thinnest.
 */
const SIMULATED_LOW = 0.25;
const SIMULATED_RANGE = 0.5;
/** The narrowest a stroke gets (a tapered tip, no pressure at full thinning), as a fraction of size. */
const MIN_RADIUS = 0.05;
/** Points closer than this (a fraction of size) to the previous one add nothing but noise. */
const MIN_STEP = 1e-6;

/** How opaque each tool is drawn: the marker is translucent, the pencil a little greyer. */
export const TOOL_ALPHA = Object.freeze({ pen: 1, marker: 0.4, pencil: 0.8 });

/** A finite number, or the default. */
function num(value, fallback) {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

/** The options with defaults filled in and out-of-range values clamped (as the Swift side does). */
function resolve(options) {
  const o = options || {};
  return {
    size: num(o.size, 1),
    thinning: clamp(num(o.thinning, 0.5), -1, 1),
    smoothing: clamp(num(o.smoothing, 0.5), 0, 1),
    streamline: clamp(num(o.streamline, 0.5), 0, 1),
    simulatePressure: o.simulatePressure === true,
    taperStart: Math.max(0, num(o.taperStart, 0)),
    taperEnd: Math.max(0, num(o.taperEnd, 0)),
    last: o.last !== false,
  };
}

/**
 * The path the outline is built around: each input point pulled towards the previous one
 * (streamline), points that do not move dropped, with each point's distance from the previous
 * and the length so far. While drawing (`last` false) the end lags behind the pen, as the pen
 * itself does; a finished stroke ends exactly where the pen lifted.
 */
function track(points, o) {
  const valid = [];
  for (const point of Array.isArray(points) ? points : []) {
    if (!Array.isArray(point) || !Number.isFinite(point[0]) || !Number.isFinite(point[1])) continue;
    valid.push([point[0], point[1], clamp(num(point[2], 0.5), 0, 1)]);
  }
  const xs = [];
  const ys = [];
  const ps = [];
  const ds = [];
  const ls = [];
  if (valid.length === 0) return { xs, ys, ps, ds, ls };
  const t = 0.15 + (1 - o.streamline) * 0.85;
  const minStep = o.size * MIN_STEP;
  let [px, py, pp] = valid[0];
  let length = 0;
  xs.push(px);
  ys.push(py);
  ps.push(pp);
  ds.push(0);
  ls.push(0);
  for (let i = 1; i < valid.length; i += 1) {
    const [ix, iy, ip] = valid[i];
    let x = ix;
    let y = iy;
    let p = ip;
    if (!(o.last && i === valid.length - 1)) {
      x = px + (ix - px) * t;
      y = py + (iy - py) * t;
      p = pp + (ip - pp) * t;
    }
    const dx = x - px;
    const dy = y - py;
    const d = Math.sqrt(dx * dx + dy * dy);
    if (!(d > minStep)) continue;
    length += d;
    xs.push(x);
    ys.push(y);
    ps.push(p);
    ds.push(d);
    ls.push(length);
    px = x;
    py = y;
    pp = p;
  }
  return { xs, ys, ps, ds, ls };
}

/**
 * The radius at each point of the track: the pressure (or, for a mouse, one made up from the
 * speed, fast is light, following it gradually as a hand does) widened or narrowed by thinning, then narrowed towards tapered ends.
 * A stroke shorter than its own width is not tapered (it would vanish).
 */
function radii(path, o) {
  const { ds, ps, ls } = path;
  const n = ls.length;
  const total = ls[n - 1];
  const tapered = n > 1 && total >= o.size;
  const minRadius = o.size * MIN_RADIUS;
  const out = [];
  let simulated = 0.5;
  for (let i = 0; i < n; i += 1) {
    let pressure = ps[i];
    if (o.simulatePressure) {
      const speed = Math.min(1, ds[i] / o.size);
      const target = Math.min(1, 1 - speed);
      simulated = Math.min(1, simulated + (target - simulated) * (speed * PRESSURE_RATE));
      pressure = SIMULATED_LOW + SIMULATED_RANGE * simulated;
    }
    const base = o.size * (0.5 - o.thinning * (0.5 - pressure));
    let factor = 1;
    if (tapered) {
      if (o.taperStart > 0 && ls[i] < o.taperStart) {
        const u = ls[i] / o.taperStart;
        factor = Math.min(factor, u * (2 - u));
      }
      if (o.taperEnd > 0 && total - ls[i] < o.taperEnd) {
        const w = 1 - (total - ls[i]) / o.taperEnd;
        factor = Math.min(factor, 1 - w * w * w);
      }
    }
    out.push(Math.max(minRadius, base * factor));
  }
  return out;
}

/** Adds `count` points of an arc around (x, y), starting one step after the offset (ox, oy), turning clockwise (y up). */
function arc(into, x, y, ox, oy, count) {
  let ax = ox;
  let ay = oy;
  for (let k = 0; k < count; k += 1) {
    const nx = ax * STEP_COS + ay * STEP_SIN;
    const ny = ay * STEP_COS - ax * STEP_SIN;
    ax = nx;
    ay = ny;
    into.push([x + ax, y + ay]);
  }
}

/** Like `arc`, turning the other way (counter-clockwise with y up). */
function arcBack(into, x, y, ox, oy, count) {
  let ax = ox;
  let ay = oy;
  for (let k = 0; k < count; k += 1) {
    const nx = ax * STEP_COS - ay * STEP_SIN;
    const ny = ax * STEP_SIN + ay * STEP_COS;
    ax = nx;
    ay = ny;
    into.push([x + ax, y + ay]);
  }
}

/**
 * The closed polygon around a stroke, `[[x, y], …]` (the last vertex joins the first), in the
 * units of the points, always turning the same way (clockwise with y up, so a negative
 * shoelace area). Work in units where x and y are the same length (pixels, not shot fractions
 * of a wide shot), or round caps come out oval.
 *
 * Options: `size` the diameter at pressure 0.5 (default 1); `thinning` -1…1, how much pressure
 * changes the width (0.5: from half to one and a half times `size`; negative: pressing thins);
 * `smoothing` 0…1, outline points closer than `size × smoothing` are skipped; `streamline` 0…1,
 * how far each point is pulled towards the previous one; `simulatePressure` for devices without
 * pressure (a mouse: fast strokes thin); `taperStart`, `taperEnd` lengths over which the ends
 * narrow; `last` false while the stroke is being drawn (its end is cut flat and lags behind the
 * pen), true once finished (a round cap at the exact last point).
 *
 * One point, repeated points or a stroke that hardly moves is a round dot; no valid point, or a
 * size that is not positive, is `[]`.
 */
export function strokeOutline(points, options = {}) {
  const o = resolve(options);
  if (!(o.size > 0) || !Number.isFinite(o.size)) return [];
  const path = track(points, o);
  const { xs, ys } = path;
  const n = xs.length;
  if (n === 0) return [];
  const rs = radii(path, o);
  if (n === 1) {
    const dot = [[xs[0] + rs[0], ys[0]]];
    arc(dot, xs[0], ys[0], rs[0], 0, 2 * HALF_CIRCLE_STEPS - 1);
    return dot;
  }
  // The direction of travel into each point (the first takes the second's).
  const vx = [0];
  const vy = [0];
  for (let i = 1; i < n; i += 1) {
    vx.push((xs[i] - xs[i - 1]) / path.ds[i]);
    vy.push((ys[i] - ys[i - 1]) / path.ds[i]);
  }
  vx[0] = vx[1];
  vy[0] = vy[1];
  const minDistance = o.size * o.smoothing;
  const minDistance2 = minDistance * minDistance;
  const left = [];
  const right = [];
  const add = (side, x, y, always) => {
    const previous = side[side.length - 1];
    if (always || !previous) {
      side.push([x, y]);
      return;
    }
    const dx = x - previous[0];
    const dy = y - previous[1];
    if (dx * dx + dy * dy > minDistance2) side.push([x, y]);
  };
  for (let i = 0; i < n; i += 1) {
    const x = xs[i];
    const y = ys[i];
    const r = rs[i];
    let ux = vx[i];
    let uy = vy[i];
    if (i > 0 && i < n - 1) {
      if (vx[i] * vx[i + 1] + vy[i] * vy[i + 1] < 0) {
        // A turn sharper than a right angle: a half circle around the corner on each side,
        // so the outline goes round it instead of crossing it with a spike.
        left.push([x - vy[i] * r, y + vx[i] * r]);
        arc(left, x, y, -vy[i] * r, vx[i] * r, HALF_CIRCLE_STEPS);
        right.push([x + vy[i] * r, y - vx[i] * r]);
        arcBack(right, x, y, vy[i] * r, -vx[i] * r, HALF_CIRCLE_STEPS);
        continue;
      }
      // Elsewhere the outline is square to the mean of the directions in and out.
      const sx = vx[i] + vx[i + 1];
      const sy = vy[i] + vy[i + 1];
      const s = Math.sqrt(sx * sx + sy * sy);
      ux = sx / s;
      uy = sy / s;
    }
    const ends = i === 0 || i === n - 1;
    add(left, x - uy * r, y + ux * r, ends);
    add(right, x + uy * r, y - ux * r, ends);
  }
  const polygon = [];
  // The start is round: from the right side, back behind the first point, to the left side.
  arc(polygon, xs[0], ys[0], vy[0] * rs[0], -vx[0] * rs[0], HALF_CIRCLE_STEPS - 1);
  for (const point of left) polygon.push(point);
  if (o.last) {
    // A finished stroke ends round: from the left side, ahead of the last point, to the right.
    const e = n - 1;
    arc(polygon, xs[e], ys[e], -vy[e] * rs[e], vx[e] * rs[e], HALF_CIRCLE_STEPS - 1);
  }
  for (let i = right.length - 1; i >= 0; i -= 1) polygon.push(right[i]);
  return polygon;
}

/** Whether every point has the pressure Pointer Events report for a device without any (0.5), or none. */
function withoutPressure(points) {
  return Array.isArray(points) && points.every((point) => !Array.isArray(point) || point[2] === undefined || point[2] === 0.5);
}

/**
 * The outline options of a tool, for a line `width` wide (in the units the outline is made in).
 * pen: pressure-thinned; marker: flat (no thinning), drawn translucent (TOOL_ALPHA); pencil:
 * thinner, slightly thinned. Given the stroke's points, pressure is simulated from speed when
 * they carry none (a mouse or a finger), so a stroke looks the same wherever it is drawn.
 */
export function toolOptions(tool, width, points = undefined) {
  const simulatePressure = points !== undefined && withoutPressure(points);
  switch (tool) {
    case 'marker':
      return { size: width, thinning: 0, smoothing: 0.5, streamline: 0.6, simulatePressure, taperStart: 0, taperEnd: 0 };
    case 'pencil':
      return { size: width * 0.6, thinning: 0.2, smoothing: 0.4, streamline: 0.4, simulatePressure, taperStart: 0, taperEnd: 0 };
    default: // pen, and tools this version does not know
      return { size: width, thinning: 0.6, smoothing: 0.5, streamline: 0.5, simulatePressure, taperStart: 0, taperEnd: 0 };
  }
}

/** A coordinate for a path: three decimals, enough for pixels. */
function coordinate(value) {
  const rounded = Math.round(value * 1000) / 1000;
  return String(rounded === 0 ? 0 : rounded);
}

/**
 * An SVG path (for `new Path2D(…)`) through an outline: quadratic curves from midpoint to
 * midpoint of its edges with the vertices as control points, which rounds off the polygon's
 * corners without leaving it; closed.
 */
export function pathFromOutline(polygon) {
  const n = Array.isArray(polygon) ? polygon.length : 0;
  if (n === 0) return '';
  const pair = (x, y) => `${coordinate(x)},${coordinate(y)}`;
  if (n < 3) return `M${pair(polygon[0][0], polygon[0][1])}${n === 2 ? `L${pair(polygon[1][0], polygon[1][1])}` : ''}Z`;
  const last = polygon[n - 1];
  let d = `M${pair((last[0] + polygon[0][0]) / 2, (last[1] + polygon[0][1]) / 2)}`;
  for (let i = 0; i < n; i += 1) {
    const a = polygon[i];
    const b = polygon[(i + 1) % n];
    d += `Q${pair(a[0], a[1])} ${pair((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)}`;
  }
  return `${d}Z`;
}

/**
 * Fills one stroke (`{tool, color, width, points}`, points in shot fractions, width a fraction
 * of the shot's width) on a canvas context whose shot is `width` × `height` pixels. The outline
 * is made in pixels, so caps stay round on a wide shot. `last: false` for a stroke still being
 * drawn. The context's state (alpha, fill) is left as it was.
 */
export function drawStroke(ctx, stroke, { width, height, last = true } = {}) {
  if (!ctx || !stroke || !Array.isArray(stroke.points) || !(width > 0) || !(height > 0)) return;
  const points = stroke.points.map((point) => [point[0] * width, point[1] * height, point[2]]);
  const options = { ...toolOptions(stroke.tool, stroke.width * width, stroke.points), last };
  const outline = strokeOutline(points, options);
  if (outline.length === 0) return;
  ctx.save();
  ctx.globalAlpha *= TOOL_ALPHA[stroke.tool] ?? 1;
  ctx.fillStyle = stroke.color || '#000000';
  ctx.fill(new Path2D(pathFromOutline(outline)), 'nonzero');
  ctx.restore();
}

/** How far (in pressure, 0…1) a point's pressure may stray from the line between kept points. */
export const PRESSURE_TOLERANCE = 0.05;

/**
 * Ramer–Douglas–Peucker on [x, y, pressure] points: the fewest points whose path stays within
 * `tolerance` of the original on x and y, and whose pressure stays within `pressureTolerance`
 * of the pressure interpolated between the kept points (so a straight line drawn light, hard,
 * light keeps the hard point; a steady ramp needs only its ends). The farthest point is the one
 * farthest on either measure, each as a share of its tolerance. The ends are always kept. For
 * sending and storing fewer points of a long stroke. A point without pressure counts as 0.5.
 */
export function simplify(points, tolerance, pressureTolerance = PRESSURE_TOLERANCE) {
  const list = Array.isArray(points) ? points : [];
  if (list.length < 3 || !(tolerance >= 0)) return list.slice();
  const pressureLimit = pressureTolerance > 0 ? pressureTolerance : 0;
  const pressure = (point) => num(point[2], 0.5);
  const keep = new Uint8Array(list.length);
  keep[0] = 1;
  keep[list.length - 1] = 1;
  const stack = [[0, list.length - 1]];
  while (stack.length > 0) {
    const [first, end] = stack.pop();
    const ax = list[first][0];
    const ay = list[first][1];
    const ap = pressure(list[first]);
    const dx = list[end][0] - ax;
    const dy = list[end][1] - ay;
    const dp = pressure(list[end]) - ap;
    const length2 = dx * dx + dy * dy;
    let farthest = -1;
    let score = 1;
    for (let i = first + 1; i < end; i += 1) {
      const px = list[i][0] - ax;
      const py = list[i][1] - ay;
      const t = length2 > 0 ? clamp((px * dx + py * dy) / length2, 0, 1) : 0;
      const ex = px - t * dx;
      const ey = py - t * dy;
      const d = Math.sqrt(ex * ex + ey * ey);
      const ep = Math.abs(pressure(list[i]) - (ap + t * dp));
      let s = tolerance > 0 ? d / tolerance : (d > 0 ? Infinity : 0);
      if (pressureLimit > 0) s = Math.max(s, ep / pressureLimit);
      if (s > score) {
        score = s;
        farthest = i;
      }
    }
    if (farthest >= 0) {
      keep[farthest] = 1;
      stack.push([first, farthest], [farthest, end]);
    }
  }
  return list.filter((_, i) => keep[i] === 1);
}
