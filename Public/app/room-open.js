// The library's "Open a room" action: title, optional passcode, allow-download switch, then
// POST /api/v1/rooms and on to the moderator console (/r/{code}/moderate).

import { api } from './api.js';
import { el, icon, modalDialog } from './ui.js';

export function openRoomDialog() {
  const title = el('input', {
    class: 'input',
    attrs: { type: 'text', id: 'room-title', maxlength: '200', autocomplete: 'off', placeholder: 'e.g. Team meeting, Lightning talks' },
  });
  const passcode = el('input', {
    class: 'input',
    attrs: { type: 'text', id: 'room-passcode', maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: 'No passcode' },
  });
  const download = el('input', { attrs: { type: 'checkbox', id: 'room-download', role: 'switch' } });
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const cancel = el('button', { class: 'btn', text: 'Cancel', attrs: { type: 'button' } });
  const start = el('button', { class: 'btn btn-primary', attrs: { type: 'submit', id: 'room-start' } }, [icon('broadcast'), 'Open room']);
  const { dialog, content: form } = modalDialog({
    title: 'Open a room', id: 'room-dialog', form: true, open: false, actions: [cancel, start], body: [
      el('div', { class: 'room-intro' }, [
        icon('hand', 28),
        el('p', { text: 'Several presenters bring their own decks and take turns on one projector. You moderate: '
          + 'you hand over control, keep time, and can take the stage back at any moment.' }),
      ]),
      el('label', { class: 'field', attrs: { for: 'room-title' } }, [el('span', { class: 'field-label', text: 'Title' }), title]),
      el('label', { class: 'field', attrs: { for: 'room-passcode' } }, [
        el('span', { class: 'field-label', text: 'Passcode (optional)' }),
        passcode,
        el('span', { class: 'field-hint', text: 'Presenters and the audience type it to join. Your own screens (the projector) need none.' }),
      ]),
      el('label', { class: 'switch', attrs: { for: 'room-download' } }, [
        el('span', { class: 'switch-text' }, [
          el('span', { class: 'field-label', text: 'Allow the audience to download the slides' }),
          el('span', { class: 'field-hint', text: 'Every page shown, with its ink, as one PDF.' }),
        ]),
        download,
      ]),
      error,
    ],
  });
  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    start.disabled = true;
    try {
      const body = { allowDownload: download.checked };
      if (title.value.trim()) body.title = title.value.trim();
      if (passcode.value.trim()) body.passcode = passcode.value.trim();
      const room = await api('/api/v1/rooms', { method: 'POST', body });
      location.assign('/r/' + encodeURIComponent(room.code) + '/moderate');
    } catch (failure) {
      error.textContent = failure.message;
      start.disabled = false;
    }
  });
  dialog.showModal();
  title.focus();
  return dialog;
}

const button = document.getElementById('open-room');
if (button) button.addEventListener('click', () => openRoomDialog());
