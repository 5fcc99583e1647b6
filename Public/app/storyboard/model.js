// The storyboard model (docs/protocol.md, "Storyboards"): a project's content, its edits and
// their inverses, and the client's reconciliation with the server's order.
//
// This mirrors Sources/PodiumCore/Storyboard/ rule for rule: the same JSON in and out, the same
// error codes, checked in the same order (the first broken rule decides the code).
// Tests/Browser/test_storyboard_model.py replays Tests/Fixtures/storyboard-edits.json (written by
// the core) through applyEdit and compares the content, the inverse or the error after every edit.
//
// Content: {scenes: [{id, title, shots: [{id, number, duration, dialogue, action, notes,
// background, layers: [{id, name, visible, locked, opacity, group?, transform: {x, y, scale,
// rotation}, strokes: [{id, author, tool, color, width, points: [[x, y, pressure]]}], image?: {blob,
// width, height}}]}]}]} (image: a reference picture under the strokes, a guide the exports leave out).
// Everything here is pure: applyEdit returns a new object and never changes its input.

export const LIMITS = Object.freeze({
  scenes: 200,
  shots: 2000,
  layersPerShot: 50,
  strokesPerLayer: 10000,
  pointsPerStroke: 4000,
  textLength: 5000,
  titleLength: 200,
  numberLength: 16,
  authorLength: 128,
  idLength: 64,
  copyIdLength: 48,
  durations: [0.1, 600],
  widths: [0.0005, 0.2],
  coordinates: [-1, 2],
  pressures: [0, 1],
  opacities: [0, 1],
  scales: [0.05, 20],
  offsets: [-10, 10],
  rotations: [-100, 100],
  imageSide: 16384,
});

export const TOOLS = ['pen', 'marker', 'pencil'];

/** An edit that does not apply; `code` is the core's (unknown_shot, layer_locked, …). */
export class StoryboardError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'StoryboardError';
    this.code = code;
  }
}

const fail = (code, message) => { throw new StoryboardError(code, message); };
const MESSAGES = {
  unknown_scene: 'There is no such scene.',
  unknown_shot: 'There is no such shot.',
  unknown_layer: 'There is no such layer in this shot.',
  unknown_stroke: 'There is no such stroke in this layer.',
  duplicate_id: 'That id is taken already.',
  layer_locked: 'This layer is locked.',
  last_layer: 'A shot keeps at least one layer.',
};
const refuse = (code) => fail(code, MESSAGES[code]);
const invalid = (message) => fail('invalid_edit', message);
const tooLarge = (message) => fail('too_large', message);

// ---------------------------------------------------------------- rules

/** Characters as the core counts them (Unicode scalars: code points). */
const length = (text) => [...text].length;
const given = (value) => value !== undefined && value !== null;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

export function isId(text) {
  return typeof text === 'string' && ID.test(text);
}

function checkId(id, what) {
  if (!isId(id)) invalid(`${what} id must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -.`);
}

function checkText(text, limit, what) {
  if (typeof text !== 'string') invalid(`${what} must be text.`);
  if (length(text) > limit) tooLarge(`${what} has at most ${limit} characters.`);
}

function checkColor(text, what) {
  if (typeof text !== 'string' || !COLOR.test(text)) invalid(`${what} must be a colour as #RRGGBB.`);
}

function inRange(value, [low, high]) {
  return typeof value === 'number' && Number.isFinite(value) && value >= low && value <= high;
}

function checkNumber(value, range, what) {
  if (!inRange(value, range)) invalid(`${what} must lie within ${range[0]}...${range[1]}.`);
}

function checkIndex(index, optional = false) {
  if (optional && !given(index)) return;
  if (!Number.isInteger(index)) invalid('An index must be a whole number.');
}

function checkIdList(list, what) {
  if (!Array.isArray(list) || !list.every((id) => typeof id === 'string')) invalid(`${what} must be a list of ids.`);
}

