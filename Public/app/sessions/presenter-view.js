// The presenter view of the session console (/present/{code}), for a presenter whose audience
// watches the big screen: beside the current slide (the stage, with its ink, zoom and pointer as
// ever) a column with the clocks (elapsed since the session started, the talk's countdown, the
// time of day), the next slide, and the speaker notes large, with a size control (A− / A+, kept
// in localStorage). The side panel (Join · Polls · Questions · Viewers, Alt+1…4) stays where it is.
//
// The layout is a switch in the console's bar ("Presenter view", key V). Unless the presenter
// chose (kept in localStorage, for every session), it is on when the deck has speaker notes, or
// once a big screen is opened for the session from the console (#big-screen[data-opened]).
//
// State for tests and CSS: <body data-presenter-view="on|off">; #presenter-view (the column);
// [data-action=presenter-view][aria-pressed]; #presenter-next[data-page] (the next page, empty
// after the last) with #presenter-next-img; #speaker-notes[data-page][data-empty] and
// #speaker-notes-text (speaker-notes.js) with [data-action=notes-smaller|notes-bigger] and
// #presenter-view[data-notes-size] (px); the clocks as presenter-timer.js says.

import { t } from '../core/i18n.js';
import { el, icon, toast } from '../core/ui.js';
import { serverClock } from '../live/clock.js';
import { SpeakerNotes } from './speaker-notes.js';
import { Countdown, clock, elapsedSince, levelOf, wallClockText } from './presenter-timer.js';
import { countdownText, formatDuration } from '../rooms/common.js';

const LAYOUT_KEY = 'podium.presenterView';
const SIZE_KEY = 'podium.notesSize';
const SIZES = [16, 20, 24, 28, 32, 40, 48, 56]; // the notes' text, in px
const DEFAULT_SIZE = 28;

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch (_) {
    return null;
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (_) {
    // private mode: the choice holds for this page only
  }
}

export class PresenterView {
  /**
   * @param {object} o
   * @param {string} o.code                 the session's code (the countdown is kept under it)
   * @param {() => import('../live/live.js').LiveClient|null} o.live
   * @param {import('../stage/deck-console.js').DeckConsole} o.deckConsole  its pages and the page on show
   * @param {HTMLElement} o.stage           the <podium-stage> (its data-page)
   * @param {HTMLElement} o.thumbs          the jump strip (slide titles on its thumbnails)
   * @param {HTMLElement} o.body            .console-body: the column goes after the stage's
   * @param {HTMLElement} o.bar             the console's bar: the switch goes in it
   * @param {HTMLElement|null} o.before     the switch goes before this child of the bar
   */
  constructor(o) {
    this.o = o;
    this.countdown = new Countdown('podium.countdown.' + o.code);
    this.level = null; // the countdown's level at the last tick (a warning toasts when it changes)
    this.endedAt = null; // the elapsed time, frozen when the session ends
    this.build();
    const size = Number(stored(SIZE_KEY));
    this.setSize(SIZES.includes(size) ? size : DEFAULT_SIZE);
    const choice = stored(LAYOUT_KEY);
    this.chosen = choice === 'on' || choice === 'off';
    this.setOn(choice === 'on');
    // A big screen opened (big-screen-button.js marks its button #big-screen[data-opened]).
    new MutationObserver((records) => {
      if (records.some((r) => r.target.id === 'big-screen' && r.target.dataset.opened && r.target.dataset.opened !== 'blocked')) this.suggest();
    }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-opened'] });
    this.tick();
    setInterval(() => this.tick(), 250);
  }

  build() {
    const o = this.o;
    this.toggle = el('button', {
      class: 'btn presenter-toggle',
      attrs: {
        // No aria-controls: the key switches the layout, it does not take the focus into the column.
        type: 'button', 'data-action': 'presenter-view', 'aria-pressed': 'false',
        'aria-keyshortcuts': 'V', 'data-shortcut-click': '', title: t('live.presenter-view-title'),
      },
      on: { click: () => this.choose(!this.on) },
    }, [icon('note', 18), el('span', { class: 'btn-label', text: t('live.presenter-view') })]);
    o.bar.insertBefore(this.toggle, o.before || null);

    // The clocks.
    const timer = (role, label) => {
      const value = el('strong', { class: 'pv-timer-value', attrs: { 'data-role': role + '-value' } });
      const box = el('div', { class: 'pv-timer', attrs: { 'data-role': role } }, [
        el('span', { class: 'pv-timer-label', text: label }), value,
      ]);
      return { box, value };
    };
    this.elapsed = timer('elapsed', t('live.elapsed'));
    this.wallClock = timer('clock', t('live.clock'));
    this.minutes = el('input', {
      class: 'input pv-minutes',
      attrs: {
        type: 'number', id: 'countdown-minutes', min: 1, max: 600, step: 1, inputmode: 'numeric',
        'aria-label': t('live.countdown-minutes'), title: t('live.countdown-minutes'),
      },
      on: { change: () => this.setMinutes() },
    });
    this.startButton = el('button', {
      class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'countdown-start' },
      on: { click: () => this.startOrPause() },
    });
    this.resetButton = el('button', {
      class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'countdown-reset', title: t('live.countdown-reset') },
      on: { click: () => this.resetCountdown() },
    }, [icon('undo', 16), el('span', { class: 'visually-hidden', text: t('live.countdown-reset') })]);
    this.countdownValue = el('strong', { class: 'pv-timer-value pv-countdown-value', attrs: { 'data-role': 'countdown-value' } });
    this.countdownLabel = el('span', { class: 'pv-timer-label', text: t('live.countdown') });
    this.countdownBox = el('div', { class: 'pv-timer pv-countdown', attrs: { 'data-role': 'countdown', 'aria-live': 'off' } }, [
      el('div', { class: 'pv-countdown-read' }, [this.countdownLabel, this.countdownValue]),
      el('div', { class: 'pv-countdown-tools' }, [
        el('label', { class: 'pv-minutes-field' }, [this.minutes, el('span', { text: t('live.minutes-short') })]),
        this.startButton, this.resetButton,
      ]),
    ]);
    const timers = el('section', { class: 'pv-timers', attrs: { 'aria-label': t('live.timers') } }, [
      this.elapsed.box, this.wallClock.box, this.countdownBox,
    ]);

