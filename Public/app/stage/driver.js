// The one stage driver of every page that presents: the presenter console of a session
// (present.js), a room's presenter (rooms/presenter.js) and its moderator (rooms/moderate.js), and
// rehearsal (rehearse.js, with no socket: everything stays on that screen).
// It wires a <podium-stage> to the deck console (pages, zoom, blank, laser pointer, thumbnails),
// the ink tools (draw mode), the keyboard, and the live socket: while this page drives, its
// commands go out; while someone else drives (a room), the stage follows what the projector
// shows, with their pointer and the stroke they are drawing. The projector only follows
// (followStage, showInking).

import { t, errorText } from '../core/i18n.js';
import { stageDeck, stagePages, stageStrokes } from '../live/live.js';
import './stage.js';
import { DeckConsole } from './deck-console.js';
import { InkTools } from './ink.js';
import { isTyping, dialogOpen, iconButton, chooseDialog, toast } from '../core/ui.js';
import { mountVideo } from '../media/video-stage.js';
import { api } from '../core/api.js';

/** Keys that change slide, and which way. */
const SLIDE_KEYS = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ArrowLeft: -1, ArrowUp: -1, PageUp: -1 };

/**
 * Whether a key press changes slide here: everywhere (a focused sidebar tab, a button, a check
 * box) except where the arrows are the control's own: text fields (`isTyping`), a radio group
 * (the arrows choose), a slider, the thumbnail strip (the arrows move the focus along it).
 */
function slideKeyApplies(event) {
  if (event.altKey || event.metaKey || event.ctrlKey || isTyping(event) || dialogOpen()) return false;
  const target = event.target;
  if (target instanceof HTMLInputElement && (target.type === 'radio' || target.type === 'range')) return false;
  return !(target instanceof Element && target.closest('[role=radiogroup], [role=slider], [data-role=thumb-list]'));
}

export class StageDriver {
  /**
   * @param {object} o
   * @param {HTMLElement} o.stage       the <podium-stage>
   * @param {HTMLElement} o.stageWrap   its container
   * @param {HTMLElement} o.controls    the deck console's control bar
   * @param {HTMLElement} o.thumbs      the thumbnail strip
   * @param {HTMLElement} o.inkBar      the ink tools' bar
   * @param {string} o.inkKey           where the ink tools keep their choices (per page kind)
   * @param {() => import('../live/live.js').LiveClient|null} o.live  the socket, once there is one
   * @param {() => object|null} o.state  the live state once joined (null before)
   * @param {() => boolean} o.drives    whether this page drives the stage now
   * @param {(command:object) => void} o.send            a stage command (goto, zoom, blank)
   * @param {(command:object) => Promise} o.sendForResult an ink command, its outcome handed back
   * @param {(text:string) => void} o.error
   * @param {() => void} [o.onChange]   any local change (page, zoom, blank), for the page's UI
   * @param {boolean} [o.videos]        offer the library's videos (the session's presenter, a room's moderator)
   * @param {boolean} [o.lead]          this screen is waited for while its video buffers (a plain session's console)
   */
  constructor(o) {
    this.o = o;
    this.stage = o.stage;
    this.pagesKey = undefined; // whose pages the console holds: 'session', a room's deck id, or null
    this.console = new DeckConsole({
      stage: o.stage,
      stageWrap: o.stageWrap,
      controls: o.controls,
      thumbs: o.thumbs,
      onGoto: (page) => o.send({ type: 'goto', page }),
      onZoom: (viewport) => o.send({ type: 'zoom', viewport }),
      onBlank: (mode) => o.send({ type: 'blank', mode }),
      onPointer: (point) => {
        const live = o.live();
        if (!live) return;
        if (point) live.sendEphemeral({ type: 'pointer', x: point.x, y: point.y });
        else live.sendEphemeral({ type: 'pointer', visible: false });
      },
      onChange: () => {
        if (!this.ink) return; // still being built
        this.renderInk();
        if (o.onChange) o.onChange();
      },
    });
    this.ink = null;
    this.console.setEnabled(false); // before the ink: the page's own onChange waits for the driver
    this.ink = new InkTools({
      deckConsole: this.console,
      stage: o.stage,
      stageWrap: o.stageWrap,
      bar: o.inkBar,
      code: o.inkKey,
      state: () => o.state(),
      send: (command) => o.sendForResult(command),
      sendEphemeral: (message) => {
        const live = o.live();
        if (live && o.drives()) live.sendEphemeral(message);
      },
      error: (text) => o.error(text),
    });
    // Slide keys are the stage's wherever the focus is (a sidebar tab, a button), except in text
    // fields: caught before anything on the page (the side panel's tabs take arrows for themselves).
    window.addEventListener('keydown', (event) => {
      const step = SLIDE_KEYS[event.key];
      if (!step || !this.console.enabled || !slideKeyApplies(event)) return;
      // ← and → skip through a video on the stage (video-stage.js); the other slide keys take it off.
      if (this.videoOnStage() && (event.key === 'ArrowLeft' || event.key === 'ArrowRight')) return;
      event.preventDefault();
      event.stopPropagation();
      if (step > 0) this.console.next();
      else this.console.prev();
    }, true);
  }