/** A stroke as the core keeps it (author '' when left out); throws when it breaks a rule. */
export function cleanStroke(stroke) {
  if (!stroke || typeof stroke !== 'object') invalid('A stroke must be an object.');
  checkId(stroke.id, 'A stroke');
  const author = given(stroke.author) ? stroke.author : '';
  checkText(author, LIMITS.authorLength, "A stroke's author");
  if (!TOOLS.includes(stroke.tool)) invalid('A stroke\'s tool is pen, marker or pencil.');
  checkColor(stroke.color, "A stroke's colour");
  checkNumber(stroke.width, LIMITS.widths, "A stroke's width");
  const points = stroke.points;
  if (!Array.isArray(points) || points.length === 0) invalid('A stroke has at least one point.');
  if (points.length > LIMITS.pointsPerStroke) tooLarge(`A stroke has at most ${LIMITS.pointsPerStroke} points.`);
  for (const point of points) {
    if (!Array.isArray(point) || point.length !== 3 || !inRange(point[0], LIMITS.coordinates)
      || !inRange(point[1], LIMITS.coordinates) || !inRange(point[2], LIMITS.pressures)) {
      invalid('A point is [x, y, pressure]: x and y within -1...2, pressure within 0...1.');
    }
  }
  return {
    id: stroke.id, author, tool: stroke.tool, color: stroke.color, width: stroke.width,
    points: points.map((point) => point.slice()),
  };
}

function cleanTransform(transform) {
  if (!transform || typeof transform !== 'object') invalid('A layer needs a transform.');
  checkNumber(transform.x, LIMITS.offsets, "A layer's x offset");
  checkNumber(transform.y, LIMITS.offsets, "A layer's y offset");
  checkNumber(transform.scale, LIMITS.scales, "A layer's scale");
  checkNumber(transform.rotation, LIMITS.rotations, "A layer's rotation");
  return { x: transform.x, y: transform.y, scale: transform.scale, rotation: transform.rotation };
}

const BLOB = /^[0-9a-f]{64}\.(jpg|png|webp)$/;

/** A layer's reference image ({blob, width, height}) as the core keeps it; throws when it breaks a rule. */
function cleanImage(image) {
  if (!image || typeof image !== 'object' || typeof image.blob !== 'string' || !BLOB.test(image.blob)) {
    invalid('A reference image is a blob named by its SHA-256 and .jpg, .png or .webp.');
  }
  const side = (value) => Number.isInteger(value) && value >= 1 && value <= LIMITS.imageSide;
  if (!side(image.width) || !side(image.height)) {
    invalid(`A reference image's width and height are 1 to ${LIMITS.imageSide} pixels.`);
  }
  return { blob: image.blob, width: image.width, height: image.height };
}

/** A layer as the core keeps it; throws when it or a stroke breaks a rule. */
export function cleanLayer(layer) {
  if (!layer || typeof layer !== 'object') invalid('A layer must be an object.');
  checkId(layer.id, 'A layer');
  checkText(layer.name, LIMITS.titleLength, "A layer's name");
  if (typeof layer.visible !== 'boolean' || typeof layer.locked !== 'boolean') invalid('visible and locked are true or false.');
  checkNumber(layer.opacity, LIMITS.opacities, "A layer's opacity");
  if (given(layer.group)) checkId(layer.group, 'A group');
  const transform = cleanTransform(layer.transform);
  const image = given(layer.image) ? cleanImage(layer.image) : null;
  if (!Array.isArray(layer.strokes)) invalid('A layer needs its strokes.');
  if (layer.strokes.length > LIMITS.strokesPerLayer) tooLarge(`A layer has at most ${LIMITS.strokesPerLayer} strokes.`);
  const strokes = layer.strokes.map(cleanStroke);
  const clean = { id: layer.id, name: layer.name, visible: layer.visible, locked: layer.locked, opacity: layer.opacity };
  if (given(layer.group)) clean.group = layer.group;
  const out = { ...clean, transform, strokes };
  if (image) out.image = image;
  return out;
}

