// The project page's tools beside the scenes: present the storyboard live (its shots become a
// deck, then a session starts on it), export it (a sheet of panels, the shots as PDF, PNGs in a
// ZIP, an animatic MP4: made by a job on the server, with progress, then downloaded), and share
// it (invite other accounts to edit, by email).
//
// State for tests: #exports > li[data-export-id][data-status]; #editors-list > li[data-user-id];
// #present[data-state].

import { api } from '../core/api.js';
import { errorText, formatNumber, t } from '../core/i18n.js';
import { el, icon, toast, confirmDialog } from '../core/ui.js';

// The export formats; their words are the catalogue's `storyboard.export.<value>.label|short|title`.
const FORMATS = ['sheet', 'pdf', 'png', 'animatic'].map((value) => ({
  value,
  get label() { return t(`storyboard.export.${value}.label`); },
  get short() { return t(`storyboard.export.${value}.short`); },
  get title() { return t(`storyboard.export.${value}.title`); },
}));
const LAYOUTS = [1, 2, 4, 6];
// How often a queued export or a processing deck is looked at.
const POLL_MS = 500;

/** Fills `root` with the tools for the project `record` (as GET /api/v1/storyboards/{id} gives it). */
export function mountProjectTools(root, record) {
  const base = '/api/v1/storyboards/' + encodeURIComponent(record.id);
  const exportsList = el('ul', { class: 'sb-exports', attrs: { id: 'exports', 'aria-label': t('storyboard.exports') } });
  const format = el('select', { class: 'input', attrs: { id: 'export-format', 'aria-label': t('storyboard.export-as') } },
    FORMATS.map((f) => el('option', { attrs: { value: f.value, title: f.title }, text: f.label })));
  const layout = el('select', { class: 'input', attrs: { id: 'export-layout', 'aria-label': t('storyboard.panels-a-page') } },
    LAYOUTS.map((n) => el('option', { attrs: { value: String(n), selected: n === 4 ? '' : null }, text: t('storyboard.n-a-page', { count: n }) })));
  const layoutField = el('label', { class: 'field sb-tool-field' }, [el('span', { class: 'field-label', text: t('storyboard.panels') }), layout]);
  format.addEventListener('change', () => { layoutField.hidden = format.value !== 'sheet'; });
  const exportButton = el('button', { class: 'btn', attrs: { type: 'button', id: 'export' } }, [icon('download', 18), el('span', { text: t('storyboard.export') })]);
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true;
    try {
      const body = { format: format.value };
      if (format.value === 'sheet') body.layout = Number(layout.value);
      const made = await api(base + '/exports', { method: 'POST', body });
      exportsList.prepend(exportItem(made));
      follow(made.id);
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    } finally {
      exportButton.disabled = false;
    }
  });

  const present = el('button', { class: 'btn btn-primary', attrs: { type: 'button', id: 'present', 'data-state': 'idle' } },
    [icon('play', 18), el('span', { text: t('storyboard.present-live') })]);
  present.addEventListener('click', () => presentLive(present, base));

  const editorsList = el('ul', { class: 'sb-editor-list', attrs: { id: 'editors-list', 'aria-label': t('storyboard.editors') } });
  const email = el('input', { class: 'input', attrs: { id: 'invite-email', type: 'email', placeholder: t('storyboard.invite-placeholder'), 'aria-label': t('storyboard.invite-label'), autocomplete: 'off' } });
  const invite = el('form', { class: 'sb-invite' }, [email, el('button', { class: 'btn', attrs: { type: 'submit' }, text: t('storyboard.invite') })]);
  invite.addEventListener('submit', async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!address) return;
    try {
      const editor = await api(base + '/editors', { method: 'POST', body: { email: address } });
      email.value = '';
      editorsList.querySelector(`[data-user-id="${CSS.escape(editor.id)}"]`)?.remove();
      editorsList.append(editorItem(editor));
      toast(t('storyboard.invited', { name: editor.name || editor.email }));
    } catch (error) {
      // A mistyped address: said with the address, not as a storyboard that is gone.
      toast(error.code === 'not_found' ? t('storyboard.invite-no-account', { email: address }) : errorText(error), { kind: 'error' });
    }
  });

  root.replaceChildren(
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: t('storyboard.present') }),
      el('p', { class: 'sb-tool-hint', text: t('storyboard.present-hint') }),
      present,
    ]),
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: t('storyboard.export') }),
      el('div', { class: 'sb-tool-row' }, [el('label', { class: 'field sb-tool-field' }, [el('span', { class: 'field-label', text: t('storyboard.format') }), format]), layoutField, exportButton]),
      exportsList,
    ]),
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: t('storyboard.editors') }),
      record.owned ? invite : el('p', { class: 'sb-tool-hint', text: t('storyboard.shared-with-you') }),
      editorsList,
    ]),
  );

  function exportItem(item) {
    const li = el('li', { class: 'sb-export', attrs: { 'data-export-id': item.id, 'data-status': item.status } });
    fillExport(li, item);
    return li;
  }

  function fillExport(li, item) {
    li.dataset.status = item.status;
    const what = FORMATS.find((f) => f.value === item.format)?.short || item.format;
    const name = el('span', { class: 'sb-export-name', text: item.format === 'sheet' ? t('storyboard.sheet-layout', { what, count: item.layout }) : what });
    let end;
    if (item.status === 'ready') {
      end = el('a', { class: 'btn btn-small', attrs: { href: item.url, download: item.fileName, 'aria-label': t('storyboard.download-named', { name: item.fileName }), title: t('storyboard.download') } }, [icon('download', 16), el('span', { text: size(item.bytes) })]);
    } else if (item.status === 'failed') {
      end = el('span', { class: 'sb-export-error', text: item.error ? errorText(item.error) : t('storyboard.failed') });
    } else {
      const p = item.progress;
      const text = p && p.total
        ? t(p.stage === 'encode' ? 'storyboard.encoding' : 'storyboard.drawing', { percent: Math.round((100 * p.done) / p.total) })
        : t('storyboard.waiting');
      end = el('span', { class: 'sb-export-progress', text });
    }
    li.replaceChildren(name, end);
  }

  async function follow(id) {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      let item;
      try {
        item = await api(base + '/exports/' + encodeURIComponent(id));
      } catch {
        continue;
      }
      const li = exportsList.querySelector(`[data-export-id="${CSS.escape(id)}"]`);
      if (!li) return;
      fillExport(li, item);
      if (item.status !== 'queued') return;
    }
  }

  function editorItem(editor) {
    const remove = el('button', { class: 'btn btn-ghost btn-small', attrs: { type: 'button', 'aria-label': t('storyboard.remove-named', { name: editor.email }) } }, [icon('x', 16)]);
    remove.hidden = !record.owned;
    remove.addEventListener('click', async () => {
      if (!(await confirmDialog({ title: t('storyboard.remove-editor-title'), message: t('storyboard.remove-editor-message', { email: editor.email }), confirmLabel: t('storyboard.remove'), danger: true }))) return;
      try {
        await api(base + '/editors/' + encodeURIComponent(editor.id), { method: 'DELETE' });
        remove.closest('li').remove();
      } catch (error) {
        toast(errorText(error), { kind: 'error' });
      }
    });
    return el('li', { attrs: { 'data-user-id': editor.id } }, [el('span', { text: editor.name && editor.name !== editor.email ? `${editor.name} · ${editor.email}` : editor.email }), remove]);
  }

  api(base + '/exports').then((items) => {
    for (const item of items.slice(0, 10)) {
      exportsList.append(exportItem(item));
      if (item.status === 'queued') follow(item.id);
    }
  }).catch(() => {});
  api(base + '/editors').then((editors) => editorsList.replaceChildren(...editors.map(editorItem))).catch(() => {});
}