  /** Whether a video is on the stage now. */
  videoOnStage() {
    const state = this.o.state();
    return Boolean(state && state.playback);
  }

  /** The "Video" button of the control bar: pick a ready video of the library and put it on the stage. */
  addVideoButton() {
    const button = iconButton('film', t('console.show-video'), {
      cls: 'btn', attrs: { 'data-action': 'show-video', title: t('console.show-video-title') },
      on: { click: () => this.pickVideo() },
    });
    this.o.controls.append(button);
  }

  /**
   * The picker: the library's ready videos, and in a room the room's own clips too (`roomClips`
   * fetches them: the room's page hands it over).
   */
  async pickVideo(roomClips = null) {
    let videos;
    try {
      const [library, room] = await Promise.all([api('/api/v1/videos'), roomClips ? roomClips() : []]);
      videos = [...room.map((video) => ({ ...video, title: t('console.this-room', { title: video.title }) })), ...library]
        .filter((video) => video.status === 'ready');
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
      return;
    }
    if (!videos.length) {
      toast(roomClips ? t('console.no-video-room') : t('console.no-video'));
      return;
    }
    const id = await chooseDialog({
      title: t('console.show-video'), label: t('console.video'),
      options: videos.map((video) => ({ value: video.id, label: video.title })), value: videos[0].id, confirmLabel: t('console.show'),
    });
    if (id) this.sendVideoCommand({ type: 'showVideo', videoId: id });
  }

  /** A video command from this page, while it drives; a refusal is said. */
  sendVideoCommand(command) {
    if (!this.o.drives()) return Promise.resolve();
    return this.o.sendForResult(command).catch((error) => {
      if (error && error.code !== 'ended' && error.message) this.o.error(errorText(error));
    });
  }

  /** The page the stage shows now. */
  get page() {
    return this.console.page;
  }

  goto(page) {
    this.console.goto(page);
  }

  /** Listens to the socket: someone else's pointer and stroke in progress while this page does not drive. */
  listen(live) {
    // The video on the stage, over the slide: with the player's controls while this page drives.
    this.video = mountVideo({
      live, container: this.o.stageWrap, role: 'presenter', lead: Boolean(this.o.lead),
      send: (command) => this.sendVideoCommand(command), mayDrive: () => this.o.drives(),
    });
    if (this.o.videos && !this.videoButtonAdded) {
      this.videoButtonAdded = true;
      this.addVideoButton();
    }
    live.addEventListener('pointer', (event) => {
      if (this.o.drives()) return;
      const m = event.detail;
      this.stage.setPointer(m.visible === false || !Number.isFinite(m.x) ? null : { x: m.x, y: m.y });
    });
    // The server echoes our own `inking` to us too: while driving, the stroke is drawn here already.
    live.addEventListener('inking', (event) => {
      if (!this.o.drives()) showInking(this.stage, event.detail, live.state);
    });
    live.addEventListener('change', (event) => {
      // The stage changed hands or decks: a stroke in progress there ends with it.
      const type = event.detail.event.type;
      if (type === 'control' || type === 'deckShown') showInking(this.stage, null, live.state);
    });
  }

