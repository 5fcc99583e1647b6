// Audience interaction, shared by the presenter console and the viewer (docs/protocol.md,
// "Audience interaction"): the polls of the session rebuilt from the welcome and the durable
// events, the latest tallies, the viewer's own answers, the audience's questions and the viewer
// list; plus the bar chart and the word cloud, drawn with plain DOM (text via textContent only).

import { t, language, formatNumber as formatLocalNumber, formatRelativeTime, formatDate } from '../core/i18n.js';
import { el } from '../core/ui.js';

/**
 * What a client knows of the session's interaction, kept up to date from a LiveClient.
 * Dispatches `update` (CustomEvent, detail {kind}) with kind: polls | results | myAnswer |
 * questions | viewers | welcome.
 */
export class InteractionState extends EventTarget {
  constructor(live) {
    super();
    this.polls = []; // [{poll, status, resultsRevealed, shared}], oldest first
    this.results = new Map(); // pollId -> results message
    this.myAnswers = new Map(); // pollId -> {choices} | {text}
    this.questions = [];
    this.viewers = [];
    this.leaderboard = null; // {entries:[{rank,name,score}], players} once a quiz question closed
    this.myScore = null; // {score, rank, players} (viewers)
    this.questionMode = { public: false, approval: false };
    this.publicQuestions = []; // viewers, while questions are public
    this.myVotes = new Set();
    this.welcomed = false;
    this.attach(live);
  }

  attach(live) {
    if (this.live === live) return;
    this.live = live;
    live.addEventListener('welcome', (e) => this.fromWelcome(e.detail.welcome));
    live.addEventListener('change', (e) => this.onEvent(e.detail.event, e.detail.state));
    live.addEventListener('message', (e) => this.onMessage(e.detail));
  }

  emit(kind, extra = {}) {
    this.dispatchEvent(new CustomEvent('update', { detail: { kind, ...extra } }));
  }

  poll(id) {
    return this.polls.find((p) => p.poll.id === id) || null;
  }

  /** The newest poll (open or not), or null. */
  get latest() {
    return this.polls.length ? this.polls[this.polls.length - 1] : null;
  }

  fromWelcome(welcome) {
    const snapshot = welcome.snapshot || {};
    this.polls = (snapshot.polls || []).map((p) => ({
      poll: p.poll, status: p.status, resultsRevealed: Boolean(p.resultsRevealed), shared: (p.shared || []).slice(),
    }));
    this.results = new Map((welcome.results || []).map((r) => [r.pollId, r]));
    if (welcome.myAnswers) {
      this.myAnswers = new Map(Object.entries(welcome.myAnswers).map(([id, answer]) => [Number(id), answer]));
    }
    if (Array.isArray(welcome.questions)) this.questions = welcome.questions;
    if (Array.isArray(welcome.viewerList)) this.viewers = welcome.viewerList;
    this.leaderboard = welcome.leaderboard || null;
    this.myScore = welcome.myScore || null;
    this.questionMode = { public: false, approval: false, ...(snapshot.questionMode || {}) };
    this.publicQuestions = welcome.publicQuestions || [];
    this.myVotes = new Set(welcome.myVotes || []);
    this.welcomed = true;
    this.emit('welcome');
  }

  /**
   * Polls and the question mode come from live.js's reducer (`applyEvent`), the one that mirrors
   * the server's: this keeps no copy of its rules, and only says what changed.
   */
  onEvent(event, state) {
    const mine = (state && state.polls) || [];
    switch (event.type) {
      case 'pollOpened':
      case 'pollClosed':
      case 'pollRevealed':
      case 'resultsShown':
      case 'answerShared':
      case 'ended':
        this.polls = mine.map((p) => ({
          poll: p.poll, status: p.status, resultsRevealed: Boolean(p.resultsRevealed), shared: (p.shared || []).slice(),
        }));
        this.emit('polls', { event });
        break;
      case 'questionMode':
        this.questionMode = { public: false, approval: false, ...((state && state.questionMode) || event.questions || {}) };
        if (!this.questionMode.public) this.publicQuestions = [];
        this.emit('questionMode', { event });
        break;
      default:
        break;
    }
  }