/** The shots become a deck; once it is processed a session starts on it and its console opens. */
async function presentLive(button, base) {
  button.disabled = true;
  button.dataset.state = 'preparing';
  const label = button.querySelector('span:last-child');
  label.textContent = t('storyboard.preparing-shots');
  try {
    // The new deck (with its processing job's id), processed like an upload.
    let deck = await api(base + '/present', { method: 'POST' });
    while (deck.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      deck = await api('/api/v1/decks/' + encodeURIComponent(deck.id));
    }
    if (deck.status !== 'ready') throw new Error(deck.error ? errorText(deck.error) : t('storyboard.prepare-failed'));
    button.dataset.state = 'starting';
    const session = await api('/api/v1/sessions', { method: 'POST', body: { deckId: deck.id } });
    location.assign('/present/' + encodeURIComponent(session.code));
  } catch (error) {
    toast(errorText(error), { kind: 'error' });
    button.dataset.state = 'idle';
    label.textContent = t('storyboard.present-live');
    button.disabled = false;
  }
}

function size(bytes) {
  if (bytes < 1024 * 1024) return t('storyboard.kb', { size: formatNumber(Math.max(1, Math.round(bytes / 1024))) });
  return t('storyboard.mb', { size: formatNumber(bytes / (1024 * 1024), { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}