  /**
   * Brings the stage to the server's state: the pages of what is shown, the console on while
   * this page drives (taking the server's page once nothing of ours is in flight), following the
   * projector otherwise; then the ink.
   */
  sync(state, session) {
    if (!state) return;
    const deck = stageDeck(state);
    const key = state.room ? (deck ? deck.id : null) : 'session';
    if (key !== this.pagesKey) {
      this.pagesKey = key;
      this.console.setPages(stagePages(session, state));
    }
    const driving = this.o.drives();
    const live = this.o.live();
    this.console.setEnabled(driving && this.console.pageCount > 0);
    if (!driving || ((!live || live.pendingCount === 0) && !this.console.busy)) this.console.adopt(state);
    if (!driving) followStage(this.stage, session, state);
    if (state.room) this.stage.dataset.deck = deck ? deck.id : '';
    this.renderInk();
  }

  /** The ink on the stage: the ink tools' view while driving (strokes on their way), else the room's. */
  renderInk() {
    const state = this.o.state();
    if (!state) return;
    if (this.o.drives() && this.console.enabled) this.ink.render();
    else {
      if (this.ink.drawMode) this.ink.render(); // leaves draw mode
      showInk(this.stage, state);
    }
  }

  /** The session is over: nothing more to drive. */
  stop() {
    this.ink.setDrawMode(false);
    this.console.setEnabled(false);
    this.console.hidePointer();
  }
}

/**
 * Keeps a <podium-stage> on what the projector shows: the deck on the stage, its page, viewport,
 * blank, and the ink of that deck's page. Mirrors data-deck for tests and CSS.
 */
export function followStage(stage, session, state) {
  const pages = stagePages(session, state);
  const known = stage.pages;
  if (known.length !== pages.length || pages.some((p, i) => p.imageUrl !== known[i].imageUrl)) stage.pages = pages;
  const deck = state.room ? state.room.deck || '' : '';
  stage.dataset.deck = deck;
  stage.show({ page: state.page, viewport: state.viewport, blank: state.blank });
  showInk(stage, state);
}

const inkOnStage = new WeakMap(); // stage -> {strokes, deck, page, list, live}

/**
 * The ink of the page on the stage: the committed strokes of that deck's page and the stroke
 * being drawn there (stage.setInk). The list is kept while nothing changes, so the stage redraws
 * only the live stroke as it moves.
 */
export function showInk(stage, state) {
  if (typeof stage.setInk !== 'function' || !state) return;
  const deck = state.room ? state.room.deck || null : null;
  let entry = inkOnStage.get(stage) || { live: null };
  if (entry.strokes !== state.strokes || entry.deck !== deck || entry.page !== stage.page) {
    entry = { ...entry, strokes: state.strokes, deck, page: stage.page, list: stageStrokes(state, stage.page) };
    inkOnStage.set(stage, entry);
  }
  const live = entry.live && entry.live.page === stage.page && entry.live.deck === deck ? entry.live : null;
  stage.setInk(entry.list, live);
}

/** The stroke being drawn now (an ephemeral `inking` message; `done` ends it). */
export function showInking(stage, message, state) {
  const entry = inkOnStage.get(stage) || { live: null };
  // The server says on which deck the stroke is (the deck on the stage when it was sent).
  const deck = message && message.deck !== undefined ? message.deck || null : state && state.room ? state.room.deck || null : null;
  entry.live = message && !message.done && Array.isArray(message.points) ? { ...message, deck } : null;
  inkOnStage.set(stage, entry);
  showInk(stage, state);
}
