// The viewer's private notes per slide (docs/protocol.md, "Viewer notes"): a panel for the slide
// the viewer is looking at, saved as they type, and a Markdown download of them all.
//
// A note belongs to the slide it was started on: while the viewer is writing (the field has focus
// and was typed in on this slide), a slide change does not move the panel; a notice offers the
// slide on show, and leaving the field follows it.
//
// State for tests and CSS: #notes-button[data-has-note]; #notes-panel[data-page][data-state]
// (idle | saving | saved | error)[data-behind] (the slide on show, while the panel stays on the
// one being written); #notes-text; [data-action=notes-follow].

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon } from '../core/ui.js';

const SAVE_AFTER = 700; // ms of quiet typing before saving
const MAX_NOTE = 10000;

export class ViewerNotes {
  /**
   * @param {{code: string, stage: HTMLElement, bar: HTMLElement, watch: HTMLElement}} o
   */
  constructor({ code, stage, bar, watch }) {
    this.code = code;
    this.stage = stage;
    this.notes = new Map(); // page -> text, as the server holds it
    this.page = null; // the page the panel edits
    this.dirty = false;
    this.timer = null;
    this.saving = null; // the save in flight
    this.loaded = false;
    this.writing = false; // typed in on this slide, and the field still has focus
    this.base = '/api/v1/sessions/' + encodeURIComponent(code) + '/notes';
    this.button = el('button', {
      class: 'btn', attrs: { type: 'button', id: 'notes-button', 'aria-label': t('notes.my-notes'), title: t('notes.button-title'), 'aria-expanded': 'false', 'aria-controls': 'notes-panel' },
      on: { click: () => this.toggle() },
    }, [icon('note', 18), el('span', { class: 'btn-label', text: t('notes.button') }), el('span', { class: 'note-dot', attrs: { 'aria-hidden': 'true' } })]);
    const status = bar.querySelector('#download') || bar.querySelector('#fullscreen');
    bar.insertBefore(this.button, status);
    this.build(watch);
    new MutationObserver(() => this.follow()).observe(stage, { attributes: true, attributeFilter: ['data-page'] });
  }

