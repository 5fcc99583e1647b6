// The clocks of a room's presenter page (rooms/presenter.js), every second: the talk on stage in
// the bar, and this presenter's own talk in the control card: counting down while they speak,
// with the warnings said once each, and while they wait the length of their talk and the time
// they have had.

import { t } from '../core/i18n.js';
import { toast } from '../core/ui.js';
import { formatDuration, countdownText, secondsSince, presenterName, remainingText } from './common.js';
import { serverNow, talkClock, talkLength, timeOnStage } from './talk.js';
import { roomOf } from './control.js';

const $ = (id) => document.getElementById(id);

/**
 * The presenter page's clocks, drawn by `tick()`. `page` gives the live client (`live()`), this
 * presenter's id (`myId()`) and whether the room ended (`ended()`).
 */
export function presenterClocks(page) {
  let live = null;
  let myId = null;
  let ended = false;
  let talkPhase = null; // the phase of the talk I speak in at the last tick ({presenter, phase})

  function tick() {
    if (!live || !live.session) return;
    const r = roomOf(live);
    const now = serverNow(live);
    // The talk on stage: its time adds up across lends and turns (talk.js).
    const clock = r ? talkClock(r, now, { ended }) : null;
    $('now-time').textContent = clock && clock.remaining != null ? remainingText(clock)
      : formatDuration(clock ? clock.elapsed : secondsSince((r && r.controlSince) || live.session.startedAt));
    $('now-pill').dataset.phase = clock ? clock.phase : 'idle';
    if (r) renderTalkClock(r, clock, now);
  }

  /**
   * My talk's clock in the control card: counting down while I speak (in my own time, or in the
   * time of whoever lent me the stage), with a warning two minutes and thirty seconds before the end
   * and over time; while I wait, the length of my talk and the time I have had.
   */
  function renderTalkClock(r, clock, now) {
    const box = $('talk-clock');
    const c = r.control || {};
    const speaking = clock && (clock.presenter === myId || c.active === myId) && !ended;
    const length = talkLength(r, myId);
    const used = myId ? timeOnStage(r, myId, now) : 0;
    box.hidden = !speaking && !length && !used;
    if (box.hidden) {
      talkPhase = null;
      return;
    }
    if (!speaking) {
      box.dataset.phase = 'idle';
      $('talk-clock-label').textContent = t('rooms.talk.yours');
      $('talk-clock-time').textContent = length ? formatDuration(Math.max(0, length - used)) : formatDuration(used);
      $('talk-clock-note').textContent = length
        ? (used ? t('rooms.talk.waiting-used', { used: formatDuration(used), length: formatDuration(length) }) : t('rooms.talk.waiting-length', { length: formatDuration(length) }))
        : t('rooms.talk.waiting-open', { used: formatDuration(used) });
      talkPhase = null;
      return;
    }
    box.dataset.phase = clock.phase;
    $('talk-clock-label').textContent = clock.presenter === myId ? t('rooms.talk.yours') : t('rooms.talk.named', { name: presenterName(r, clock.presenter) });
    $('talk-clock-time').textContent = clock.remaining == null ? formatDuration(clock.elapsed) : countdownText(clock.remaining);
    $('talk-clock-note').textContent = clock.remaining == null ? t('rooms.talk.speaking-open')
      : t('rooms.talk.speaking-' + clock.phase, { length: formatDuration(clock.length) });
    // The warnings, said once each as the talk reaches them.
    const before = talkPhase && talkPhase.presenter === clock.presenter ? talkPhase.phase : null;
    if (before && before !== clock.phase && clock.phase !== 'running') {
      toast(t('rooms.talk.toast-' + clock.phase), { kind: clock.phase === 'warning' ? 'info' : 'error', timeout: 6000 });
    }
    talkPhase = { presenter: clock.presenter, phase: clock.phase };
  }

  return {
    tick() {
      live = page.live();
      myId = page.myId();
      ended = page.ended();
      tick();
    },
  };
}