/** A shot as the core keeps it (number '' when left out); throws when anything in it breaks a rule. */
export function cleanShot(shot) {
  if (!shot || typeof shot !== 'object') invalid('A shot must be an object.');
  checkId(shot.id, 'A shot');
  const number = given(shot.number) ? shot.number : '';
  checkText(number, LIMITS.numberLength, "A shot's number");
  checkNumber(shot.duration, LIMITS.durations, "A shot's duration");
  checkText(shot.dialogue, LIMITS.textLength, 'Dialogue');
  checkText(shot.action, LIMITS.textLength, 'Action');
  checkText(shot.notes, LIMITS.textLength, 'Notes');
  checkColor(shot.background, "A shot's background");
  if (!Array.isArray(shot.layers) || shot.layers.length === 0) invalid('A shot has at least one layer.');
  if (shot.layers.length > LIMITS.layersPerShot) tooLarge(`A shot has at most ${LIMITS.layersPerShot} layers.`);
  const layerIds = new Set();
  const strokeIds = new Set();
  const layers = shot.layers.map((layer) => {
    const clean = cleanLayer(layer);
    if (layerIds.has(clean.id)) refuse('duplicate_id');
    layerIds.add(clean.id);
    for (const stroke of clean.strokes) {
      if (strokeIds.has(stroke.id)) refuse('duplicate_id');
      strokeIds.add(stroke.id);
    }
    return clean;
  });
  return {
    id: shot.id, number, duration: shot.duration, dialogue: shot.dialogue, action: shot.action, notes: shot.notes,
    background: shot.background, layers,
  };
}

// ---------------------------------------------------------------- content and lookups

/** A new project's content: one scene "Scene 1" with one shot "1" (3 s, white) with one layer "Layer 1". */
export function emptyStoryboard({ scene, shot, layer }) {
  return {
    scenes: [{
      id: scene, title: 'Scene 1',
      shots: [newShot(shot, layer, '1')],
    }],
  };
}

/** A blank shot with one empty layer (number '' lets the model number it). */
export function newShot(id, layerId, number = '') {
  return {
    id, number, duration: 3, dialogue: '', action: '', notes: '', background: '#ffffff',
    layers: [newLayer(layerId, 'Layer 1')],
  };
}

export function newLayer(id, name) {
  return {
    id, name, visible: true, locked: false, opacity: 1, transform: { x: 0, y: 0, scale: 1, rotation: 0 }, strokes: [],
  };
}

/** Every shot in story order. */
export function allShots(storyboard) {
  return storyboard.scenes.flatMap((scene) => scene.shots);
}

/** Where a shot is: {scene, shot} indexes, or null. */
export function shotPosition(storyboard, id) {
  for (let s = 0; s < storyboard.scenes.length; s++) {
    const i = storyboard.scenes[s].shots.findIndex((shot) => shot.id === id);
    if (i >= 0) return { scene: s, shot: i };
  }
  return null;
}

export function findShot(storyboard, id) {
  const at = shotPosition(storyboard, id);
  return at ? storyboard.scenes[at.scene].shots[at.shot] : null;
}

export function findScene(storyboard, id) {
  return storyboard.scenes.find((scene) => scene.id === id) || null;
}

export function sceneOfShot(storyboard, id) {
  const at = shotPosition(storyboard, id);
  return at ? storyboard.scenes[at.scene] : null;
}

/** Up to `before` shots before a shot and `after` after it, across scenes, each list nearest first. */
export function neighbours(storyboard, shotId, before, after) {
  const shots = allShots(storyboard);
  const index = shots.findIndex((shot) => shot.id === shotId);
  if (index < 0) return { before: [], after: [] };
  return {
    before: shots.slice(Math.max(0, index - Math.max(0, before)), index).reverse(),
    after: shots.slice(index + 1, index + 1 + Math.max(0, after)),
  };
}

// ---------------------------------------------------------------- shot numbers

function leadingInteger(number) {
  const digits = /^[0-9]+/.exec(number);
  return digits ? parseInt(digits[0], 10) : null;
}

function letterValue(text) {
  if (!/^[A-Z]{1,4}$/.test(text)) return null;
  let value = 0;
  for (const letter of text) value = value * 26 + (letter.charCodeAt(0) - 64);
  return value;
}

function letters(value) {
  let text = '';
  while (value > 0) {
    value -= 1;
    text = String.fromCharCode(65 + (value % 26)) + text;
    value = Math.floor(value / 26);
  }
  return text;
}

/** The number a new shot gets: one more than the greatest leading number of any shot ("1" when none). */
export function nextShotNumber(storyboard) {
  let highest = 0;
  for (const shot of allShots(storyboard)) {
    const value = leadingInteger(shot.number);
    if (value !== null && value > highest) highest = value;
  }
  return String(highest + 1);
}

