// The talk's countdown on a room's projector, when the chair wants it (the moderator's switch,
// `showTalkTimer`; docs/protocol.md, "Rooms"): a large clock in a corner of the big screen, amber
// two minutes before the end, red in the last thirty seconds and over time. Self-contained: the
// projector's entry module imports it with one line; it finds the page's live client as it is
// made (live.js's `podium:live`) and draws over the element #projector.

import { t } from '../core/i18n.js';
import { countdownText, formatDuration } from './common.js';
import { serverNow, talkClock } from './talk.js';

/** Mounts the overlay on `live`, in `container`; returns a stop function. */
export function mountTalkTimerOverlay({ live, container }) {
  const time = document.createElement('span');
  time.className = 'talk-overlay-time';
  const label = document.createElement('span');
  label.className = 'talk-overlay-label';
  const box = document.createElement('div');
  box.className = 'talk-overlay';
  box.id = 'talk-overlay';
  box.setAttribute('role', 'timer');
  box.hidden = true;
  box.append(time, label);
  container.append(box);

  function render() {
    const state = live.state;
    const room = state && state.room;
    const on = Boolean(room && room.talks && room.talks.onProjector);
    const clock = on ? talkClock(room, serverNow(live), { ended: state.ended }) : null;
    box.hidden = !clock;
    if (!clock) return;
    box.dataset.phase = clock.phase;
    time.textContent = clock.remaining == null ? formatDuration(clock.elapsed) : countdownText(clock.remaining);
    label.textContent = t(clock.remaining == null ? 'rooms.talk.on-stage' : clock.remaining < 0 ? 'rooms.talk.over-time' : 'rooms.talk.left-label');
    box.setAttribute('aria-label', label.textContent + ' ' + time.textContent);
  }

  for (const type of ['welcome', 'change', 'sync']) live.addEventListener(type, render);
  const timer = setInterval(render, 500);
  render();
  return () => {
    clearInterval(timer);
    box.remove();
  };
}

// The projector page's live client: mount on it as soon as it is made (a new one, after a
// passcode, replaces the last).
let stopLast = null;
window.addEventListener('podium:live', (event) => {
  const live = event.detail;
  if (!live.hello || !live.hello.projector) return;
  if (stopLast) stopLast();
  stopLast = mountTalkTimerOverlay({ live, container: document.getElementById('projector') || document.body });
});
