// The library's storyboards, beside its decks and videos: "New storyboard" (title, aspect ratio),
// a card per storyboard (scenes, shots, aspect ratio, last change) that opens it, and rename /
// move to a folder / delete from the card.
//
// A card shows the storyboard's first shot, drawn here from its strokes (the server keeps no
// image of a shot) once the card comes into view, as an <img> of what was drawn.
//
// State for tests: #storyboards li.storyboard-card[data-storyboard-id][data-title];
// img.storyboard-first-shot[data-shot] once drawn.

import { api } from '../core/api.js';
import { errorText, formatDate, loadAreas, t } from '../core/i18n.js';
import { el, icon, iconButton, toast, confirmDialog, promptDialog, chooseDialog, modalDialog } from '../core/ui.js';
import { ASPECT_RATIOS, aspectValue, allShots, drawShot, strokeCount } from './common.js';

// The library page has its own areas; the storyboard cards' words are the storyboard's. They load
// while the page does; what shows them waits for them (a top-level await here would hold back the
// whole library page's script, its listeners included, until they came).
const storyboardWords = loadAreas('storyboard');

export class LibraryStoryboards {
  /**
   * @param {object} o
   * @param {HTMLElement} o.section
   * @param {HTMLElement} o.grid
   * @param {HTMLElement} o.empty
   * @param {HTMLElement} o.newButton
   * @param {() => string|null} o.folder   the folder in view (null: all)
   * @param {() => Array<{id, name}>} o.folders
   * @param {(error) => void} o.onError
   */
  constructor(o) {
    this.o = o;
    this.items = [];
    this.firstShots = new Map(); // storyboard id -> {key, url} of its first shot's image
    this.observer = 'IntersectionObserver' in window
      ? new IntersectionObserver((entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          this.observer.unobserve(entry.target);
          this.drawFirstShot(entry.target);
        }
      }, { rootMargin: '200px' })
      : null;
    o.newButton.addEventListener('click', () => this.create());
    // The same, in the library's first screen (beside its kinds), so no one scrolls to start one.
    document.getElementById('new-storyboard-quick')?.addEventListener('click', () => this.create());
  }

  /** The first shot of the card's storyboard, drawn into its thumbnail (kept while it is unchanged). */
  async drawFirstShot(thumb) {
    const id = thumb.dataset.storyboard;
    const key = thumb.dataset.key;
    const known = this.firstShots.get(id);
    if (known && known.key === key) {
      if (known.url) this.showFirstShot(thumb, known);
      return;
    }
    try {
      const record = await api('/api/v1/storyboards/' + encodeURIComponent(id));
      const first = allShots(record.content)[0];
      if (!first || !strokeCount(first.shot)) {
        this.firstShots.set(id, { key, url: null });
        return;
      }
      const canvas = document.createElement('canvas');
      canvas.width = 480;
      canvas.height = Math.round(480 / aspectValue(record.aspectRatio));
      drawShot(canvas, first.shot);
      const blob = await new Promise((done) => canvas.toBlob(done, 'image/png'));
      if (!blob) return;
      if (known && known.url) URL.revokeObjectURL(known.url);
      const entry = { key, url: URL.createObjectURL(blob), shot: first.shot.id };
      this.firstShots.set(id, entry);
      this.showFirstShot(thumb, entry);
    } catch (_) {
      // No picture: the card keeps its icon.
    }
  }

  showFirstShot(thumb, entry) {
    if (!thumb.isConnected) return;
    const title = thumb.dataset.title;
    const img = el('img', { class: 'storyboard-first-shot', attrs: { src: entry.url, alt: t('storyboard.library.first-shot', { title }), 'data-shot': entry.shot, decoding: 'async' } });
    thumb.querySelector('.storyboard-icon')?.replaceWith(img);
  }

  /** Fetches the storyboards; the page renders them (`render`) once its folders are in too. */
  async load() {
    await storyboardWords;
    try {
      this.items = await api('/api/v1/storyboards');
    } catch (error) {
      if (error.status === 404) this.items = []; // a server without storyboards
      else this.o.onError(error);
    }
  }

  setHidden(hidden) {
    this.o.section.hidden = hidden;
  }

  render() {
    const folder = this.o.folder();
    const items = this.items.filter((s) => folder === null || s.folderId === folder);
    this.o.grid.replaceChildren(...items.map((s) => this.card(s)));
    this.o.empty.hidden = items.length > 0;
  }

  href(item) {
    return '/storyboard.html?id=' + encodeURIComponent(item.id);
  }

  card(item) {
    const thumb = el('a', {
      class: 'deck-thumb storyboard-thumb',
      attrs: {
        href: this.href(item), 'aria-label': t('storyboard.library.open', { title: item.title }), tabindex: '-1',
        'data-storyboard': item.id, 'data-title': item.title, 'data-key': [item.updatedAt, item.shotCount, item.aspectRatio].join('|'),
      },
    }, [
      el('span', { class: 'storyboard-icon', attrs: { 'aria-hidden': 'true' } }, [icon('grid', 36)]),
      el('span', { class: 'pages-badge', text: item.aspectRatio || '16:9' }),
    ]);
    if (this.observer) this.observer.observe(thumb);
    else this.drawFirstShot(thumb);
    const shots = Number(item.shotCount || 0);
    const scenes = Number(item.sceneCount || 0);
    const updated = item.updatedAt ? new Date(item.updatedAt) : null;
    const meta = el('div', { class: 'deck-meta' }, [
      el('span', { class: 'deck-pages', text: t('storyboard.library.counts', { scenes: t('storyboard.scenes-count', { count: scenes }), shots: t('storyboard.shots-count', { count: shots }) }) }),
      updated && !Number.isNaN(updated.getTime())
        ? el('span', { class: 'deck-pages', text: '· ' + formatDate(updated, { day: 'numeric', month: 'short' }), attrs: { title: t('storyboard.library.changed', { date: formatDate(updated) }) } })
        : null,
    ]);
    const body = el('div', { class: 'deck-body' }, [
      el('a', { class: 'deck-title storyboard-title', text: item.title, attrs: { href: this.href(item), title: item.title, 'data-action': 'open-storyboard' } }),
      item.description ? el('p', { class: 'storyboard-desc', text: item.description }) : null,
      meta,
    ]);
    // A project someone shared with us is theirs to rename, file and delete.
    const mine = item.owned !== false;
    const actions = el('div', { class: 'deck-actions' }, !mine ? [el('span', { class: 'deck-pages', text: t('storyboard.library.shared') })] : [
      iconButton('edit', t('storyboard.rename'), { cls: 'btn', on: { click: () => this.rename(item) }, attrs: { 'data-action': 'rename-storyboard', 'aria-label': t('storyboard.library.rename-named', { title: item.title }) } }),
      this.o.folders().length ? iconButton('folder', t('storyboard.move'), { cls: 'btn', on: { click: () => this.move(item) }, attrs: { 'data-action': 'move-storyboard', 'aria-label': t('storyboard.library.move-named', { title: item.title }) } }) : null,
      iconButton('trash', t('storyboard.delete'), { cls: 'btn', on: { click: () => this.remove(item) }, attrs: { 'data-action': 'delete-storyboard', 'aria-label': t('storyboard.library.delete-named', { title: item.title }) } }),
    ]);
    return el('li', { class: 'deck-card storyboard-card', attrs: { 'data-storyboard-id': item.id, 'data-title': item.title } }, [thumb, body, actions]);
  }

  async create() {
    await storyboardWords;
    // A second click while the words load, or while the dialog is open, opens no second one.
    if (document.getElementById('new-storyboard')) return;
    const title = el('input', { class: 'input', attrs: { type: 'text', id: 'new-storyboard-name', maxlength: 200, required: true, autocomplete: 'off', value: t('storyboard.library.untitled') } });
    const aspect = el('select', { class: 'input', attrs: { id: 'new-storyboard-aspect' } },
      ASPECT_RATIOS.map((r) => el('option', { text: r, attrs: { value: r, selected: r === '16:9' } })));
    const cancel = el('button', { class: 'btn', text: t('storyboard.cancel'), attrs: { type: 'button' } });
    const ok = el('button', { class: 'btn btn-primary', text: t('storyboard.library.create'), attrs: { type: 'submit', 'data-role': 'confirm' } });
    const { dialog, content } = modalDialog({
      title: t('storyboard.library.new'), form: true, id: 'new-storyboard',
      body: [
        el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('storyboard.title') }), title]),
        el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('storyboard.aspect-ratio') }), aspect]),
      ],
      actions: [cancel, ok],
    });
    cancel.addEventListener('click', () => dialog.close());
    content.addEventListener('submit', async (event) => {
      event.preventDefault();
      const text = title.value.trim();
      if (!text) {
        title.focus();
        return;
      }
      ok.disabled = true;
      try {
        const body = { title: text, aspectRatio: aspect.value };
        if (this.o.folder()) body.folderId = this.o.folder();
        const created = await api('/api/v1/storyboards', { method: 'POST', body });
        dialog.close();
        location.assign(this.href(created));
      } catch (error) {
        ok.disabled = false;
        toast(errorText(error), { kind: 'error' });
      }
    });
    title.select();
  }

  async rename(item) {
    const title = await promptDialog({ title: t('storyboard.library.rename'), label: t('storyboard.title'), value: item.title, confirmLabel: t('storyboard.save') });
    if (!title || title.trim() === item.title) return;
    await this.patch(item, { title: title.trim() });
  }

  async move(item) {
    const options = [{ value: '', label: t('storyboard.library.no-folder') }, ...this.o.folders().map((f) => ({ value: f.id, label: f.name }))];
    const choice = await chooseDialog({ title: t('storyboard.library.move-title', { title: item.title }), label: t('storyboard.library.folder'), options, value: item.folderId || '', confirmLabel: t('storyboard.move') });
    if (choice === undefined) return;
    await this.patch(item, { folderId: choice || null });
  }

  async patch(item, body) {
    try {
      const updated = await api('/api/v1/storyboards/' + encodeURIComponent(item.id), { method: 'PATCH', body });
      this.items = this.items.map((s) => (s.id === item.id ? { ...s, ...updated } : s));
      this.render();
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }

  async remove(item) {
    const sure = await confirmDialog({
      title: t('storyboard.delete-layer-title', { name: item.title }), message: t('storyboard.library.delete-message'),
      confirmLabel: t('storyboard.delete'), danger: true,
    });
    if (!sure) return;
    try {
      await api('/api/v1/storyboards/' + encodeURIComponent(item.id), { method: 'DELETE' });
      this.items = this.items.filter((s) => s.id !== item.id);
      this.render();
      toast(t('storyboard.library.deleted', { title: item.title }), { kind: 'success' });
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }
}