/** The number of a copy of a shot numbered `number`: "2" → "2A", then "2B"… ("Z" → "AA"). */
export function copyNumber(number, storyboard) {
  const base = number.replace(/[A-Z]+$/, '');
  let highest = 0;
  for (const shot of allShots(storyboard)) {
    if (!shot.number.startsWith(base)) continue;
    const value = letterValue(shot.number.slice(base.length));
    if (value !== null && value > highest) highest = value;
  }
  return base + letters(highest + 1);
}

// ---------------------------------------------------------------- applying edits

const clamp = (index, upper) => Math.min(Math.max(index, 0), upper);

/** The id of a copy's layer or stroke: "<copy>-<old id>", keeping the end of the old id when too long. */
function derivedId(copy, old) {
  const room = LIMITS.idLength - length(copy) - 1;
  const chars = [...old];
  return `${copy}-${chars.length <= room ? old : chars.slice(chars.length - room).join('')}`;
}

function stampStroke(stroke, author) {
  return stroke.author === '' ? { ...stroke, author } : stroke;
}

function stampShot(shot, author) {
  const layers = shot.layers.map((layer) => ({ ...layer, strokes: layer.strokes.map((s) => stampStroke(s, author)) }));
  return { ...shot, layers };
}

function strokeIdsOf(shot) {
  const ids = new Set();
  for (const layer of shot.layers) for (const stroke of layer.strokes) ids.add(stroke.id);
  return ids;
}

/** A working copy: every path is copied before it changes, so the input is never touched. */
class Draft {
  constructor(storyboard) {
    this.source = storyboard;
    this.scenes = storyboard.scenes.slice();
  }

  get storyboard() { return { scenes: this.scenes }; }

  sceneIndex(id) {
    const s = this.scenes.findIndex((scene) => scene.id === id);
    if (s < 0) refuse('unknown_scene');
    return s;
  }

  shotPosition(id) {
    const at = shotPosition(this.storyboard, id);
    if (!at) refuse('unknown_shot');
    return [at.scene, at.shot];
  }

  layerIndex(id, s, i) {
    const l = this.scenes[s].shots[i].layers.findIndex((layer) => layer.id === id);
    if (l < 0) refuse('unknown_layer');
    return l;
  }

  shotCount() { return this.scenes.reduce((sum, scene) => sum + scene.shots.length, 0); }

  checkShotRoom(count) {
    if (this.shotCount() + count > LIMITS.shots) tooLarge(`A project has at most ${LIMITS.shots} shots.`);
  }

  /** Validates shots that join the project: each whole, ids new and distinct, room for them. */
  checkNewShots(shots) {
    const ids = new Set(allShots(this.storyboard).map((shot) => shot.id));
    const clean = shots.map((shot) => {
      const c = cleanShot(shot);
      if (ids.has(c.id)) refuse('duplicate_id');
      ids.add(c.id);
      return c;
    });
    this.checkShotRoom(shots.length);
    return clean;
  }

  numbered(shot, others) {
    if (shot.number !== '') return shot;
    const number = nextShotNumber({ scenes: [...this.scenes, { id: '', title: '', shots: others }] });
    return { ...shot, number };
  }

  scene(s) {
    const scene = { ...this.scenes[s], shots: this.scenes[s].shots.slice() };
    this.scenes[s] = scene;
    return scene;
  }

  shot(s, i) {
    const scene = this.scene(s);
    const shot = { ...scene.shots[i], layers: scene.shots[i].layers.slice() };
    scene.shots[i] = shot;
    return shot;
  }

  layer(s, i, l) {
    const shot = this.shot(s, i);
    const layer = { ...shot.layers[l], strokes: shot.layers[l].strokes.slice() };
    shot.layers[l] = layer;
    return layer;
  }
}

/**
 * Applies an edit made by `author` to a storyboard: returns {storyboard, inverse}, the new content
 * and the edit that undoes this one. Throws a StoryboardError (with the core's `code`) when the
 * edit does not apply; the input is never changed.
 */
export function applyEdit(storyboard, edit, author) {
  if (!edit || typeof edit !== 'object') invalid('An edit must be an object.');
  const d = new Draft(storyboard);
  const inverse = apply(d, edit, author);
  return { storyboard: d.storyboard, inverse };
}