  build(watch) {
    this.title = el('h2', { class: 'notes-title', attrs: { id: 'notes-title' } });
    this.text = el('textarea', {
      class: 'input notes-text', attrs: { id: 'notes-text', rows: 6, maxlength: MAX_NOTE, placeholder: t('notes.placeholder'), 'aria-labelledby': 'notes-title' },
    });
    this.state = el('span', { class: 'notes-state', attrs: { 'data-role': 'notes-state', 'aria-live': 'polite' } });
    this.download = el('a', {
      class: 'btn btn-sm', attrs: { href: this.base + '.md', download: 'notes.md', 'data-action': 'download-notes' },
    }, [icon('download', 16), el('span', { text: t('notes.download') })]);
    this.behind = el('p', { class: 'notes-behind', attrs: { 'aria-live': 'polite' } });
    this.followButton = el('button', {
      class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'notes-follow' },
      on: { click: () => { this.writing = false; this.follow(); this.text.focus({ preventScroll: true }); } },
    });
    this.behindNotice = el('div', { class: 'notes-behind-notice' }, [this.behind, this.followButton]);
    this.behindNotice.hidden = true;
    const close = el('button', { class: 'sheet-icon-btn', attrs: { type: 'button', 'aria-label': t('notes.close'), title: t('common.close') }, on: { click: () => this.toggle(false) } }, [icon('x', 20)]);
    this.panel = el('section', { class: 'notes-panel', attrs: { id: 'notes-panel', 'aria-labelledby': 'notes-title' } }, [
      el('div', { class: 'notes-head' }, [icon('note', 18), this.title, close]),
      this.behindNotice,
      this.text,
      el('div', { class: 'notes-foot' }, [this.state, this.download]),
    ]);
    this.panel.hidden = true;
    watch.append(this.panel);
    this.text.addEventListener('input', () => {
      this.dirty = true;
      this.writing = true;
      this.setState('idle', t('notes.typing'));
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.save(), SAVE_AFTER);
    });
    this.text.addEventListener('blur', () => {
      this.writing = false;
      this.save();
    });
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        this.toggle(false);
        this.button.focus();
      }
    });
    // The download has every note: save the one being typed first.
    this.download.addEventListener('click', (event) => {
      if (!this.dirty && !this.saving) return;
      event.preventDefault();
      this.save().then(() => this.download.click());
    });
  }

  /** After joining (the server knows this identity now): the notes kept so far. */
  async load() {
    if (this.loaded) return;
    try {
      const body = await api(this.base);
      this.notes = new Map(Object.entries((body && body.notes) || {}).map(([page, text]) => [Number(page), text]));
      this.loaded = true;
    } catch (_) {
      // Not joined yet or offline: the panel still works; a save will tell.
    }
    // A note begun while the notes were still loading (a slow server) keeps its slide: forced,
    // the panel jumped to the slide on show under the viewer's typing.
    this.follow(!this.writing);
  }

  shownPage() {
    return Number(this.stage.getAttribute('data-page')) || null;
  }

  /** Notes follow the slide the viewer looks at, except the one being written. */
  follow(force = false) {
    const shown = this.shownPage();
    if (!shown) return;
    const stay = this.writing && this.page !== null && !force && shown !== this.page;
    this.behindNotice.hidden = !stay;
    if (stay) {
      this.panel.dataset.behind = String(shown);
      this.behind.textContent = t('notes.behind', { page: this.page, shown });
      this.followButton.textContent = t('notes.go-to', { page: shown });
    } else {
      delete this.panel.dataset.behind;
    }
    const page = stay ? this.page : shown;
    if (page !== this.page || force) {
      if (this.dirty && this.page !== null) this.save();
      this.writing = false;
      this.page = page;
      this.title.textContent = t('notes.title', { page });
      this.panel.dataset.page = String(page);
      if (!this.dirty || force) {
        this.text.value = this.notes.get(page) || '';
        this.dirty = false;
      }
      this.setState(this.notes.has(page) ? 'saved' : 'idle', this.notes.has(page) ? t('notes.saved') : '');
    }
    const has = Boolean(this.notes.get(page));
    this.button.dataset.hasNote = String(has);
    this.button.setAttribute('aria-label', has ? t('notes.my-notes-has') : t('notes.my-notes'));
  }

  toggle(show = this.panel.hidden) {
    this.panel.hidden = !show;
    this.button.setAttribute('aria-expanded', String(show));
    document.body.classList.toggle('notes-open', show);
    if (show) {
      this.follow();
      this.text.focus({ preventScroll: true });
    } else {
      this.save();
    }
  }

  setState(state, text) {
    this.panel.dataset.state = state;
    this.state.textContent = text;
  }

  /** Saves the note being edited (once the previous save is done). */
  async save() {
    clearTimeout(this.timer);
    if (!this.dirty || this.page === null) {
      if (this.saving) await this.saving.catch(() => {});
      return;
    }
    // What to save is taken now: the slide may change while an earlier save finishes.
    const page = this.page;
    const text = this.text.value;
    this.dirty = false;
    this.setState('saving', t('notes.saving'));
    if (this.saving) await this.saving.catch(() => {});
    this.saving = api(this.base + '/' + page, { method: 'PUT', body: { text } });
    try {
      await this.saving;
      if (text.trim()) this.notes.set(page, text);
      else this.notes.delete(page);
      if (page === this.page && !this.dirty) this.setState('saved', text.trim() ? t('notes.saved') : t('notes.deleted'));
    } catch (error) {
      if (page === this.page) {
        this.dirty = true;
        this.setState('error', t('notes.not-saved', { reason: errorText(error) }));
      }
    } finally {
      this.saving = null;
      this.follow();
    }
  }
}
