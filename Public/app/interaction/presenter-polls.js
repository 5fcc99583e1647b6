// The polls in the presenter's panel: sending a poll, the newest one with its live chart,
// response rate, open answers and word cloud and the buttons that move it on (close, reveal,
// share, put on screen), the earlier polls of the session, and the quiz leaderboard.
//
// State for tests and CSS: #active-poll[data-poll-id][data-poll-status]; .bar-row[data-count];
// [data-role=response-rate][data-answered][data-connected]; [data-role=poll-label];
// .history-item[data-poll-id] (earlier polls); [data-action=spotlight][data-spotlight-kind]
// [aria-pressed] (see presenter-spotlight.js).

import { t } from '../core/i18n.js';
import { el, confirmDialog, icon } from '../core/ui.js';
import { barChart, wordCloud, percent, leaderboardList, pollTitle } from './state.js';
import { kindLabel } from './question-bank.js';

export class PollsPane {
  /**
   * @param {object} o
   * @param {import('../live/live.js').LiveClient} o.live
   * @param {import('./state.js').InteractionState} o.state
   * @param {(command: object, failure?: string) => Promise<object>} o.send  sends, toasting a refusal
   * @param {import('./presenter-spotlight.js').OnScreen} o.onScreen
   * @param {HTMLElement} o.container
   * @param {() => void} o.reveal  brings the polls tab forward
   */
  constructor({ live, state, send, onScreen, container, reveal }) {
    this.live = live;
    this.state = state;
    this.send = send;
    this.onScreen = onScreen;
    this.showTab = () => reveal();
    this.activeBox = el('section', { class: 'active-poll', attrs: { id: 'active-poll', 'aria-live': 'polite' } });
    this.activeBox.hidden = true;
    this.history = el('section', { class: 'poll-history', attrs: { 'aria-labelledby': 'poll-history-title' } });
    this.history.hidden = true;
    container.append(this.activeBox, this.history);
  }

  render() {
    this.renderActive();
    this.renderHistory();
  }

  /**
   * Where this poll's results go: a choice poll's one control (hidden · on phones · big screen),
   * or an open poll's "Show on screen" for its word cloud and shared answers.
   */
  screenActions(entry) {
    const { poll } = entry;
    if (poll.kind === 'choice') return this.onScreen.resultsControl(entry);
    const buttons = [
        this.onScreen.button({ kind: 'wordCloud', pollId: poll.id }, t('spot.show-cloud')),
        this.onScreen.button({ kind: 'sharedAnswers', pollId: poll.id }, t('spot.show-shared')),
      ];
    return el('div', { class: 'active-actions screen-actions', attrs: { 'aria-label': t('spotlight.on-screen-for-everyone') } }, buttons);
  }

  /** The polls before the newest one: their label, status and what they can put on screen. */
  renderHistory() {
    const earlier = this.state.polls.slice(0, -1).reverse();
    this.history.hidden = !earlier.length;
    if (!earlier.length) {
      this.history.replaceChildren();
      return;
    }
    const list = el('ul', { class: 'history-list' });
    for (const entry of earlier) {
      const { poll, status } = entry;
      const results = this.state.results.get(poll.id);
      const answered = results ? results.answered : 0;
      list.append(el('li', { class: 'history-item', data: { pollId: poll.id, pollStatus: status } }, [
        el('p', { class: 'history-title' }, [
          el('strong', { text: pollTitle(this.state.polls, poll.id).label }),
          el('span', { text: ' · ' + poll.question }),
        ]),
        el('p', { class: 'history-meta', text: t('polls.history-meta', { kind: kindLabel(poll), answers: t('poll.answers', { count: answered }), status: ['open', 'closed', 'revealed'].includes(status) ? t('polls.status-' + status) : status }) }),
        this.screenActions(entry),
      ]));
    }
    this.history.replaceChildren(
      el('div', { class: 'pane-head' }, [el('h2', { text: t('polls.earlier'), attrs: { id: 'poll-history-title' } })]),
      list,
    );
  }

  async openPoll(poll, { quiet = false } = {}) {
    const clean = { kind: poll.kind, question: poll.question, showResults: Boolean(poll.showResults) };
    if (poll.kind === 'choice') {
      clean.choices = poll.choices;
      clean.multiple = Boolean(poll.multiple);
      clean.correct = poll.correct || [];
      if (poll.quiz) clean.quiz = true;
    }
    const open = this.state.polls.find((p) => p.status === 'open');
    if (open) {
      const ok = await confirmDialog({ title: t('polls.close-current-title'), message: t('polls.close-current-message', { question: open.poll.question }), confirmLabel: t('polls.close-and-send') });
      if (!ok) return false;
    }
    try {
      if (quiet) await this.live.send({ type: 'openPoll', poll: clean });
      else await this.send({ type: 'openPoll', poll: clean }, t('polls.not-sent'));
      this.showTab('polls');
      return true;
    } catch (error) {
      if (quiet) throw error;
      return false;
    }
  }