function apply(d, e, author) {
  switch (e.op) {
    case 'addScene': {
      checkId(e.scene, 'A scene');
      checkText(e.title, LIMITS.titleLength, "A scene's title");
      checkIndex(e.index, true);
      if (d.scenes.some((scene) => scene.id === e.scene)) refuse('duplicate_id');
      if (d.scenes.length >= LIMITS.scenes) tooLarge(`A project has at most ${LIMITS.scenes} scenes.`);
      if (given(e.shots) && !Array.isArray(e.shots)) invalid('shots must be a list.');
      const added = d.checkNewShots(e.shots || []);
      for (let i = 0; i < added.length; i++) added[i] = d.numbered(stampShot(added[i], author), added.slice(0, i));
      d.scenes.splice(clamp(given(e.index) ? e.index : d.scenes.length, d.scenes.length), 0,
        { id: e.scene, title: e.title, shots: added });
      return { op: 'deleteScene', scene: e.scene };
    }
    case 'renameScene': {
      const s = d.sceneIndex(e.scene);
      checkText(e.title, LIMITS.titleLength, "A scene's title");
      const old = d.scenes[s].title;
      d.scenes[s] = { ...d.scenes[s], title: e.title };
      return { op: 'renameScene', scene: e.scene, title: old };
    }
    case 'deleteScene': {
      const s = d.sceneIndex(e.scene);
      const [old] = d.scenes.splice(s, 1);
      const inverse = { op: 'addScene', scene: e.scene, title: old.title, index: s };
      if (old.shots.length) inverse.shots = old.shots;
      return inverse;
    }
    case 'moveScene': {
      const s = d.sceneIndex(e.scene);
      checkIndex(e.index);
      const [scene] = d.scenes.splice(s, 1);
      d.scenes.splice(clamp(e.index, d.scenes.length), 0, scene);
      return { op: 'moveScene', scene: e.scene, index: s };
    }
    case 'addShot': {
      const s = d.sceneIndex(e.scene);
      checkIndex(e.index, true);
      const [clean] = d.checkNewShots([e.shot]);
      const shot = d.numbered(stampShot(clean, author), []);
      const scene = d.scene(s);
      scene.shots.splice(clamp(given(e.index) ? e.index : scene.shots.length, scene.shots.length), 0, shot);
      return { op: 'deleteShot', shot: shot.id };
    }
    case 'duplicateShot': {
      const [s, i] = d.shotPosition(e.shot);
      checkId(e.newShot, 'A shot');
      if (length(e.newShot) > LIMITS.copyIdLength) invalid(`The id of a copy has at most ${LIMITS.copyIdLength} characters.`);
      if (shotPosition(d.storyboard, e.newShot)) refuse('duplicate_id');
      d.checkShotRoom(1);
      const original = d.scenes[s].shots[i];
      const layerIds = new Set();
      const strokeIds = new Set();
      const layers = original.layers.map((layer) => {
        const id = derivedId(e.newShot, layer.id);
        if (layerIds.has(id)) refuse('duplicate_id');
        layerIds.add(id);
        const strokes = layer.strokes.map((stroke) => {
          const strokeId = derivedId(e.newShot, stroke.id);
          if (strokeIds.has(strokeId)) refuse('duplicate_id');
          strokeIds.add(strokeId);
          return { ...stroke, id: strokeId };
        });
        return { ...layer, id, strokes };
      });
      const copy = { ...original, id: e.newShot, number: copyNumber(original.number, d.storyboard), layers };
      d.scene(s).shots.splice(i + 1, 0, copy);
      return { op: 'deleteShot', shot: e.newShot };
    }
    case 'deleteShot': {
      const [s, i] = d.shotPosition(e.shot);
      const scene = d.scene(s);
      const [old] = scene.shots.splice(i, 1);
      return { op: 'addShot', scene: scene.id, index: i, shot: old };
    }
    case 'moveShot': {
      const [s, i] = d.shotPosition(e.shot);
      const target = d.sceneIndex(e.scene);
      checkIndex(e.index);
      const from = d.scene(s);
      const [shot] = from.shots.splice(i, 1);
      const to = target === s ? from : d.scene(target);
      to.shots.splice(clamp(e.index, to.shots.length), 0, shot);
      return { op: 'moveShot', shot: e.shot, scene: from.id, index: i };
    }
    case 'updateShot': {
      const [s, i] = d.shotPosition(e.shot);
      if (given(e.duration)) checkNumber(e.duration, LIMITS.durations, "A shot's duration");
      if (given(e.dialogue)) checkText(e.dialogue, LIMITS.textLength, 'Dialogue');
      if (given(e.action)) checkText(e.action, LIMITS.textLength, 'Action');
      if (given(e.notes)) checkText(e.notes, LIMITS.textLength, 'Notes');
      if (given(e.background)) checkColor(e.background, "A shot's background");
      const old = d.scenes[s].shots[i];
      const shot = d.shot(s, i);
      const inverse = { op: 'updateShot', shot: e.shot };
      for (const key of ['duration', 'dialogue', 'action', 'notes', 'background']) {
        if (!given(e[key])) continue;
        inverse[key] = old[key];
        shot[key] = e[key];
      }
      return inverse;
    }
    case 'renumberShots': {
      const wanted = new Map();
      if (given(e.numbers)) {
        if (typeof e.numbers !== 'object' || Array.isArray(e.numbers)) invalid('numbers maps shot ids to numbers.');
        for (const id of Object.keys(e.numbers).sort()) {
          d.shotPosition(id);
          const number = e.numbers[id];
          if (typeof number !== 'string' || number === '') invalid("A shot's number cannot be empty.");
          checkText(number, LIMITS.numberLength, "A shot's number");
          wanted.set(id, number);
        }
      } else {
        allShots(d.storyboard).forEach((shot, offset) => wanted.set(shot.id, String(offset + 1)));
      }
      const old = {};
      d.scenes.forEach((scene, s) => {
        scene.shots.forEach((shot, i) => {
          const number = wanted.get(shot.id);
          if (number === undefined || (!given(e.numbers) && number === shot.number)) return;
          old[shot.id] = shot.number;
          const copy = d.scene(s);
          copy.shots[i] = { ...copy.shots[i], number };
        });
      });
      return { op: 'renumberShots', numbers: old };
    }
    case 'restoreShot': {
      if (!e.shot || typeof e.shot !== 'object') invalid('A shot must be an object.');
      const [s, i] = d.shotPosition(e.shot.id);
      const clean = cleanShot(e.shot);
      const old = d.scenes[s].shots[i];
      const restored = stampShot(clean, author);
      if (restored.number === '') restored.number = old.number;
      d.scene(s).shots[i] = restored;
      return { op: 'restoreShot', shot: old };
    }
    case 'addLayer': {
      const [s, i] = d.shotPosition(e.shot);
      const layer = cleanLayer(e.layer);
      checkIndex(e.index, true);
      const shot = d.scenes[s].shots[i];
      if (shot.layers.some((other) => other.id === layer.id)) refuse('duplicate_id');
      const existing = strokeIdsOf(shot);
      const seen = new Set();
      for (const stroke of layer.strokes) {
        if (existing.has(stroke.id) || seen.has(stroke.id)) refuse('duplicate_id');
        seen.add(stroke.id);
      }
      if (shot.layers.length >= LIMITS.layersPerShot) tooLarge(`A shot has at most ${LIMITS.layersPerShot} layers.`);
      const added = { ...layer, strokes: layer.strokes.map((stroke) => stampStroke(stroke, author)) };
      const copy = d.shot(s, i);
      copy.layers.splice(clamp(given(e.index) ? e.index : copy.layers.length, copy.layers.length), 0, added);
      return { op: 'deleteLayer', shot: e.shot, layer: layer.id };
    }
    case 'updateLayer': {
      const [s, i] = d.shotPosition(e.shot);
      const l = d.layerIndex(e.layer, s, i);
      if (given(e.name)) checkText(e.name, LIMITS.titleLength, "A layer's name");
      if (given(e.visible) && typeof e.visible !== 'boolean') invalid('visible is true or false.');
      if (given(e.locked) && typeof e.locked !== 'boolean') invalid('locked is true or false.');
      if (given(e.opacity)) checkNumber(e.opacity, LIMITS.opacities, "A layer's opacity");
      const old = d.scenes[s].shots[i].layers[l];
      let transform;
      if (given(e.transform)) {
        transform = cleanTransform(e.transform);
        // Locked before and after: the drawing stays put. (Unlocking and moving at once is fine.)
        if (old.locked && e.locked !== false) refuse('layer_locked');
      }
      const layer = d.layer(s, i, l);
      const inverse = { op: 'updateLayer', shot: e.shot, layer: e.layer };
      for (const key of ['name', 'visible', 'locked', 'opacity']) {
        if (!given(e[key])) continue;
        inverse[key] = old[key];
        layer[key] = e[key];
      }
      if (transform) {
        inverse.transform = old.transform;
        layer.transform = transform;
      }
      return inverse;
    }
    case 'moveLayer': {
      const [s, i] = d.shotPosition(e.shot);
      const l = d.layerIndex(e.layer, s, i);
      checkIndex(e.index);
      const shot = d.shot(s, i);
      const [layer] = shot.layers.splice(l, 1);
      shot.layers.splice(clamp(e.index, shot.layers.length), 0, layer);
      return { op: 'moveLayer', shot: e.shot, layer: e.layer, index: l };
    }
    case 'deleteLayer': {
      const [s, i] = d.shotPosition(e.shot);
      const l = d.layerIndex(e.layer, s, i);
      if (d.scenes[s].shots[i].layers.length <= 1) refuse('last_layer');
      const [old] = d.shot(s, i).layers.splice(l, 1);
      return { op: 'addLayer', shot: e.shot, layer: old, index: l };
    }
    case 'groupLayers': {
      const [s, i] = d.shotPosition(e.shot);
      checkId(e.group, 'A group');
      checkIdList(e.layers, 'layers');
      if (e.layers.length === 0) invalid('A group has at least one layer.');
      const members = e.layers.map((id) => d.layerIndex(id, s, i));
      if (new Set(e.layers).size !== e.layers.length) invalid('A layer is listed twice.');
      const layers = d.scenes[s].shots[i].layers;
      if (layers.some((layer) => layer.group === e.group)) refuse('duplicate_id');
      if (!members.every((l) => !given(layers[l].group))) invalid('A layer in a group must be ungrouped first.');
      const shot = d.shot(s, i);
      for (const l of members) shot.layers[l] = { ...shot.layers[l], group: e.group };
      return { op: 'ungroupLayers', shot: e.shot, group: e.group };
    }
    case 'ungroupLayers': {
      const [s, i] = d.shotPosition(e.shot);
      const layers = d.scenes[s].shots[i].layers;
      const members = [];
      layers.forEach((layer, l) => { if (given(layer.group) && layer.group === e.group) members.push(l); });
      if (members.length === 0) refuse('unknown_layer');
      const shot = d.shot(s, i);
      for (const l of members) {
        const { group, ...rest } = shot.layers[l];
        shot.layers[l] = rest;
      }
      return { op: 'groupLayers', shot: e.shot, layers: members.map((l) => layers[l].id), group: e.group };
    }
    case 'addStrokes':
      if (!Array.isArray(e.strokes)) invalid('strokes must be a list.');
      return replaceStrokes(d, e, [], e.strokes, e.indexes, author, 'add');
    case 'removeStrokes':
      checkIdList(e.strokes, 'strokes');
      return replaceStrokes(d, e, e.strokes, [], undefined, author, 'remove');
    case 'replaceStrokes':
      checkIdList(e.remove, 'remove');
      if (!Array.isArray(e.add)) invalid('add must be a list.');
      return replaceStrokes(d, e, e.remove, e.add, e.indexes, author, 'replace');
    default:
      return invalid(`Unknown storyboard edit op "${e.op}".`);
  }
}

