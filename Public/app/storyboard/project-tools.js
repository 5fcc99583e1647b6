// The project page's tools beside the scenes: present the storyboard live (its shots become a
// deck, then a session starts on it), export it (a sheet of panels, the shots as PDF, PNGs in a
// ZIP, an animatic MP4: made by a job on the server, with progress, then downloaded), and share
// it (invite other accounts to edit, by email).
//
// State for tests: #exports > li[data-export-id][data-status]; #editors-list > li[data-user-id];
// #present[data-state].

import { api } from '../api.js';
import { el, icon, toast, confirmDialog } from '../ui.js';

const FORMATS = [
  { value: 'sheet', label: 'Sheet of panels (PDF)', short: 'Sheet', title: 'Panels with their number, duration, dialogue, action and notes' },
  { value: 'pdf', label: 'Shots (PDF)', short: 'Shots PDF', title: 'One shot a page' },
  { value: 'png', label: 'Shots (PNG, ZIP)', short: 'PNGs', title: 'One picture a shot' },
  { value: 'animatic', label: 'Animatic (MP4)', short: 'Animatic', title: 'Each shot for its duration' },
];
const LAYOUTS = [1, 2, 4, 6];
// How often a queued export or a processing deck is looked at.
const POLL_MS = 500;

/** Fills `root` with the tools for the project `record` (as GET /api/v1/storyboards/{id} gives it). */
export function mountProjectTools(root, record) {
  const base = '/api/v1/storyboards/' + encodeURIComponent(record.id);
  const exportsList = el('ul', { class: 'sb-exports', attrs: { id: 'exports', 'aria-label': 'Exports' } });
  const format = el('select', { class: 'input', attrs: { id: 'export-format', 'aria-label': 'Export as' } },
    FORMATS.map((f) => el('option', { attrs: { value: f.value, title: f.title }, text: f.label })));
  const layout = el('select', { class: 'input', attrs: { id: 'export-layout', 'aria-label': 'Panels a page' } },
    LAYOUTS.map((n) => el('option', { attrs: { value: String(n), selected: n === 4 ? '' : null }, text: `${n} a page` })));
  const layoutField = el('label', { class: 'field sb-tool-field' }, [el('span', { class: 'field-label', text: 'Panels' }), layout]);
  format.addEventListener('change', () => { layoutField.hidden = format.value !== 'sheet'; });
  const exportButton = el('button', { class: 'btn', attrs: { type: 'button', id: 'export' } }, [icon('download', 18), el('span', { text: 'Export' })]);
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true;
    try {
      const body = { format: format.value };
      if (format.value === 'sheet') body.layout = Number(layout.value);
      const made = await api(base + '/exports', { method: 'POST', body });
      exportsList.prepend(exportItem(made));
      follow(made.id);
    } catch (error) {
      toast(error.message, { kind: 'error' });
    } finally {
      exportButton.disabled = false;
    }
  });

  const present = el('button', { class: 'btn btn-primary', attrs: { type: 'button', id: 'present', 'data-state': 'idle' } },
    [icon('play', 18), el('span', { text: 'Present live' })]);
  present.addEventListener('click', () => presentLive(present, base));

  const editorsList = el('ul', { class: 'sb-editor-list', attrs: { id: 'editors-list', 'aria-label': 'Editors' } });
  const email = el('input', { class: 'input', attrs: { id: 'invite-email', type: 'email', placeholder: 'name@example.org', 'aria-label': 'Email of the person to invite', autocomplete: 'off' } });
  const invite = el('form', { class: 'sb-invite' }, [email, el('button', { class: 'btn', attrs: { type: 'submit' }, text: 'Invite' })]);
  invite.addEventListener('submit', async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!address) return;
    try {
      const editor = await api(base + '/editors', { method: 'POST', body: { email: address } });
      email.value = '';
      editorsList.querySelector(`[data-user-id="${CSS.escape(editor.id)}"]`)?.remove();
      editorsList.append(editorItem(editor));
      toast(`${editor.name || editor.email} can edit this storyboard now.`);
    } catch (error) {
      toast(error.message, { kind: 'error' });
    }
  });

  root.replaceChildren(
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: 'Present' }),
      el('p', { class: 'sb-tool-hint', text: 'Show the shots as pages to a room, with pointer, ink, polls and questions.' }),
      present,
    ]),
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: 'Export' }),
      el('div', { class: 'sb-tool-row' }, [el('label', { class: 'field sb-tool-field' }, [el('span', { class: 'field-label', text: 'Format' }), format]), layoutField, exportButton]),
      exportsList,
    ]),
    el('div', { class: 'sb-tool' }, [
      el('h2', { class: 'sb-h2', text: 'Editors' }),
      record.owned ? invite : el('p', { class: 'sb-tool-hint', text: 'Shared with you by its owner.' }),
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
    const name = el('span', { class: 'sb-export-name', text: item.format === 'sheet' ? `${what}, ${item.layout} a page` : what });
    let end;
    if (item.status === 'ready') {
      end = el('a', { class: 'btn btn-small', attrs: { href: item.url, download: item.fileName, 'aria-label': `Download ${item.fileName}`, title: 'Download' } }, [icon('download', 16), el('span', { text: size(item.bytes) })]);
    } else if (item.status === 'failed') {
      end = el('span', { class: 'sb-export-error', text: item.error ? item.error.message : 'Failed.' });
    } else {
      const p = item.progress;
      const text = p && p.total ? `${p.stage === 'encode' ? 'Encoding' : 'Drawing'}… ${Math.round((100 * p.done) / p.total)}%` : 'Waiting…';
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
    const remove = el('button', { class: 'btn btn-ghost btn-small', attrs: { type: 'button', 'aria-label': `Remove ${editor.email}` } }, [icon('x', 16)]);
    remove.hidden = !record.owned;
    remove.addEventListener('click', async () => {
      if (!(await confirmDialog({ title: 'Remove this editor?', message: `${editor.email} will no longer be able to open or edit this storyboard.`, confirmLabel: 'Remove', danger: true }))) return;
      try {
        await api(base + '/editors/' + encodeURIComponent(editor.id), { method: 'DELETE' });
        remove.closest('li').remove();
      } catch (error) {
        toast(error.message, { kind: 'error' });
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
  label.textContent = 'Preparing the shots…';
  try {
    // The new deck (with its processing job's id), processed like an upload.
    let deck = await api(base + '/present', { method: 'POST' });
    while (deck.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      deck = await api('/api/v1/decks/' + encodeURIComponent(deck.id));
    }
    if (deck.status !== 'ready') throw new Error((deck.error && deck.error.message) || 'The shots could not be prepared.');
    button.dataset.state = 'starting';
    const session = await api('/api/v1/sessions', { method: 'POST', body: { deckId: deck.id } });
    location.assign('/present/' + encodeURIComponent(session.code));
  } catch (error) {
    toast(error.message, { kind: 'error' });
    button.dataset.state = 'idle';
    label.textContent = 'Present live';
    button.disabled = false;
  }
}

function size(bytes) {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
