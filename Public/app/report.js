// The report of a session or a room: /report.html?code=CODE (docs/protocol.md, "Report").
// Attendance over time, the clips shown, each poll with its chart, open answers, the audience's
// questions, and the CSV downloads. The top bar says which kind it is (#report-kind: "Session
// report", "Room report").
//
// State for tests and CSS: main#report[data-state] (loading | ready | error); .report-clip
// [data-video][data-played][data-deleted] (seconds of it played; a clip deleted from the library
// since); .report-poll [data-poll-id] with the shared chart's .bar-row[data-count][data-correct];
// .report-question [data-question-id][data-answered][data-presenter] (a room: who had the stage);
// a[data-csv].

import { api, goToLogin } from './api.js';
import { el, hydrateIcons, icon } from './ui.js';
import { barChart, percent, formatNumber } from './interaction.js';

hydrateIcons();

const SVG_NS = 'http://www.w3.org/2000/svg';
const main = document.getElementById('report');
const params = new URLSearchParams(location.search);
const code = (params.get('code') || decodeURIComponent(location.pathname.split('/')[2] || '')).trim().toUpperCase();
const base = '/api/v1/sessions/' + encodeURIComponent(code) + '/report';

function setState(state) {
  main.dataset.state = state;
  main.setAttribute('aria-busy', String(state === 'loading'));
}

function fail(title, text, link) {
  setState('error');
  main.replaceChildren(el('div', { class: 'empty-state report-error' }, [
    el('h1', { text: title }), el('p', { text }),
    link ? el('a', { class: 'btn btn-primary', text: link.label, attrs: { href: link.href } }) : null,
  ]));
}

function when(iso, options = { dateStyle: 'full', timeStyle: 'short' }) {
  const date = new Date(iso);
  return Number.isFinite(date.getTime()) ? date.toLocaleString([], options) : '';
}

function duration(from, to) {
  const minutes = Math.round((Date.parse(to) - Date.parse(from)) / 60000);
  if (!Number.isFinite(minutes) || minutes < 0) return '';
  if (minutes < 60) return minutes + ' min';
  return Math.floor(minutes / 60) + ' h ' + String(minutes % 60).padStart(2, '0') + ' min';
}

/** A span of seconds as "42 s", "3 min 05 s" or "1 h 02 min". */
function seconds(value) {
  const total = Math.max(0, Math.round(Number(value) || 0));
  const [hours, minutes, rest] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  if (hours) return hours + ' h ' + String(minutes).padStart(2, '0') + ' min';
  if (minutes) return minutes + ' min ' + String(rest).padStart(2, '0') + ' s';
  return rest + ' s';
}

