// What the host put on screen for everyone (docs/protocol.md, "On screen (spotlight)"): a poll's
// chart, an open poll's word cloud or shared answers, one audience question, or the quiz
// leaderboard, full-screen over the stage — on every viewer's device, on the room's projector and
// in the presenter's console — live as answers arrive, and gone when the host takes it off.
//
// Made for the back of a lecture hall: large type, high contrast, and never colour alone (counts
// and percentages as text, the right answer marked "✓ Right answer" in words once revealed).
//
//   mountSpotlight({ live, container, onTakeOff })
//
// `container` is the element it covers (positioned); mounting again on the same container with a
// new LiveClient (a page that reconnects with a new client) reuses the screen. `onTakeOff`, when
// given (the presenter's console), adds a "Take off screen" button.
//
// State for tests and CSS: #spotlight[data-kind][data-poll-id][data-question-id] (hidden when
// nothing is on screen), <body data-spotlight> (the kind, or none); .spot-bar[data-index]
// [data-count][data-percent][data-correct]; .spot-word[data-count]; .spot-answer; .spot-question;
// .spot-leader[data-rank][data-name][data-score]; [data-role=spot-answered][data-answered].

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { wordFrequencies, percent, formatNumber, pollTitle, ordinal } from './state.js';

const screens = new WeakMap();

/** Puts the spotlight screen over `container`, following `live`. Returns the screen. */
export function mountSpotlight({ live, container, onTakeOff = null }) {
  let screen = screens.get(container);
  if (!screen) {
    screen = new SpotlightScreen(container, { onTakeOff });
    screens.set(container, screen);
  }
  if (live) screen.attach(live);
  return screen;
}

/** Its stylesheet, on pages that do not link it (the projector, the console). */
function ensureStyles() {
  if (document.querySelector('link[href="/app/interaction/spotlight.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/interaction/spotlight.css' } }));
}

const LETTERS = 'ABCDEFGH';

export class SpotlightScreen {
  constructor(container, { onTakeOff }) {
    ensureStyles();
    this.container = container;
    this.onTakeOff = onTakeOff;
    this.live = null;
    this.results = new Map(); // pollId -> the newest results message
    this.leaderboard = null;
    this.body = el('div', { class: 'spot-body' });
    this.head = el('header', { class: 'spot-head' });
    const parts = [this.head, this.body];
    if (onTakeOff) {
      this.takeOff = el('button', {
        class: 'btn spot-take-off', attrs: { type: 'button', 'data-action': 'spotlight-off', title: t('spotlight.take-off-title') },
        text: t('spotlight.take-off'), on: { click: () => this.onTakeOff() },
      });
      parts.push(this.takeOff);
    }
    this.screen = el('section', {
      class: 'spotlight-screen', attrs: { id: 'spotlight', role: 'region', 'aria-label': t('spotlight.on-screen-for-everyone') },
    }, parts);
    this.screen.hidden = true;
    this.screen.dataset.kind = 'none';
    container.append(this.screen);
  }

  attach(live) {
    if (this.live === live) return;
    this.live = live;
    const mine = (handler) => (event) => { if (this.live === live) handler(event.detail); };
    live.addEventListener('welcome', mine(({ welcome }) => {
      this.results = new Map((welcome.results || []).map((r) => [r.pollId, r]));
      this.leaderboard = welcome.leaderboard || null;
      this.render();
    }));
    live.addEventListener('change', mine(() => this.render()));
    live.addEventListener('sync', mine(() => this.render()));
    live.addEventListener('message', mine((message) => {
      if (message.type === 'results') {
        this.results.set(message.pollId, message);
        const spot = this.live.state.spotlight;
        if (spot && spot.pollId === message.pollId) this.render();
      } else if (message.type === 'leaderboard') {
        this.leaderboard = { entries: message.entries || [], players: message.players || 0 };
        const spot = this.live.state.spotlight;
        if (spot && spot.kind === 'leaderboard') this.render();
      }
    }));
    this.render();
  }

