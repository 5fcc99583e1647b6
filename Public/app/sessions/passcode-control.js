// The presenter console's access card in the join panel: the passcode, shown to read out and
// changed at any time, whether "Live now" lists the session, and whether everyone with the link
// may watch its replay (docs/protocol.md, "Replay"). PATCH /api/v1/sessions/{code}.
//
// State for tests and CSS: .access-card[data-has-passcode data-unlisted data-replay];
// [data-role=passcode-value]; [data-action=change-passcode], [data-action=remove-passcode];
// #listed-switch; #replay-switch.

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon, toast, promptDialog, confirmDialog } from '../core/ui.js';

/**
 * Mounts the card into `panel` after `after`, for the session `info` (GET /api/v1/sessions/{code}
 * as its host sees it: `passcode`, `hasPasscode`, `unlisted`). Returns nothing; the card keeps
 * its own state.
 */
export function mountPasscodeControl({ panel, after, code, info }) {
  const read = (from) => ({
    hasPasscode: Boolean(from && from.hasPasscode), passcode: (from && from.passcode) || null,
    unlisted: Boolean(from && from.unlisted), replay: (from && from.replay) || 'host',
  });
  let session = read(info);
  const value = el('span', { class: 'access-passcode', attrs: { 'data-role': 'passcode-value' } });
  const change = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'change-passcode' } });
  const remove = el('button', { class: 'btn btn-sm btn-ghost', attrs: { type: 'button', 'data-action': 'remove-passcode' } }, [icon('x', 16), t('live.remove')]);
  const listed = el('input', { attrs: { type: 'checkbox', id: 'listed-switch', role: 'switch' } });
  const replay = el('input', { attrs: { type: 'checkbox', id: 'replay-switch', role: 'switch' } });
  const card = el('section', { class: 'access-card', attrs: { 'aria-label': t('live.passcode-and-listing') } }, [
    el('div', { class: 'access-row' }, [
      el('span', { class: 'access-label' }, [icon('lock', 16), t('live.passcode')]),
      value,
    ]),
    el('div', { class: 'access-actions' }, [change, remove]),
    el('label', { class: 'switch', attrs: { for: 'listed-switch' } }, [
      el('span', { class: 'switch-text' }, [
        el('span', { class: 'field-label', text: t('live.listed') }),
        el('span', { class: 'field-hint', text: t('live.listed-hint') }),
      ]),
      listed,
    ]),
    el('label', { class: 'switch', attrs: { for: 'replay-switch' } }, [
      el('span', { class: 'switch-text' }, [
        el('span', { class: 'field-label', text: t('live.replay-shared') }),
        el('span', { class: 'field-hint', text: t('live.replay-shared-hint') }),
      ]),
      replay,
    ]),
  ]);

  function render() {
    card.dataset.hasPasscode = String(session.hasPasscode);
    card.dataset.unlisted = String(session.unlisted);
    card.dataset.replay = session.replay;
    if (session.passcode) {
      value.textContent = session.passcode;
      value.classList.remove('is-muted');
    } else {
      value.textContent = session.hasPasscode ? t('live.passcode-hidden') : t('live.passcode-none');
      value.classList.add('is-muted');
    }
    change.replaceChildren(icon('edit', 16), session.hasPasscode ? t('live.change') : t('live.set-passcode'));
    remove.hidden = !session.hasPasscode;
    listed.checked = !session.unlisted;
    replay.checked = session.replay === 'link';
  }

  async function save(body, done) {
    try {
      const updated = await api('/api/v1/sessions/' + encodeURIComponent(code), { method: 'PATCH', body });
      session = read(updated);
      render();
      if (done) toast(done, { kind: 'success' });
      return true;
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
      render();
      return false;
    }
  }

  change.addEventListener('click', async () => {
    const passcode = await promptDialog({
      title: session.hasPasscode ? t('live.change-passcode') : t('live.set-passcode'), label: t('live.passcode'),
      value: session.passcode || '', confirmLabel: t('common.save'), maxLength: 64,
    });
    if (passcode === null || passcode === session.passcode) return;
    save({ passcode }, t('live.passcode-changed'));
  });
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: t('live.remove-passcode-title'), message: t('live.remove-passcode-message'), confirmLabel: t('live.remove'),
    });
    if (ok) save({ passcode: null }, t('live.passcode-removed'));
  });
  listed.addEventListener('change', () => {
    save({ unlisted: !listed.checked }, listed.checked ? t('live.shown-live-now') : t('live.hidden-live-now'));
  });

  replay.addEventListener('change', () => {
    save({ replay: replay.checked ? 'link' : 'host' }, replay.checked ? t('live.replay-shared-on') : t('live.replay-shared-off'));
  });

  render();
  if (after && after.parentNode === panel) after.after(card);
  else panel.append(card);
  return card;
}