  onMessage(message) {
    switch (message.type) {
      case 'results':
        this.results.set(message.pollId, message);
        this.emit('results', { pollId: message.pollId });
        break;
      case 'myAnswer': {
        const answer = {};
        if (Array.isArray(message.choices)) answer.choices = message.choices;
        if (typeof message.text === 'string') answer.text = message.text;
        this.myAnswers.set(message.pollId, answer);
        this.emit('myAnswer', { pollId: message.pollId });
        break;
      }
      case 'questions': {
        const before = new Set(this.questions.map((q) => q.id));
        this.questions = message.questions || [];
        const added = this.questions.filter((q) => !before.has(q.id));
        this.emit('questions', { added });
        break;
      }
      case 'viewerList':
        this.viewers = message.viewers || [];
        this.emit('viewers');
        break;
      case 'leaderboard':
        this.leaderboard = { entries: message.entries || [], players: message.players || 0 };
        this.emit('leaderboard');
        break;
      case 'myScore':
        this.myScore = { score: message.score || 0, rank: message.rank ?? null, players: message.players || 0 };
        this.emit('leaderboard');
        break;
      case 'publicQuestions':
        this.publicQuestions = message.questions || [];
        this.emit('publicQuestions');
        break;
      case 'myVotes':
        this.myVotes = new Set(message.questionIds || []);
        this.emit('publicQuestions');
        break;
      default:
        break;
    }
  }
}

/**
 * How people name a poll: by its place in the session (oldest first, from 1) and its question,
 * never by its internal id (the seq that opened it). `polls` is the session's list
 * ([{poll}], as in the snapshot). Returns {number, label: "Poll 2", full: "Poll 2 · What is …?"}.
 * The server's SessionSnapshot.pollNumber counts the same way.
 */
export function pollTitle(polls, pollId) {
  const list = polls || [];
  const index = list.findIndex((p) => p.poll.id === pollId);
  const entry = index >= 0 ? list[index] : null;
  const number = index >= 0 ? index + 1 : null;
  const label = number ? t('poll.label-number', { number }) : t('poll.label');
  return { number, label, full: entry ? label + ' · ' + entry.poll.question : label };
}

/** "42%" of a part of a whole (0 when the whole is 0). */
export function percent(part, whole) {
  return whole > 0 ? Math.round((part / whole) * 100) : 0;
}

/**
 * The bar chart of a choice poll: one row per choice with its text, count and percentage (of the
 * people who answered), a bar, and marks for the right choices and the viewer's own.
 * Rows carry data-index, data-count, data-percent, data-correct, data-mine.
 */
export function barChart({ choices, counts = [], answered = 0, correct = null, mine = null, showCounts = true }) {
  const total = answered || 0;
  const max = Math.max(1, ...counts);
  const list = el('ol', { class: 'bars', attrs: { 'aria-label': t('poll.results') } });
  choices.forEach((choice, index) => {
    const count = counts[index] || 0;
    const pct = percent(count, total);
    const isCorrect = Boolean(correct && correct.includes(index));
    const isMine = Boolean(mine && mine.includes(index));
    const fill = el('span', { class: 'bar-fill' });
    fill.style.width = (showCounts ? (count / max) * 100 : 0) + '%';
    const label = el('span', { class: 'bar-label' }, [
      isCorrect ? el('span', { class: 'bar-mark', text: '✓', attrs: { 'aria-label': t('poll.right-answer') } }) : null,
      el('span', { class: 'bar-text', text: choice }),
      isMine ? el('span', { class: 'tag tag-mine', text: t('poll.your-answer') }) : null,
    ]);
    const value = showCounts
      ? el('span', { class: 'bar-value' }, [el('strong', { text: formatNumber(count) }), el('span', { text: ' · ' + t('poll.percent', { percent: pct }) })])
      : null;
    list.append(el('li', {
      class: 'bar-row',
      data: { index, count, percent: pct, correct: String(isCorrect), mine: String(isMine) },
      attrs: { 'aria-label': [t('poll.bar-label', { choice, count, percent: pct }), isCorrect ? t('poll.bar-right') : null, isMine ? t('poll.bar-mine') : null].filter(Boolean).join(', ') },
    }, [el('div', { class: 'bar-head' }, [label, value]), el('div', { class: 'bar-track', attrs: { 'aria-hidden': 'true' } }, [fill])]));
  });
  return list;
}

