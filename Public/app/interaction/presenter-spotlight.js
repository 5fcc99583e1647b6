// Results on stage, from the presenter's panel: "Show on screen" / "Take off screen" buttons for
// a poll's chart, an open poll's word cloud and shared answers, the quiz leaderboard and a
// question; the spotlight itself over the console's stage (what the room sees, with "Take off
// screen"); and a line in the panel saying what is on screen now. One `spotlight` command
// (docs/protocol.md, "On screen (spotlight)") puts it on every viewer's screen and the projector.
//
// State for tests: [data-action=spotlight][data-spotlight-kind][aria-pressed] (a toggle per
// thing); [data-role=on-screen] (the line in the panel, hidden when nothing is on screen); a choice
// poll's one results control [data-role=results-where][data-where] (see resultsControl).

import { t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { pollTitle } from './state.js';
import { mountSpotlight } from './spotlight.js';

const KIND_NAMES = {
  pollResults: 'spot.kind-results', wordCloud: 'spot.kind-cloud', sharedAnswers: 'spot.kind-shared', question: 'spot.kind-question', leaderboard: 'spot.kind-leaderboard',
};

export class OnScreen {
  /**
   * @param {object} o
   * @param {import('../live/live.js').LiveClient} o.live
   * @param {(command: object, failure?: string) => Promise<object>} o.send
   * @param {HTMLElement|null} o.stage  what the spotlight covers on the console (the stage's box)
   */
  constructor({ live, send, stage }) {
    this.live = live;
    this.send = send;
    this.screen = stage ? mountSpotlight({ live, container: stage, onTakeOff: () => this.set(null) }) : null;
    this.line = el('div', { class: 'on-screen-line', attrs: { 'data-role': 'on-screen', role: 'status' } });
    this.line.hidden = true;
  }

  get current() {
    return this.live.state.spotlight || null;
  }

  isOn(target) {
    const now = this.current;
    return Boolean(now && now.kind === target.kind && (now.pollId ?? null) === (target.pollId ?? null)
      && (now.questionId ?? null) === (target.questionId ?? null));
  }

  /** Puts `target` on everyone's screen, or (null) takes what is there off. */
  set(target) {
    return this.send({ type: 'spotlight', spotlight: target }, t('spot.not-changed')).catch(() => {});
  }

  /** A toggle: "Show on screen" puts `target` there, "Take off screen" takes it off. */
  button(target, label = t('spot.show')) {
    const on = this.isOn(target);
    return el('button', {
      class: 'btn btn-sm spot-toggle' + (on ? ' is-on' : ''),
      attrs: {
        type: 'button', 'data-action': 'spotlight', 'data-spotlight-kind': target.kind, 'aria-pressed': String(on),
        title: on ? t('spotlight.take-off-title') : t('spot.show-title'),
      },
      on: { click: () => this.set(on ? null : target) },
    }, [icon(on ? 'x' : 'screen', 14), el('span', { text: on ? t('spotlight.take-off') : label })]);
  }

  /**
   * Where a choice poll's results are, as one state: hidden from the audience, on everyone's
   * phones (`showResults`), or on the big screen as well (its `pollResults` spotlight, which the
   * server makes shown-to-everyone too). One line says where they are; three buttons move them.
   */
  resultsWhere(entry) {
    if (this.isOn({ kind: 'pollResults', pollId: entry.poll.id })) return 'screen';
    return entry.resultsRevealed || entry.poll.showResults ? 'phones' : 'hidden';
  }

  /** Moves a poll's results to `where` (hidden | phones | screen). */
  async moveResults(entry, where) {
    const pollId = entry.poll.id;
    const target = { kind: 'pollResults', pollId };
    if (where === 'screen') return this.set(target);
    if (where === 'hidden') return this.send({ type: 'showResults', pollId, shown: false }, t('spot.not-changed')).catch(() => {});
    // On phones: off the big screen (shown to everyone already, or shown now).
    if (this.isOn(target)) await this.set(null);
    if (!(entry.resultsRevealed || entry.poll.showResults)) {
      await this.send({ type: 'showResults', pollId, shown: true }, t('spot.not-changed')).catch(() => {});
    }
    return undefined;
  }

  /**
   * The control: [data-role=results-where][data-where] with its line [data-role=results-where-line]
   * and the buttons [data-results-to=hidden|phones|screen][aria-pressed].
   */
  resultsControl(entry) {
    const where = this.resultsWhere(entry);
    const choices = ['hidden', 'phones', 'screen'].map((to) => el('button', {
      class: 'btn btn-sm results-to' + (to === where ? ' is-on' : ''),
      attrs: {
        type: 'button', 'data-results-to': to, 'aria-pressed': String(to === where), title: t('polls.results-to-' + to + '-title'),
      },
      on: { click: () => { if (to !== this.resultsWhere(entry)) this.moveResults(entry, to); } },
    }, [icon({ hidden: 'eyeOff', phones: 'phone', screen: 'screen' }[to], 14), el('span', { text: t('polls.results-to-' + to) })]));
    return el('div', { class: 'results-where', attrs: { 'data-role': 'results-where', 'data-where': where } }, [
      el('p', { class: 'results-where-line', attrs: { 'data-role': 'results-where-line' } }, [
        icon({ hidden: 'eyeOff', phones: 'phone', screen: 'screen' }[where], 16), el('span', { text: t('polls.results-now-' + where) }),
      ]),
      el('div', { class: 'results-to-group', attrs: { role: 'group', 'aria-label': t('polls.results-where') } }, choices),
    ]);
  }

  /** "On screen: Poll 2 · Results" with a button to take it off, or nothing. */
  renderLine(polls) {
    const now = this.current;
    this.line.hidden = !now;
    if (!now) {
      this.line.replaceChildren();
      return;
    }
    let what = KIND_NAMES[now.kind] ? t(KIND_NAMES[now.kind]) : now.kind;
    if (now.pollId !== undefined) what = t('spot.what', { label: pollTitle(polls, now.pollId).label, kind: what });
    this.line.replaceChildren(
      icon('screen', 16),
      el('span', { class: 'on-screen-text' }, [el('strong', { text: t('spot.on-screen-label') + ' ' }), el('span', { text: what })]),
      el('button', {
        class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'spotlight-off-panel' },
        on: { click: () => this.set(null) },
      }, [icon('x', 14), el('span', { text: t('spotlight.take-off') })]),
    );
  }
}