  render() {
    const state = (this.live && this.live.state) || {};
    const spot = state.spotlight || null;
    const kind = spot ? spot.kind : 'none';
    this.screen.hidden = !spot;
    this.screen.dataset.kind = kind;
    document.body.dataset.spotlight = kind;
    if (!spot) {
      this.head.replaceChildren();
      this.body.replaceChildren();
      delete this.screen.dataset.pollId;
      delete this.screen.dataset.questionId;
      return;
    }
    if (spot.pollId !== undefined) this.screen.dataset.pollId = String(spot.pollId);
    else delete this.screen.dataset.pollId;
    if (spot.questionId !== undefined) this.screen.dataset.questionId = spot.questionId;
    else delete this.screen.dataset.questionId;
    const polls = state.polls || [];
    const entry = spot.pollId !== undefined ? polls.find((p) => p.poll.id === spot.pollId) : null;
    switch (kind) {
      case 'pollResults':
        this.renderChart(polls, entry);
        break;
      case 'wordCloud':
        this.renderCloud(polls, entry);
        break;
      case 'sharedAnswers':
        this.renderShared(polls, entry);
        break;
      case 'question':
        this.renderQuestion(spot);
        break;
      case 'leaderboard':
        this.renderLeaderboard();
        break;
      default:
        this.setHead(t('spotlight.on-screen'), '');
        this.body.replaceChildren();
    }
    this.screen.setAttribute('aria-label', t('spotlight.on-screen-for-everyone-what', { what: this.head.textContent || kind }));
  }

  setHead(kicker, title) {
    const parts = [el('p', { class: 'spot-kicker', text: kicker })];
    if (title) parts.push(el('h2', { class: 'spot-title', text: title }));
    this.head.replaceChildren(...parts);
  }

  /** "12 answers · voting open" under a poll. */
  answeredLine(entry, answered) {
    const open = entry && entry.status === 'open';
    return el('p', { class: 'spot-foot', data: { role: 'spot-answered', answered } }, [
      el('strong', { text: t('poll.answers', { count: answered }) }),
      el('span', { text: ' · ' + (open ? t('spotlight.voting-open') : t('spotlight.voting-closed')) }),
    ]);
  }

  renderChart(polls, entry) {
    if (!entry) return this.missing(t('spotlight.poll-missing'));
    const { poll } = entry;
    const title = pollTitle(polls, poll.id);
    this.setHead(t('spotlight.results-head', { label: title.label }), poll.question);
    const results = this.results.get(poll.id) || { counts: [], answered: 0 };
    const counts = results.counts || [];
    const answered = results.answered || 0;
    const max = Math.max(1, ...counts);
    // The right answer shows once it is revealed to the room (the console's copy knows it sooner).
    const correct = entry.status === 'revealed' ? poll.correct || [] : [];
    const list = el('ol', { class: 'spot-bars', attrs: { 'aria-label': t('poll.results') } });
    poll.choices.forEach((choice, index) => {
      const count = counts[index] || 0;
      const pct = percent(count, answered);
      const right = correct.includes(index);
      const fill = el('span', { class: 'spot-fill' });
      fill.style.width = (count / max) * 100 + '%';
      list.append(el('li', {
        class: 'spot-bar' + (right ? ' is-correct' : ''),
        data: { index, count, percent: pct, correct: String(right) },
        attrs: { 'aria-label': [LETTERS[index], t('poll.bar-label', { choice, count, percent: pct }), right ? t('poll.bar-right') : null].filter(Boolean).join(', ') },
      }, [
        el('div', { class: 'spot-bar-head' }, [
          el('span', { class: 'spot-letter', text: LETTERS[index], attrs: { 'aria-hidden': 'true' } }),
          el('span', { class: 'spot-choice', text: choice }),
          right ? el('span', { class: 'spot-right', text: t('spotlight.right-answer') }) : null,
          el('span', { class: 'spot-value' }, [
            el('strong', { text: t('poll.percent', { percent: pct }) }),
            el('span', { text: ' · ' + t('poll.votes', { count }) }),
          ]),
        ]),
        el('div', { class: 'spot-track', attrs: { 'aria-hidden': 'true' } }, [fill]),
      ]));
    });
    this.body.replaceChildren(list, this.answeredLine(entry, answered));
  }

