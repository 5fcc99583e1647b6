// The shot editor's geometry, pure: hit tests, lasso, partial erase, moving / scaling / rotating
// strokes, the ruler's snap. Points are [x, y, pressure] in normalised shot coordinates; distances
// are measured in "shot units" (x times the aspect ratio, y), so a circle stays round on a 16:9 shot.

import { newId } from './connection.js';

export const MAX_POINTS = 4000;
export const MIN_WIDTH = 0.0005;
export const MAX_WIDTH = 0.2;

const round = (n) => Math.round(n * 100000) / 100000;

export function clampWidth(w) {
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w));
}

/** Distance in shot units from p to the segment a–b (normalised points). */
export function segmentDistance(p, a, b, aspect) {
  const ax = a[0] * aspect;
  const ay = a[1];
  const dx = b[0] * aspect - ax;
  const dy = b[1] - ay;
  const px = p[0] * aspect;
  const py = p[1];
  const len = dx * dx + dy * dy;
  const t = len > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Whether a stroke passes within `radius` shot units of p (its own half width added). */
export function strokeHit(stroke, p, radius, aspect) {
  const pts = stroke.points;
  const r = radius + (stroke.width * aspect) / 2;
  if (pts.length === 1) return Math.hypot((pts[0][0] - p[0]) * aspect, pts[0][1] - p[1]) <= r;
  for (let i = 1; i < pts.length; i += 1) {
    if (segmentDistance(p, pts[i - 1], pts[i], aspect) <= r) return true;
  }
  return false;
}

/** The topmost stroke of a list hit at p, or null. */
export function topHit(strokes, p, radius, aspect) {
  for (let i = strokes.length - 1; i >= 0; i -= 1) if (strokeHit(strokes[i], p, radius, aspect)) return strokes[i];
  return null;
}

/** Point in polygon (even-odd), normalised coordinates. */
export function inPolygon(p, polygon) {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The strokes of which at least half the points lie inside the lasso. */
export function lassoSelect(strokes, polygon) {
  if (polygon.length < 3) return [];
  return strokes.filter((s) => {
    let inside = 0;
    for (const p of s.points) if (inPolygon(p, polygon)) inside += 1;
    return inside > 0 && inside * 2 >= s.points.length;
  });
}

/** The bounding box of strokes, in normalised coordinates (widths included): {x0, y0, x1, y1}. */
export function bounds(strokes, aspect) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const s of strokes) {
    const hx = s.width / 2;
    const hy = (s.width * aspect) / 2;
    for (const p of s.points) {
      x0 = Math.min(x0, p[0] - hx);
      y0 = Math.min(y0, p[1] - hy);
      x1 = Math.max(x1, p[0] + hx);
      y1 = Math.max(y1, p[1] + hy);
    }
  }
  return { x0, y0, x1, y1 };
}

/**
 * A point moved by {dx, dy} (normalised), scaled by `scale` and turned by `rotation` about the
 * centre c (normalised), in shot units so shapes keep their proportions.
 */
export function movePoint(p, c, { dx = 0, dy = 0, scale = 1, rotation = 0 }, aspect) {
  const cos = Math.cos(rotation);
  const sin = Math.sin(rotation);
  const ux = (p[0] - c[0]) * aspect * scale;
  const uy = (p[1] - c[1]) * scale;
  return [(ux * cos - uy * sin) / aspect + c[0] + dx, ux * sin + uy * cos + c[1] + dy];
}

const clampCoord = (v) => Math.min(2, Math.max(-1, v));

/** Copies of strokes with new ids, moved / scaled / rotated (see movePoint). */
export function transformStrokes(strokes, c, move, aspect, author) {
  return strokes.map((s) => ({
    ...s,
    id: newId('k'),
    author: author || s.author,
    width: clampWidth(s.width * (move.scale || 1)),
    points: s.points.map((p) => {
      const [x, y] = movePoint(p, c, move, aspect);
      return [round(clampCoord(x)), round(clampCoord(y)), p[2] ?? 0.5];
    }),
  }));
}

/**
 * Partial erase: the parts of a stroke left once every point within `radius` shot units of the
 * eraser's path is taken out. Returns null when the stroke is untouched, else the pieces (new
 * strokes with new ids; an empty list when nothing is left).
 */
export function eraseFrom(stroke, path, radius, aspect) {
  const r = radius + (stroke.width * aspect) / 2;
  const near = (p) => path.some((q) => Math.hypot((p[0] - q[0]) * aspect, p[1] - q[1]) <= r);
  let touched = stroke.points.some(near);
  for (let i = 1; i < stroke.points.length && !touched; i += 1) {
    touched = path.some((q) => segmentDistance(q, stroke.points[i - 1], stroke.points[i], aspect) <= r);
  }
  if (!touched) return null;
  // Points along every long segment, so that the cut falls where the eraser crossed.
  const step = Math.max(r / 2, 1e-4);
  const dense = [stroke.points[0]];
  for (let i = 1; i < stroke.points.length; i += 1) {
    const a = stroke.points[i - 1];
    const b = stroke.points[i];
    const n = Math.min(200, Math.max(1, Math.ceil(Math.hypot((b[0] - a[0]) * aspect, b[1] - a[1]) / step)));
    for (let k = 1; k <= n; k += 1) {
      const t = k / n;
      dense.push([round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), (a[2] ?? 0.5) + ((b[2] ?? 0.5) - (a[2] ?? 0.5)) * t]);
    }
  }
  const pieces = [];
  let run = [];
  for (const p of dense) {
    if (near(p)) {
      if (run.length >= 2) pieces.push(run);
      run = [];
    } else {
      run.push(p);
    }
  }
  if (run.length >= 2) pieces.push(run);
  return pieces.map((points) => ({ ...stroke, id: newId('k'), points: capPoints(points) }));
}

/** The point p projected on the ruler's edge (a line through `center` at `angle`, in shot units). */
export function snapToRuler(p, ruler, aspect) {
  const cx = ruler.x * aspect;
  const cy = ruler.y;
  const ux = Math.cos(ruler.angle);
  const uy = Math.sin(ruler.angle);
  const t = (p[0] * aspect - cx) * ux + (p[1] - cy) * uy;
  return [(cx + t * ux) / aspect, cy + t * uy, p[2]];
}

/** Distance in shot units from p to the ruler's edge. */
export function rulerDistance(p, ruler, aspect) {
  const s = snapToRuler(p, ruler, aspect);
  return Math.hypot((s[0] - p[0]) * aspect, s[1] - p[1]);
}

/** Points from a to b (a left out) no farther apart than `step` shot units: an eraser's path without gaps. */
export function densify(a, b, step, aspect) {
  const d = Math.hypot((b[0] - a[0]) * aspect, b[1] - a[1]);
  const n = Math.max(1, Math.ceil(d / Math.max(step, 1e-4)));
  const out = [];
  for (let i = 1; i <= n; i += 1) out.push([a[0] + ((b[0] - a[0]) * i) / n, a[1] + ((b[1] - a[1]) * i) / n]);
  return out;
}

/** At most MAX_POINTS points, evenly thinned (the first and last kept). */
export function capPoints(points, limit = MAX_POINTS) {
  if (points.length <= limit) return points;
  const step = (points.length - 1) / (limit - 1);
  return Array.from({ length: limit }, (_, i) => points[Math.round(i * step)]);
}

export { round };