/** The three stroke edits: remove some strokes, then put others in (in the place of the first
 *  removed one, on top, or at their `indexes`). */
function replaceStrokes(d, e, remove, add, indexes, author, kind) {
  const [s, i] = d.shotPosition(e.shot);
  const l = d.layerIndex(e.layer, s, i);
  const layer = d.scenes[s].shots[i].layers[l];
  if (layer.locked) refuse('layer_locked');
  if (new Set(remove).size !== remove.length) invalid('A stroke is listed twice.');
  const removedAt = remove.map((id) => {
    const k = layer.strokes.findIndex((stroke) => stroke.id === id);
    if (k < 0) refuse('unknown_stroke');
    return k;
  });
  const clean = add.map(cleanStroke);
  if (given(indexes)) {
    if (!Array.isArray(indexes) || !indexes.every(Number.isInteger)) invalid('indexes must be whole numbers.');
    if (indexes.length !== add.length) invalid('There is one index per added stroke.');
  }
  const taken = strokeIdsOf(d.scenes[s].shots[i]);
  for (const id of remove) taken.delete(id);
  for (const stroke of clean) {
    if (taken.has(stroke.id)) refuse('duplicate_id');
    taken.add(stroke.id);
  }
  if (layer.strokes.length - remove.length + add.length > LIMITS.strokesPerLayer) {
    tooLarge(`A layer has at most ${LIMITS.strokesPerLayer} strokes.`);
  }

  removedAt.sort((a, b) => a - b);
  const removed = removedAt.map((k) => layer.strokes[k]);
  const strokes = layer.strokes.slice();
  for (let n = removedAt.length - 1; n >= 0; n--) strokes.splice(removedAt[n], 1);
  const stamped = clean.map((stroke) => stampStroke(stroke, author));
  if (given(indexes)) {
    const placed = stamped.map((stroke, n) => ({ stroke, index: indexes[n], n }))
      .sort((a, b) => (a.index - b.index) || (a.n - b.n));
    for (const { stroke, index } of placed) strokes.splice(clamp(index, strokes.length), 0, stroke);
  } else {
    strokes.splice(removedAt.length ? removedAt[0] : strokes.length, 0, ...stamped);
  }
  d.layer(s, i, l).strokes = strokes;

  const where = { shot: e.shot, layer: e.layer };
  if (kind === 'add') return { op: 'removeStrokes', ...where, strokes: clean.map((stroke) => stroke.id) };
  if (kind === 'remove') return { op: 'addStrokes', ...where, strokes: removed, indexes: removedAt };
  return { op: 'replaceStrokes', ...where, remove: clean.map((stroke) => stroke.id), add: removed, indexes: removedAt };
}