const STOP_WORDS = new Set((
  'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its ' +
  'just me my no not of on or our she so than that the their them then there these they this those to too us was we were ' +
  'what when where which who why will with would you your yours im its dont very more most much also about all any some ' +
  'de la le les et un une des du en est que qui pas pour sur der die das und ist nicht ein eine zu mit'
).split(/\s+/));

/** Word frequencies of a list of texts: [{word, count}] most frequent first, stop-words removed. */
export function wordFrequencies(texts, limit = 40) {
  const counts = new Map();
  for (const text of texts) {
    const words = String(text).toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) || [];
    for (let word of words) {
      word = word.replace(/['’-]+$/, '');
      if (word.length < 2 || STOP_WORDS.has(word.replace(/['’]/g, ''))) continue;
      counts.set(word, (counts.get(word) || 0) + 1);
    }
  }
  return [...counts.entries()].map(([word, count]) => ({ word, count }))
    .sort((a, b) => b.count - a.count || a.word.localeCompare(b.word)).slice(0, limit);
}

/** A word cloud: spans sized by frequency, in a shuffled but stable order. */
export function wordCloud(texts) {
  const words = wordFrequencies(texts);
  const box = el('div', { class: 'word-cloud', attrs: { 'aria-label': t('poll.word-cloud'), 'data-role': 'word-cloud' } });
  if (!words.length) {
    box.append(el('span', { class: 'muted', text: t('poll.words-appear') }));
    return box;
  }
  const max = words[0].count;
  const min = words[words.length - 1].count;
  // Biggest in the middle: alternate placing words left and right of the centre.
  const ordered = [];
  words.forEach((w, i) => (i % 2 ? ordered.push(w) : ordered.unshift(w)));
  for (const { word, count } of ordered) {
    const weight = max === min ? 1 : (count - min) / (max - min);
    const span = el('span', { class: 'cloud-word w' + Math.round(weight * 4), text: word, data: { count }, attrs: { title: word + ': ' + formatNumber(count) } });
    span.style.fontSize = (14 + weight * 22).toFixed(1) + 'px';
    box.append(span);
  }
  return box;
}

/**
 * A rank as the page's language writes it inside `poll.rank-of`: 1st, 2nd, 3rd, 11th… in English;
 * the number alone elsewhere (each language's message says "Platz 2", "2. místo" around it).
 */
export function ordinal(n) {
  if (language !== 'en' && language !== 'qps') return formatLocalNumber(n);
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return n + 'th';
  return n + ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th');
}

/** 1,420 (in the page's language: 1.420, 1 420…) */
export function formatNumber(n) {
  return formatLocalNumber(Number(n || 0));
}

/** The quiz leaderboard: an ordered list of rank, name, score. Rows carry data-rank, data-score. */
export function leaderboardList(board, { highlight = null } = {}) {
  const list = el('ol', { class: 'leaderboard', attrs: { 'aria-label': t('poll.leaderboard'), 'data-role': 'leaderboard' } });
  const entries = (board && board.entries) || [];
  if (!entries.length) {
    list.append(el('li', { class: 'leader-empty', text: t('poll.no-points') }));
    return list;
  }
  for (const entry of entries) {
    const me = highlight !== null && entry.rank === highlight.rank && entry.score === highlight.score;
    list.append(el('li', {
      class: 'leader-row' + (entry.rank <= 3 ? ' is-top' + entry.rank : '') + (me ? ' is-me' : ''),
      data: { rank: entry.rank, score: entry.score, name: entry.name },
    }, [
      el('span', { class: 'leader-rank', text: String(entry.rank) }),
      el('span', { class: 'leader-name', text: entry.name }),
      el('span', { class: 'leader-score', text: formatNumber(entry.score) }),
    ]));
  }
  return list;
}

/** "just now", "3 min ago", or the time of day. */
export function timeAgo(iso) {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return '';
  const seconds = Math.max(0, (Date.now() - then) / 1000);
  if (seconds < 45) return t('common.just-now');
  if (seconds < 3600) return formatRelativeTime(-seconds);
  return formatDate(then, { hour: '2-digit', minute: '2-digit' });
}
