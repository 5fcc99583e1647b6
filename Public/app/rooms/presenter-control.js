// The control card of a room's presenter page (rooms/presenter.js): whether this presenter is
// presenting, lent the stage, waiting (and where in the queue) or not presenting; asking for the
// stage, cancelling, giving it back or taking it back, passing it on, and do-not-disturb.

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { presenterName, nowPresenting } from './common.js';
import { roomOf } from './control.js';

const $ = (id) => document.getElementById(id);

/**
 * The control card, drawn by `render(control)`. `page` gives the live client (`live()`), this
 * presenter's id (`myId()`), whether the room ended (`ended()`), the presenters connected
 * (`connected()`, a Set) and `send(command)`.
 */
export function presenterControl(page) {
  const { send } = page;
  let live = null;
  let myId = null;
  let ended = false;
  let connected = new Set();

  $('request').addEventListener('click', () => send({ type: 'request' }));
  $('cancel-request').addEventListener('click', () => send({ type: 'cancelRequest' }));
  $('return-control').addEventListener('click', () => send({ type: 'returnControl' }));
  $('pass').addEventListener('click', () => {
    const target = $('pass-to').value;
    if (target) send({ type: 'pass', presenterId: target });
  });
  $('dnd').addEventListener('change', (event) => send({ type: 'doNotDisturb', on: event.target.checked }));

  function renderControl(c) {
    const queue = c.queue || [];
    const position = queue.indexOf(myId);
    const presenting = c.active === myId;
    const borrowed = presenting && Boolean(c.lender);
    const lent = c.lender === myId;
    let state = 'idle';
    let title = t('rooms.you-are-not-presenting');
    let text = t('rooms.control.has-stage-ask', { name: nowPresenting(roomOf(live)) });
    if (presenting) {
      state = 'presenting';
      title = t('rooms.you-are-presenting');
      text = borrowed && position >= 0 ? t('rooms.control.lent-you-queued', { name: presenterName(roomOf(live), c.lender), position: position + 1 })
        : borrowed ? t('rooms.control.lent-you', { name: presenterName(roomOf(live), c.lender) })
        : live.state.playback ? t('rooms.control.video-on')
          : t('rooms.control.deck-on');
    } else if (lent) {
      state = 'lent';
      title = t('rooms.control.you-lent');
      text = t('rooms.control.has-it', { name: presenterName(roomOf(live), c.active) });
    } else if (position >= 0) {
      state = 'waiting';
      title = position === 0 ? t('rooms.control.you-are-next') : t('rooms.control.waiting', { position: position + 1 });
      text = c.moderatorDoNotDisturb ? t('rooms.control.sees-soon') : t('rooms.control.sees');
    } else if (!c.active && !c.presenters.length) {
      text = t('rooms.control.moderator-has');
    }
    if (ended) {
      state = 'idle';
      title = t('rooms.control.ended');
      text = t('rooms.control.thank-you');
    }
    $('control-card').dataset.state = state;
    $('control-card').dataset.position = position >= 0 ? String(position + 1) : '';
    $('control-title').textContent = title;
    $('control-text').textContent = text;
    // A borrower may ask for a turn of their own; whoever presents in their own right has one.
    $('request').hidden = (presenting && !borrowed) || lent || position >= 0 || ended;
    $('cancel-request').hidden = position < 0 || ended;
    $('return-control').hidden = !(borrowed || lent) || ended;
    $('return-control').querySelector('span:last-child').textContent = lent ? t('rooms.control.take-back') : t('rooms.return-control');

    const others = (c.presenters || []).filter((p) => p.id !== myId);
    const canPass = presenting && !borrowed && others.length > 0 && !ended;
    $('pass-field').hidden = !canPass;
    const select = $('pass-to');
    const keep = select.value;
    select.replaceChildren(...others.map((p) => el('option', {
      text: connected.has(p.id) ? p.name : t('rooms.offline-name', { name: p.name }), attrs: { value: p.id },
    })));
    if (others.some((p) => p.id === keep)) select.value = keep;

    $('dnd-field').hidden = !presenting || ended;
    $('dnd').checked = Boolean(c.presenterDoNotDisturb);
    $('dnd-hint').textContent = c.presenterDoNotDisturb && queue.length
      ? t('rooms.dnd-waiting', { count: queue.length })
      : t('rooms.requests-from-others-wait-quietly');
  }

  return {
    render(c) {
      live = page.live();
      myId = page.myId();
      ended = page.ended();
      connected = page.connected();
      renderControl(c);
    },
  };
}