// ---------------------------------------------------------------- reconciliation

/**
 * The client's copy of a project, reconciled with the server's order.
 *
 * - `confirmed`, `seq`: the content as of the last `edited` frame from the server;
 * - `pending`: our own edits sent but not yet confirmed, oldest first ({id, edit});
 * - `view`: what the editor shows: `confirmed` with the pending edits applied again on top.
 *
 * `local(id, edit)` applies an edit at once (throws, changing nothing, if it does not apply);
 * `server(edited)` takes an `edited` frame ({seq, author, by, edit}); `rejected(id)` drops a
 * pending edit the server refused. A pending edit that no longer applies after the server's
 * edits is dropped and reported to `onDropped({id, edit, error})`.
 */
export class Reconciler {
  constructor(storyboard, seq, { author = '', onDropped = () => {} } = {}) {
    this.author = author;
    this.onDropped = onDropped;
    this.confirmed = storyboard;
    this.seq = seq;
    this.pending = [];
    this.view = storyboard;
  }

  local(id, edit) {
    const { storyboard, inverse } = applyEdit(this.view, edit, this.author);
    this.view = storyboard;
    this.pending.push({ id, edit });
    return inverse;
  }

  /** An `edited` frame; an old one (seq already applied) changes nothing. Returns whether it applied. */
  server(edited) {
    if (edited.seq <= this.seq) return false;
    this.confirmed = applyEdit(this.confirmed, edited.edit, edited.author).storyboard;
    this.seq = edited.seq;
    this.pending = this.pending.filter((entry) => entry.id !== edited.by);
    this.rebuild();
    return true;
  }

  rejected(id) {
    const before = this.pending.length;
    this.pending = this.pending.filter((entry) => entry.id !== id);
    if (this.pending.length !== before) this.rebuild();
  }

  /** A whole new confirmed state (a welcome after reconnecting); pending edits are kept. */
  reset(storyboard, seq) {
    this.confirmed = storyboard;
    this.seq = seq;
    this.rebuild();
  }

  rebuild() {
    let view = this.confirmed;
    const kept = [];
    for (const entry of this.pending) {
      try {
        view = applyEdit(view, entry.edit, this.author).storyboard;
        kept.push(entry);
      } catch (error) {
        if (!(error instanceof StoryboardError)) throw error;
        this.onDropped({ ...entry, error });
      }
    }
    this.pending = kept;
    this.view = view;
  }
}
