// The talks on the moderator's page (rooms/moderate.js): the talk-length form (for everyone, or
// one presenter) and the projector's timer switch; every second, the room's time, the talk on
// stage (its time, what is left, the chair told once when it runs over) and each presenter's time.

import { formatDuration, secondsSince, countdownText, presenterName, remainingText } from './common.js';
import { t } from '../core/i18n.js';
import { el, toast } from '../core/ui.js';
import { serverNow, talkClock, talkLength, timeOnStage, parseLength } from './talk.js';
import { roomOf } from './control.js';

const $ = (id) => document.getElementById(id);

/**
 * The talks of the moderator's page: `render(room, control)` draws the form, `tick()` the clocks.
 * `page` gives the live client (`live()`), whether the room ended (`ended()`), `send(command)`
 * and `render()` (the whole page, after a length is set).
 */
export function moderatorTalks(page) {
  const { send } = page;
  let live = null;
  let ended = false;
  let talkPhase = null; // the phase of the talk on stage at the last tick ({presenter, phase})
  const update = () => {
    live = page.live();
    ended = page.ended();
  };

  /** The talk-length form (for everyone, or one presenter) and the projector switch. */
  function renderTalkSettings(r, c) {
    const select = $('talk-for');
    const keep = select.value;
    const presenters = c.presenters || [];
    // Built again only when the presenters change: a list open under the pointer stays open.
    const names = JSON.stringify(presenters.map((p) => [p.id, p.name]));
    if (select.dataset.names !== names) {
      select.dataset.names = names;
      select.replaceChildren(
        el('option', { text: t('rooms.talk.everyone'), attrs: { value: '' } }),
        ...presenters.map((p) => el('option', { text: p.name, attrs: { value: p.id } })),
      );
      select.value = presenters.some((p) => p.id === keep) ? keep : '';
    }
    fillTalkLength(r);
    $('talk-projector').checked = Boolean(r.talks && r.talks.onProjector);
    for (const id of ['talk-for', 'talk-length', 'talk-length-set', 'talk-projector']) $(id).disabled = ended;
  }

  /** The length field shows what is set for the chosen presenter (or the default), unless being typed in. */
  function fillTalkLength(r) {
    const field = $('talk-length');
    if (document.activeElement === field) return;
    const target = $('talk-for').value;
    const own = target ? ((r.talks && r.talks.lengths) || {})[target] : (r.talks && r.talks.defaultLength);
    field.value = own ? formatDuration(own) : '';
    field.placeholder = target && talkLength(r, null) ? formatDuration(talkLength(r, null)) : t('rooms.talk.length-placeholder');
  }

  /** The timers, every second. */
  function tick() {
    if (!live || !live.session) return;
    const since = live.session.startedAt;
    $('room-elapsed').textContent = formatDuration(secondsSince(since));
    const r = roomOf(live);
    const now = serverNow(live);
    // The talk on stage: its time adds up across lends and turns (talk.js).
    const clock = r ? talkClock(r, now, { ended }) : null;
    $('onstage-time').textContent = formatDuration(clock ? clock.elapsed : secondsSince((r && r.controlSince) || since));
    const left = $('onstage-left');
    left.hidden = !clock || clock.remaining == null;
    if (!left.hidden) left.textContent = remainingText(clock);
    $('talk-pill').dataset.phase = clock ? clock.phase : 'idle';
    renderTalkNow(r, clock);
    for (const meta of document.querySelectorAll('.queue-item .room-item-meta')) {
      const at = Number(meta.dataset.since);
      meta.textContent = meta.dataset.borrowing
        ? t('rooms.borrowing-still-waiting', { name: meta.dataset.borrowing })
        : at ? t('rooms.waiting-for', { time: formatDuration(secondsSince(at)) }) : t('rooms.waiting');
    }
    for (const meta of document.querySelectorAll('.talk-meta')) {
      const id = meta.dataset.talkOf;
      const used = formatDuration(timeOnStage(r, id, now));
      const length = talkLength(r, id);
      meta.textContent = length ? t('rooms.talk.presenter-time', { used, length: formatDuration(length) }) : t('rooms.talk.presenter-time-open', { used });
    }
  }

  /** The talk card's clock: whose talk, how much is left, and the warnings the speaker gets. */
  function renderTalkNow(r, clock) {
    const box = $('talk-now');
    box.dataset.phase = clock ? clock.phase : 'idle';
    if (!clock) {
      $('talk-now-time').textContent = '–';
      $('talk-now-text').textContent = ended ? t('rooms.control.ended') : t('rooms.talk.no-talk');
      talkPhase = null;
      return;
    }
    const name = presenterName(r, clock.presenter);
    $('talk-now-time').textContent = clock.remaining == null ? formatDuration(clock.elapsed) : countdownText(clock.remaining);
    $('talk-now-text').textContent = clock.remaining == null
      ? t('rooms.talk.named-open', { name })
      : t('rooms.talk.named-' + clock.phase, { name, length: formatDuration(clock.length) });
    // Over time: said once to the chair, who may have to step in.
    if (clock.phase === 'over' && talkPhase && talkPhase.presenter === clock.presenter && talkPhase.phase !== 'over') {
      toast(t('rooms.talk.chair-over', { name }), { kind: 'info' });
    }
    talkPhase = { presenter: clock.presenter, phase: clock.phase };
  }

  $('talk-for').addEventListener('change', () => {
    update();
    if (roomOf(live)) fillTalkLength(roomOf(live));
  });
  $('talk-length-set').addEventListener('click', () => {
    update();
    const seconds = parseLength($('talk-length').value);
    if (Number.isNaN(seconds)) {
      toast(t('rooms.talk.length-invalid'), { kind: 'error' });
      $('talk-length').setAttribute('aria-invalid', 'true');
      return;
    }
    $('talk-length').removeAttribute('aria-invalid');
    const presenterId = $('talk-for').value || null;
    const name = presenterId ? presenterName(roomOf(live), presenterId) : '';
    send({ type: 'setTalkLength', presenterId, seconds }).then((ack) => {
      if (!ack) return;
      $('talk-length').blur();
      const length = seconds ? formatDuration(seconds) : '';
      const key = presenterId ? (seconds ? 'set-presenter' : 'cleared-presenter') : (seconds ? 'set-default' : 'cleared-default');
      toast(t('rooms.talk.' + key, { name, length }), { kind: 'success' });
      page.render();
    });
  });
  $('talk-length').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') $('talk-length-set').click();
  });
  $('talk-projector').addEventListener('change', (event) => send({ type: 'showTalkTimer', on: event.target.checked }));

  return {
    render(r, c) {
      update();
      renderTalkSettings(r, c);
    },
    tick() {
      update();
      tick();
    },
  };
}
