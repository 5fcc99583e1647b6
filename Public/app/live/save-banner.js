// "The server cannot save right now": shown on a presenter's page (the console, a room's
// presenter and moderator pages) while the server answers commands `unavailable` (its database
// cannot be reached, #39), and gone at the next command it accepts. It covers the top edge of the
// stage and lets clicks through: nothing waits for it, the presenter goes on presenting.

import { t } from '../core/i18n.js';

/**
 * @param {EventTarget} live a LiveClient: its `rejected` ({id, code}), `ack` and `change` events
 * @param {HTMLElement} host where the banner goes (the stage's wrap)
 * @returns {{element: HTMLElement, stop: () => void}}
 */
export function mountSaveBanner(live, host) {
  const banner = document.createElement('div');
  banner.className = 'save-banner';
  banner.dataset.role = 'save-banner';
  banner.setAttribute('role', 'status');
  banner.setAttribute('aria-live', 'polite');
  banner.hidden = true;
  const title = document.createElement('strong');
  const text = document.createElement('span');
  banner.append(title, text);
  host.append(banner);

  const onRejected = (event) => {
    const { id, code } = event.detail || {};
    // A command the server could not store: nothing of it is kept.
    if (!id || code !== 'unavailable') return;
    title.textContent = t('live.cannot-save');
    text.textContent = t('live.cannot-save-text');
    banner.hidden = false;
  };
  // The next command the server accepted, or any new durable event (it was stored): it saves
  // again. A command answered `unavailable` as the database went away may still have been stored;
  // its event then arrives once the server catches up, and the page follows it without an ack.
  const onAck = () => { banner.hidden = true; };
  live.addEventListener('rejected', onRejected);
  live.addEventListener('ack', onAck);
  live.addEventListener('change', onAck);
  return {
    element: banner,
    stop() {
      live.removeEventListener('rejected', onRejected);
      live.removeEventListener('ack', onAck);
      live.removeEventListener('change', onAck);
      banner.remove();
    },
  };
}