  /** The newest poll with its live results and the buttons that move it on. */
  renderActive() {
    const entry = this.state.latest;
    const box = this.activeBox;
    if (!entry) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const { poll, status } = entry;
    const results = this.state.results.get(poll.id) || { counts: [], answered: 0, connected: this.live.viewers || 0, answers: [] };
    box.hidden = false;
    box.dataset.pollId = String(poll.id);
    box.dataset.pollStatus = status;
    const chip = el('span', {
      class: 'poll-chip ' + (status === 'open' ? 'is-open' : status === 'revealed' ? 'is-revealed' : 'is-closed'),
      text: status === 'open' ? t('polls.chip-open') : status === 'revealed' ? t('polls.chip-answer') : t('polls.chip-closed'),
    });
    const rate = el('div', {
      class: 'response-rate', data: { role: 'response-rate', answered: results.answered, connected: results.connected },
    }, [
      el('strong', { text: t('polls.answered-rate', { answered: results.answered, connected: results.connected }) }),
      el('span', { text: ' ' + t('polls.answered') }),
      el('span', { class: 'rate-pct', text: results.connected ? ' · ' + t('poll.percent', { percent: percent(results.answered, results.connected) }) : '' }),
    ]);
    const rateBar = el('div', { class: 'rate-track', attrs: { 'aria-hidden': 'true' } }, [el('span', { class: 'rate-fill' })]);
    rateBar.firstChild.style.width = Math.min(100, percent(results.answered, results.connected)) + '%';
    const parts = [
      el('div', { class: 'active-head' }, [el('span', { class: 'sheet-kicker', attrs: { 'data-role': 'poll-label' } }, [icon('chart', 16), el('span', { text: pollTitle(this.state.polls, poll.id).label })]), chip]),
      el('h3', { class: 'active-question', text: poll.question }),
      // Where the results are is said once, by the results control below.
      el('p', { class: 'active-meta', text: kindLabel(poll) }),
      rate, rateBar,
    ];
    if (poll.kind === 'choice') {
      parts.push(barChart({ choices: poll.choices, counts: results.counts, answered: results.answered, correct: poll.correct || [] }));
    } else {
      const answers = results.answers || [];
      const shared = new Set(entry.shared.map((s) => s.answerId));
      parts.push(wordCloud(answers.map((a) => a.text)));
      const list = el('ul', { class: 'answer-list', attrs: { 'aria-label': t('polls.answers-newest') } });
      if (!answers.length) list.append(el('li', { class: 'pane-empty', text: t('polls.answers-arrive') }));
      for (const answer of answers) {
        // The server names it answerId (as in shared answers); protocol.md says id: take either.
        const answerId = answer.answerId !== undefined ? answer.answerId : answer.id;
        const isShared = shared.has(answerId);
        const share = el('button', {
          class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'share-answer', disabled: isShared, title: t('polls.share-title') },
          on: { click: () => this.send({ type: 'shareAnswer', pollId: poll.id, answerId }).catch(() => {}) },
        }, [icon(isShared ? 'check' : 'share', 14), el('span', { text: isShared ? t('polls.shared') : t('polls.share') })]);
        list.append(el('li', { class: 'answer-item' + (isShared ? ' is-shared' : ''), data: { answerId } }, [el('span', { class: 'answer-text', text: answer.text }), share]));
      }
      parts.push(list);
    }
    const buttons = [];
    if (status === 'open') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'close-poll' }, on: { click: () => this.send({ type: 'closePoll', pollId: poll.id }).catch(() => {}) } }, [icon('x', 16), el('span', { text: t('polls.close') })]));
    }
    const hasAnswer = (poll.correct || []).length > 0;
    if (poll.kind === 'choice' && hasAnswer && status !== 'revealed') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'reveal' }, on: { click: () => this.send({ type: 'revealPoll', pollId: poll.id, results: false }).catch(() => {}) } }, [icon('check', 16), el('span', { text: t('polls.reveal-answer') })]));
    }
    if (poll.kind === 'open' && status !== 'revealed') {
      buttons.push(el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'reveal-results', title: t('polls.end-title') }, on: { click: () => this.send({ type: 'revealPoll', pollId: poll.id, results: true }).catch(() => {}) } }, [icon('chart', 16), el('span', { text: t('polls.end') })]));
    }
    if (buttons.length) parts.push(el('div', { class: 'active-actions' }, buttons));
    parts.push(this.screenActions(entry));
    if (poll.quiz && status !== 'open') parts.push(this.quizSection());
    box.replaceChildren(...parts);
  }

  // ---- quiz leaderboard ----

  quizSection() {
    const board = this.state.leaderboard;
    const show = this.onScreen.button({ kind: 'leaderboard' }, t('spot.show-leaderboard'));
    return el('div', { class: 'quiz-board' }, [
      el('div', { class: 'pane-head' }, [
        el('h3', { class: 'quiz-board-title' }, [icon('trophy', 16), el('span', { text: t('poll.leaderboard') })]),
        el('span', { class: 'pane-count', text: board ? t('polls.players', { count: board.players }) : '' }),
      ]),
      board ? leaderboardList(board) : el('p', { class: 'muted', text: t('polls.scoring') }),
      show,
    ]);
  }
}
