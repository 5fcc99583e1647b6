// The library's "Open a room" action: title, optional passcode, allow-download switch, then
// POST /api/v1/rooms and on to the moderator console (/r/{code}/moderate).

import { api } from '../core/api.js';
import { loadAreas, t } from '../core/i18n.js';
import { el, icon, modalDialog } from '../core/ui.js';
import { switchField, submitToStart } from '../core/start-dialog.js';

// The library page has its own areas; this dialog's words are the rooms'. They load while the
// page does, and the button answers at once: a click before they arrive waits for them (with
// the listener added only after them, an early click did nothing).
const roomWords = loadAreas('rooms');

export async function openRoomDialog() {
  await roomWords;
  // A second click while the words load, or while the dialog is open, opens no second one.
  const open = document.getElementById('room-dialog');
  if (open) return open;
  const title = el('input', {
    class: 'input',
    attrs: { type: 'text', id: 'room-title', maxlength: '200', autocomplete: 'off', placeholder: t('rooms.open.title-placeholder') },
  });
  const passcode = el('input', {
    class: 'input',
    attrs: { type: 'text', id: 'room-passcode', maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: t('rooms.open.no-passcode') },
  });
  const download = el('input', { attrs: { type: 'checkbox', id: 'room-download', role: 'switch' } });
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const cancel = el('button', { class: 'btn', text: t('rooms.open.cancel'), attrs: { type: 'button' } });
  const start = el('button', { class: 'btn btn-primary', attrs: { type: 'submit', id: 'room-start' } }, [icon('broadcast'), t('rooms.open.start')]);
  const { dialog, content: form } = modalDialog({
    title: t('rooms.open.title'), id: 'room-dialog', form: true, open: false, actions: [cancel, start], body: [
      el('div', { class: 'room-intro' }, [
        icon('hand', 28),
        el('p', { text: t('rooms.open.intro') }),
      ]),
      el('label', { class: 'field', attrs: { for: 'room-title' } }, [el('span', { class: 'field-label', text: t('rooms.open.room-title') }), title]),
      el('label', { class: 'field', attrs: { for: 'room-passcode' } }, [
        el('span', { class: 'field-label', text: t('rooms.open.passcode') }),
        passcode,
        el('span', { class: 'field-hint', text: t('rooms.open.passcode-hint') }),
      ]),
      switchField(download, t('rooms.open.download'), t('rooms.every-page-shown-with-its')),
      error,
    ],
  });
  cancel.addEventListener('click', () => dialog.close());
  submitToStart(form, {
    error, start,
    async create() {
      const body = { allowDownload: download.checked };
      if (title.value.trim()) body.title = title.value.trim();
      if (passcode.value.trim()) body.passcode = passcode.value.trim();
      const room = await api('/api/v1/rooms', { method: 'POST', body });
      return '/r/' + encodeURIComponent(room.code) + '/moderate';
    },
  });
  dialog.showModal();
  title.focus();
  return dialog;
}

const button = document.getElementById('open-room');
if (button) button.addEventListener('click', () => openRoomDialog());