    // The next slide.
    this.nextHeading = el('h2', { attrs: { id: 'presenter-next-heading' }, text: t('live.up-next') });
    this.nextImage = el('img', { attrs: { id: 'presenter-next-img', alt: '' } });
    this.nextEnd = el('p', { class: 'pv-next-end', text: t('live.last-slide') });
    this.next = el('section', { class: 'pv-next', attrs: { id: 'presenter-next', 'aria-labelledby': 'presenter-next-heading' } }, [
      this.nextHeading, el('div', { class: 'pv-next-frame' }, [this.nextImage, this.nextEnd]),
    ]);

    // The notes, with their size.
    this.smaller = el('button', {
      class: 'btn btn-sm pv-size', text: 'A−',
      attrs: { type: 'button', 'data-action': 'notes-smaller', 'aria-label': t('live.notes-smaller'), title: t('live.notes-smaller') },
      on: { click: () => this.step(-1) },
    });
    this.bigger = el('button', {
      class: 'btn btn-sm pv-size pv-size-up', text: 'A+',
      attrs: { type: 'button', 'data-action': 'notes-bigger', 'aria-label': t('live.notes-bigger'), title: t('live.notes-bigger') },
      on: { click: () => this.step(1) },
    });
    this.column = el('aside', {
      class: 'presenter-column', attrs: { id: 'presenter-view', 'aria-label': t('live.presenter-view') },
    }, [timers, this.next]);
    const center = o.body.querySelector('.console-center');
    o.body.insertBefore(this.column, center ? center.nextSibling : o.body.firstChild);
    this.notes = new SpeakerNotes({
      deckId: null, stage: o.stage, panel: this.column, before: null, thumbs: o.thumbs,
      tools: el('div', { class: 'pv-size-tools', attrs: { role: 'group', 'aria-label': t('live.notes-size') } }, [this.smaller, this.bigger]),
    });
  }

  /** Loads the deck's notes; with notes, the presenter view comes on (unless the presenter chose). */
  async load(deckId) {
    this.notes.deckId = deckId;
    await this.notes.load();
    if (this.notes.hasNotes) this.suggest();
  }

  /** On, unless the presenter chose otherwise. */
  suggest() {
    if (!this.chosen) this.setOn(true);
  }

  choose(on) {
    this.chosen = true;
    store(LAYOUT_KEY, on ? 'on' : 'off');
    this.setOn(on);
  }

  setOn(on) {
    this.on = on;
    document.body.classList.toggle('presenter-view', on);
    document.body.dataset.presenterView = on ? 'on' : 'off';
    this.toggle.setAttribute('aria-pressed', String(on));
    this.column.hidden = !on;
    if (on) {
      this.update();
      this.notes.show();
    }
  }

  // ---- notes size ----

  setSize(px) {
    this.size = px;
    this.column.style.setProperty('--notes-size', px + 'px');
    this.column.dataset.notesSize = String(px);
    this.smaller.disabled = px <= SIZES[0];
    this.bigger.disabled = px >= SIZES[SIZES.length - 1];
  }

  step(direction) {
    const at = SIZES.indexOf(this.size);
    const next = SIZES[Math.max(0, Math.min(SIZES.length - 1, at + direction))];
    this.setSize(next);
    store(SIZE_KEY, String(next));
  }

  // ---- the next slide ----

  /** The page on show changed (or the pages came): the next slide follows. */
  update() {
    const { deckConsole } = this.o;
    const count = deckConsole.pageCount;
    const page = deckConsole.page;
    const next = count && deckConsole.pages ? deckConsole.pages[page] : null;
    this.next.hidden = !count;
    if (next) {
      const url = next.mediumUrl || next.thumbnailUrl;
      if (this.nextImage.getAttribute('src') !== url) this.nextImage.src = url;
      this.nextImage.hidden = false;
      this.nextImage.alt = t('live.next-label', { page: page + 1, count });
      this.nextHeading.textContent = t('live.up-next-slide', { page: page + 1, count });
      this.next.dataset.page = String(page + 1);
      this.nextEnd.hidden = true;
    } else {
      this.nextImage.removeAttribute('src');
      this.nextImage.hidden = true;
      this.nextHeading.textContent = t('live.up-next');
      this.next.dataset.page = '';
      this.nextEnd.hidden = false;
    }
  }

  // ---- clocks ----

  startOrPause() {
    if (this.countdown.running) this.countdown.pause();
    else this.countdown.start();
    this.tick();
  }

  resetCountdown() {
    this.countdown.reset();
    this.level = null;
    this.tick();
  }

  setMinutes() {
    if (this.countdown.setMinutes(this.minutes.value)) this.level = null;
    this.shownMinutes = null; // the field shows the length again (a wrong entry is put right)
    this.tick();
  }

  tick() {
    const live = this.o.live();
    const session = live && live.session;
    if (live && live.state && live.state.ended && this.endedAt === null && session) {
      this.endedAt = elapsedSince(session.startedAt, serverClock(live).now());
    }
    const elapsed = this.endedAt !== null ? this.endedAt : session ? elapsedSince(session.startedAt, serverClock(live).now()) : 0;
    this.elapsed.value.textContent = formatDuration(elapsed);
    this.elapsed.box.dataset.seconds = String(Math.floor(elapsed));
    this.wallClock.value.textContent = wallClockText();

    const countdown = this.countdown;
    const left = countdown.left();
    const level = countdown.fresh ? 'ok' : levelOf(left, countdown.length);
    this.countdownValue.textContent = countdownText(left);
    this.countdownBox.dataset.level = level;
    this.countdownBox.dataset.running = String(countdown.running);
    this.countdownLabel.textContent = level === 'over' ? t('live.countdown-over') : t('live.countdown');
    // The field shows the length, unless the presenter is typing a new one.
    if (this.shownMinutes !== countdown.minutes && document.activeElement !== this.minutes) {
      this.minutes.value = String(countdown.minutes);
      this.shownMinutes = countdown.minutes;
    }
    const startLabel = countdown.running ? t('live.countdown-pause') : countdown.fresh ? t('live.countdown-start') : t('live.countdown-resume');
    if (this.startButton.dataset.label !== startLabel) {
      this.startButton.dataset.label = startLabel;
      this.startButton.replaceChildren(icon(countdown.running ? 'pause' : 'play', 16), el('span', { text: startLabel }));
    }
    // A warning as the countdown crosses 5 minutes, 1 minute and the end (not on a reload).
    if (this.level && level !== this.level && countdown.running && level !== 'ok') {
      const minutes = Math.max(1, Math.ceil(left / 60));
      const words = level === 'over' ? t('live.countdown-time-up') : t('live.countdown-minutes-left', { count: minutes });
      toast(words, { kind: level === 'over' ? 'error' : 'info' });
    }
    this.level = level;
  }
}

export { clock };