function svg(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

/** Viewers per minute as columns (SVG), with the peak and the times at both ends. */
function attendanceChart(points) {
  if (!points.length) return el('p', { class: 'muted', text: 'Nobody joined this session.' });
  const width = 720;
  const height = 200;
  const pad = { left: 36, right: 8, top: 12, bottom: 26 };
  const max = Math.max(1, ...points.map((p) => p.viewers));
  const inner = width - pad.left - pad.right;
  const step = inner / points.length;
  const bar = Math.max(1, Math.min(step * 0.78, 28));
  const y = (v) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`, class: 'attendance-chart', role: 'img', 'data-role': 'attendance-chart',
    'aria-label': 'Viewers connected per minute, up to ' + max,
  });
  for (const v of [0, max]) {
    chart.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'axis-line' }));
    const label = svg('text', { x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis-label' });
    label.textContent = String(v);
    chart.append(label);
  }
  points.forEach((p, i) => {
    const rect = svg('rect', { x: pad.left + i * step + (step - bar) / 2, y: y(p.viewers), width: bar, height: Math.max(0, y(0) - y(p.viewers)), rx: Math.min(3, bar / 3), class: 'attendance-bar' });
    const title = svg('title');
    title.textContent = when(p.at, { timeStyle: 'short' }) + ': ' + p.viewers + (p.viewers === 1 ? ' viewer' : ' viewers');
    rect.append(title);
    chart.append(rect);
  });
  // Wide columns get their time under their middle; narrow ones at the chart's ends.
  const wide = step > 80;
  const first = svg('text', wide
    ? { x: pad.left + step / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label' }
    : { x: pad.left, y: height - 6, class: 'axis-label' });
  first.textContent = when(points[0].at, { timeStyle: 'short' });
  chart.append(first);
  if (points.length > 1) {
    const last = svg('text', wide
      ? { x: pad.left + step * (points.length - 0.5), y: height - 6, 'text-anchor': 'middle', class: 'axis-label' }
      : { x: width - pad.right, y: height - 6, 'text-anchor': 'end', class: 'axis-label' });
    last.textContent = when(points[points.length - 1].at, { timeStyle: 'short' });
    chart.append(last);
  }
  return chart;
}

function stat(value, label, role) {
  return el('div', { class: 'report-stat', data: { role } }, [el('strong', { text: value }), el('span', { text: label })]);
}

/** A clip shown: its poster, title, when it was on stage and how much of it played. */
function clipItem(clip, index) {
  const deleted = clip.title === null || clip.title === undefined;
  const played = Number(clip.playedSeconds) || 0;
  const length = Number(clip.duration) || 0;
  const time = { timeStyle: 'medium' };
  const poster = el('div', { class: 'report-clip-poster', attrs: { 'aria-hidden': 'true' } }, [icon('film', 28)]);
  if (clip.posterUrl) {
    // A poster gone from the server leaves the film icon.
    const picture = el('img', { attrs: { src: clip.posterUrl, alt: '', loading: 'lazy' }, on: { error: () => picture.remove() } });
    poster.append(picture);
  }
  const fill = el('span', { class: 'report-clip-fill' });
  fill.style.width = (length ? Math.min(100, (played / length) * 100) : 0) + '%';
  const spanText = when(clip.shownAt, time) + ' – ' + (clip.hiddenAt ? when(clip.hiddenAt, time) : 'still on stage');
  const playedText = seconds(played) + (length ? ' of ' + seconds(length) : '') + ' played';
  return el('li', { class: 'report-clip' + (deleted ? ' is-deleted' : ''), data: { video: clip.video, played: String(played), deleted: String(deleted) } }, [
    el('span', { class: 'bank-number', text: String(index + 1) }),
    poster,
    el('div', { class: 'report-clip-body' }, [
      el('p', { class: 'report-clip-title', text: deleted ? 'deleted clip' : clip.title }),
      el('p', { class: 'report-meta', text: spanText + ' · ' + seconds(clip.onStageSeconds) + ' on stage' }),
      el('div', { class: 'report-clip-played' }, [
        length ? el('div', { class: 'report-clip-track', attrs: { 'aria-hidden': 'true' } }, [fill]) : null,
        el('span', { class: 'report-meta', text: playedText, attrs: { 'data-role': 'clip-played' } }),
      ]),
    ]),
  ]);
}

function pollCard(poll, index) {
  const status = { open: 'Open', closed: 'Closed', revealed: 'Answer revealed' }[poll.status] || poll.status;
  const kind = poll.kind === 'open' ? 'Open text' : (poll.choices.length + ' choices');
  const parts = [
    el('div', { class: 'report-poll-head' }, [
      el('span', { class: 'bank-number', text: String(index + 1) }),
      el('h3', { class: 'report-poll-question', text: poll.question }),
    ]),
    el('p', { class: 'report-meta', text: kind + ' · ' + status + ' · ' + poll.answered + (poll.answered === 1 ? ' answer' : ' answers') }),
  ];
  if (poll.kind === 'choice') {
    parts.push(barChart({ choices: poll.choices, counts: poll.counts, answered: poll.answered, correct: poll.correct }));
    if (poll.correct && poll.correct.length) {
      const right = poll.correct.reduce((sum, i) => sum + (poll.counts[i] || 0), 0);
      parts.push(el('p', { class: 'report-meta', text: '✓ marks the right answer' + (poll.correct.length > 1 ? 's' : '') + ' · ' + percent(right, poll.answered) + '% of picks were right' }));
    }
  } else {
    const answers = poll.answers || [];
    const list = el('ul', { class: 'report-answers', attrs: { 'aria-label': 'Answers' } });
    if (!answers.length) list.append(el('li', { class: 'muted', text: 'No answers.' }));
    for (const text of answers) list.append(el('li', { text }));
    parts.push(list);
  }
  return el('article', { class: 'report-card report-poll', data: { pollId: poll.id } }, parts);
}

/** In a room: who had the stage when a question was asked (a presenter, or the moderator). */
function presenterOf(report, q) {
  if (report.kind !== 'room') return null;
  if (!q.presenter) return 'the moderator';
  const found = (report.presenters || []).find((p) => p.id === q.presenter);
  return found ? found.name : 'a presenter';
}

function questionItem(q, report) {
  const name = q.anonymous ? 'Anonymous' : q.name || 'Guest';
  const presenter = presenterOf(report, q);
  const data = { questionId: q.id, answered: String(Boolean(q.answered)) };
  if (presenter) data.presenter = presenter;
  return el('li', { class: 'report-question' + (q.answered ? ' is-answered' : ''), data }, [
    el('p', { class: 'report-question-text', text: q.text }),
    el('div', { class: 'report-meta' }, [
      presenter ? el('span', {
        class: 'report-presenter', text: (q.presenter ? presenter + '’s turn' : 'The moderator’s turn') + ' · ',
        attrs: { 'data-role': 'presenter', title: 'Who had the stage when it was asked' },
      }) : null,
      el('span', { class: 'report-asker' + (q.anonymous ? ' is-anonymous' : ''), text: name }),
      q.page ? el('span', { text: ' · slide ' + q.page }) : null,
      q.votes ? el('span', { text: ' · ▲ ' + q.votes }) : null,
      el('span', { text: ' · ' + when(q.askedAt, { timeStyle: 'short' }) }),
      el('span', { class: 'tag ' + (q.answered ? 'tag-correct' : 'tag-open'), text: q.answered ? 'Answered' : 'Not answered', attrs: { 'data-role': 'question-status' } }),
    ]),
  ]);
}

function downloads(withClips) {
  const files = [['attendance', 'Attendance'], ...(withClips ? [['clips', 'Clips shown']] : []), ['polls', 'Poll results'], ['answers', 'Answers'], ['questions', 'Questions']];
  return el('ul', { class: 'report-downloads', attrs: { 'aria-label': 'Download as CSV' } }, files.map(([kind, label]) => el('li', {}, [
    el('a', { class: 'btn btn-sm', attrs: { href: base + '/' + kind + '.csv', download: code + '-' + kind + '.csv', 'data-csv': kind } }, [
      icon('download', 16), el('span', { text: label + ' (CSV)' }),
    ]),
  ])));
}

function section(title, children, extra = null) {
  return el('section', { class: 'report-section' }, [el('div', { class: 'report-section-head' }, [el('h2', { text: title }), extra]), ...children]);
}

function render(report, info) {
  // The report data says what it reports on: a session (one presenter) or a room.
  const kind = report.kind === 'room' ? 'Room report' : 'Session report';
  document.getElementById('report-kind').textContent = kind;
  document.title = report.title + ' — ' + kind + ' — Podium';
  const started = when(report.startedAt);
  // A session ended while the server had it loaded may come without endedAt: the join info says.
  const live = !report.endedAt && !(info && info.live === false);
  const length = report.endedAt ? duration(report.startedAt, report.endedAt) : live ? 'still live' : 'ended';
  const meta = [started, length, 'code ' + report.code].filter(Boolean).join(' · ');
  const questions = report.questions || [];
  const answered = questions.filter((q) => q.answered).length;
  const polls = report.polls || [];
  const room = report.kind === 'room';
  const clips = report.clips || [];
  const pollList = polls.length ? polls.map(pollCard) : [el('p', { class: 'muted', text: room ? 'No polls in this room.' : 'No polls in this session.' })];
  const questionList = el('ol', { class: 'report-questions' }, questions.length
    ? questions.map((q) => questionItem(q, report)) : [el('li', { class: 'muted', text: 'Nobody asked a question.' })]);
  main.replaceChildren(...[
    el('div', { class: 'report-head' }, [
      el('div', {}, [el('h1', { class: 'report-title', text: report.title }), el('p', { class: 'report-meta', text: meta })]),
      el('a', { class: 'btn btn-sm', attrs: { href: (room ? '/r/' + encodeURIComponent(report.code) + '/moderate' : '/present/' + encodeURIComponent(report.code)) } }, [el('span', { text: 'Open the console' })]),
    ]),
    el('div', { class: 'report-stats' }, [
      stat(formatNumber(report.uniqueViewers), 'unique viewers', 'unique-viewers'),
      stat(formatNumber(report.peakViewers), 'at the peak', 'peak-viewers'),
      stat(String(polls.length), polls.length === 1 ? 'poll' : 'polls', 'poll-count'),
      stat(String(questions.length), (questions.length === 1 ? 'question' : 'questions') + (questions.length ? ' · ' + answered + ' answered' : ''), 'question-count'),
    ]),
    section('Download', [downloads(clips.length > 0)]),
    section('Attendance', [el('div', { class: 'report-card' }, [attendanceChart(report.attendance || [])])]),
    // Only a session that showed clips has this part: most show none.
    clips.length ? section('Clips shown', [el('ol', { class: 'report-clips' }, clips.map(clipItem))]) : null,
    section('Polls', pollList),
    section('Questions from the audience', [questionList]),
  ].filter(Boolean));
  setState('ready');
}

async function start() {
  setState('loading');
  if (!code) {
    fail('No session', 'This address does not say which session to report on.', { href: '/library', label: 'Back to the library' });
    return;
  }
  try {
    const [report, info] = await Promise.all([
      api(base),
      api('/api/v1/sessions/' + encodeURIComponent(code)).catch(() => null),
    ]);
    render(report, info);
  } catch (error) {
    if (error.status === 401) {
      goToLogin();
    } else if (error.status === 403) {
      fail('Not your session', 'Only the presenter who ran session ' + code + ' can see its report.', { href: '/library', label: 'Back to the library' });
    } else if (error.status === 404) {
      fail('No session with code ' + code, 'It may have been mistyped, or deleted.', { href: '/library', label: 'Back to the library' });
    } else {
      fail('Cannot load the report', error.message);
    }
  }
}

start();
