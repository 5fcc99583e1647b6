// The presenter's speaker notes and the deck's outline, from an Office deck (PPTX, ODP): the
// notes of the slide on show in the console's presenter view (presenter-view.js), and each
// slide's title on its thumbnail in the jump strip. They come from the owner's own
// GET /api/v1/decks/{id} (`speakerNotes`, `outline`); viewers never receive them.
//
// State for tests and CSS: #speaker-notes[data-page][data-empty]; #speaker-notes-text;
// .thumb[data-title].

import { api } from '../core/api.js';
import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';

export class SpeakerNotes {
  /**
   * @param {{deckId: string|null, stage: HTMLElement, panel: HTMLElement, before: HTMLElement|null, thumbs: HTMLElement, tools?: HTMLElement}} o
   *   `tools` go beside the heading (the presenter view's text size buttons)
   */
  constructor({ deckId, stage, panel, before, thumbs, tools = null }) {
    this.deckId = deckId;
    this.stage = stage;
    this.thumbs = thumbs;
    this.notes = new Map(); // page -> text
    this.titles = new Map(); // page -> title
    this.text = el('div', { class: 'speaker-notes-text', attrs: { id: 'speaker-notes-text' } });
    this.heading = el('h2', { text: t('live.speaker-notes-heading', { page: 1 }), attrs: { id: 'speaker-notes-heading' } });
    this.hasNotes = false;
    this.loaded = false;
    this.section = el('section', {
      class: 'speaker-notes', attrs: { id: 'speaker-notes', 'aria-labelledby': 'speaker-notes-heading' },
    }, [el('div', { class: 'speaker-notes-head' }, [this.heading, tools]), this.text]);
    panel.insertBefore(this.section, before || null);
    new MutationObserver(() => this.show()).observe(stage, { attributes: true, attributeFilter: ['data-page'] });
    new MutationObserver(() => this.label()).observe(thumbs, { childList: true });
  }

  async load() {
    if (!this.deckId) return;
    let deck;
    try {
      deck = await api('/api/v1/decks/' + encodeURIComponent(this.deckId));
    } catch (_) {
      return; // not the owner (a room's guest presenter), or offline: the console works without
    }
    for (const note of deck.speakerNotes || []) this.notes.set(note.page, note.text);
    for (const entry of deck.outline || []) this.titles.set(entry.page, entry.title);
    this.hasNotes = this.notes.size > 0;
    this.loaded = true;
    this.label();
    this.show();
  }

  /** The page on show, as the stage says. */
  page() {
    return Number(this.stage.dataset.page || this.stage.getAttribute('data-page')) || 1;
  }

  show() {
    const page = this.page();
    const text = this.notes.get(page) || '';
    this.section.dataset.page = String(page);
    this.section.dataset.empty = text ? 'false' : 'true';
    const title = this.titles.get(page);
    this.heading.textContent = title
      ? t('live.speaker-notes-heading-titled', { page, title })
      : t('live.speaker-notes-heading', { page });
    // A deck without any notes (a PDF) says so once, rather than "no notes" on every slide.
    const none = this.loaded && !this.hasNotes ? t('live.deck-without-notes') : t('live.no-speaker-notes');
    this.text.replaceChildren(...(text
      ? text.split('\n').map((line) => el('p', { text: line }))
      : [el('p', { class: 'muted', text: none })]));
  }

  /** Each thumbnail of the jump strip says its slide's title. */
  label() {
    if (!this.titles.size) return;
    for (const thumb of this.thumbs.querySelectorAll('.thumb')) {
      const page = Number(thumb.dataset.page);
      const title = this.titles.get(page);
      if (!title || thumb.dataset.title === title) continue;
      thumb.dataset.title = title;
      thumb.title = page + '. ' + title;
      thumb.setAttribute('aria-label', t('live.go-to-slide-titled', { page, title }));
    }
  }
}