  renderCloud(polls, entry) {
    if (!entry) return this.missing(t('spotlight.poll-missing'));
    const { poll } = entry;
    this.setHead(t('spotlight.cloud-head', { label: pollTitle(polls, poll.id).label }), poll.question);
    const results = this.results.get(poll.id) || { answered: 0, answers: [] };
    const words = wordFrequencies((results.answers || []).map((a) => a.text), 40);
    const cloud = el('div', { class: 'spot-cloud', attrs: { 'aria-label': t('spotlight.frequent-words') } });
    if (!words.length) {
      cloud.append(el('p', { class: 'spot-empty', text: t('spotlight.words-arrive') }));
    } else {
      const max = words[0].count;
      const min = words[words.length - 1].count;
      // Biggest in the middle: alternate left and right of the centre.
      const ordered = [];
      words.forEach((w, i) => (i % 2 ? ordered.push(w) : ordered.unshift(w)));
      for (const { word, count } of ordered) {
        const weight = max === min ? 1 : (count - min) / (max - min);
        const span = el('span', {
          class: 'spot-word w' + Math.round(weight * 4), text: word, data: { count },
          attrs: { title: word + ': ' + formatNumber(count), 'aria-label': t('spotlight.word-count', { word, count }) },
        });
        span.style.fontSize = 'calc(' + (2.6 + weight * 7).toFixed(2) + 'cqmin + 6px)';
        cloud.append(span);
      }
    }
    this.body.replaceChildren(cloud, this.answeredLine(entry, results.answered || 0));
  }

  renderShared(polls, entry) {
    if (!entry) return this.missing(t('spotlight.poll-missing'));
    const { poll } = entry;
    this.setHead(t('spotlight.answers-head', { label: pollTitle(polls, poll.id).label }), poll.question);
    const shared = entry.shared || [];
    const list = el('ul', { class: 'spot-answers' + (shared.length > 4 ? ' is-many' : ''), attrs: { 'aria-label': t('spotlight.shared-answers') } });
    if (!shared.length) list.append(el('li', { class: 'spot-empty', text: t('spotlight.answers-appear') }));
    // The newest first: what the presenter just shared is what the room is looking for.
    for (const answer of shared.slice().reverse().slice(0, 12)) {
      list.append(el('li', { class: 'spot-answer', data: { answerId: answer.answerId }, text: answer.text }));
    }
    this.body.replaceChildren(list);
  }

  renderQuestion(spot) {
    this.setHead(t('spotlight.question-from-audience'), '');
    this.body.replaceChildren(el('figure', { class: 'spot-question' }, [
      el('blockquote', { class: 'spot-question-text', text: spot.text || '' }),
      el('figcaption', { class: 'spot-asker' + (spot.name ? '' : ' is-anonymous'), text: t('spotlight.asker', { name: spot.name || t('common.anonymous') }) }),
    ]));
  }

  renderLeaderboard() {
    const board = this.leaderboard;
    this.setHead(t('spotlight.quiz'), t('poll.leaderboard'));
    const entries = (board && board.entries) || [];
    const list = el('ol', { class: 'spot-leaders', attrs: { 'aria-label': t('poll.leaderboard') } });
    if (!entries.length) list.append(el('li', { class: 'spot-empty', text: t('poll.no-points') }));
    for (const entry of entries) {
      list.append(el('li', {
        class: 'spot-leader' + (entry.rank <= 3 ? ' is-top' + entry.rank : ''),
        data: { rank: entry.rank, name: entry.name, score: entry.score },
      }, [
        el('span', { class: 'spot-rank', text: ordinal(entry.rank) }),
        el('span', { class: 'spot-name', text: entry.name }),
        el('span', { class: 'spot-score', text: formatNumber(entry.score) + ' pts' }),
      ]));
    }
    const players = board ? board.players : 0;
    this.body.replaceChildren(list, el('p', { class: 'spot-foot', text: formatNumber(players) + (players === 1 ? ' player' : ' players') }));
  }

  missing(text) {
    this.setHead(t('spotlight.on-screen'), '');
    this.body.replaceChildren(el('p', { class: 'spot-empty', text }));
  }
}
