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

import { api, goToLogin } from '../core/api.js';
import { errorText, formatDate, formatNumber, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { barChart, percent } from '../interaction/state.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const main = document.getElementById('report');
const params = new URLSearchParams(location.search);
const code = (params.get('code') || addressPart()).trim().toUpperCase();
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
  return Number.isFinite(date.getTime()) ? formatDate(date, options) : '';
}

/** Two digits in the page's language ("05"). */
function twoDigits(value) {
  return formatNumber(value, { minimumIntegerDigits: 2 });
}

function duration(from, to) {
  const minutes = Math.round((Date.parse(to) - Date.parse(from)) / 60000);
  if (!Number.isFinite(minutes) || minutes < 0) return '';
  if (minutes < 60) return t('report.time.minutes', { minutes });
  return t('report.time.hours-minutes', { hours: Math.floor(minutes / 60), minutes: twoDigits(minutes % 60) });
}

/** A span of seconds as "42 s", "3 min 05 s" or "1 h 02 min" (in the page's language). */
function seconds(value) {
  const total = Math.max(0, Math.round(Number(value) || 0));
  const [hours, minutes, rest] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  if (hours) return t('report.time.hours-minutes', { hours, minutes: twoDigits(minutes) });
  if (minutes) return t('report.time.minutes-seconds', { minutes, seconds: twoDigits(rest) });
  return t('report.time.seconds', { seconds: rest });
}

function svg(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

/** Viewers per minute as columns (SVG), with the peak and the times at both ends. */
function attendanceChart(points) {
  if (!points.length) return el('p', { class: 'muted', text: t('report.attendance.nobody') });
  // Drawn about as wide as the screen shows it, so its 12 px labels stay 12 px on a phone (at a
  // fixed 720 they were scaled down to 5 px there).
  const width = Math.round(Math.min(720, Math.max(300, window.innerWidth - 72)));
  const height = 200;
  const pad = { left: 36, right: 8, top: 12, bottom: 26 };
  const max = Math.max(1, ...points.map((p) => p.viewers));
  const inner = width - pad.left - pad.right;
  const step = inner / points.length;
  const bar = Math.max(1, Math.min(step * 0.78, 28));
  const y = (v) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`, class: 'attendance-chart', role: 'img', 'data-role': 'attendance-chart',
    'aria-label': t('report.attendance.label', { max }),
  });
  for (const v of [0, max]) {
    chart.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'axis-line' }));
    const label = svg('text', { x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis-label' });
    label.textContent = formatNumber(v);
    chart.append(label);
  }
  points.forEach((p, i) => {
    const rect = svg('rect', { x: pad.left + i * step + (step - bar) / 2, y: y(p.viewers), width: bar, height: Math.max(0, y(0) - y(p.viewers)), rx: Math.min(3, bar / 3), class: 'attendance-bar' });
    const title = svg('title');
    title.textContent = t('report.attendance.point', { time: when(p.at, { timeStyle: 'short' }), count: p.viewers });
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
  const spanText = clip.hiddenAt
    ? t('report.clip.span', { from: when(clip.shownAt, time), to: when(clip.hiddenAt, time) })
    : t('report.clip.span-open', { from: when(clip.shownAt, time) });
  const playedText = length
    ? t('report.clip.played-of', { played: seconds(played), length: seconds(length) })
    : t('report.clip.played', { played: seconds(played) });
  return el('li', { class: 'report-clip' + (deleted ? ' is-deleted' : ''), data: { video: clip.video, played: String(played), deleted: String(deleted) } }, [
    el('span', { class: 'bank-number', text: formatNumber(index + 1) }),
    poster,
    el('div', { class: 'report-clip-body' }, [
      el('p', { class: 'report-clip-title', text: deleted ? t('report.clip.deleted') : clip.title }),
      el('p', { class: 'report-meta', text: t('report.clip.meta', { span: spanText, onStage: seconds(clip.onStageSeconds) }) }),
      el('div', { class: 'report-clip-played' }, [
        length ? el('div', { class: 'report-clip-track', attrs: { 'aria-hidden': 'true' } }, [fill]) : null,
        el('span', { class: 'report-meta', text: playedText, attrs: { 'data-role': 'clip-played' } }),
      ]),
      // Which clips have captions (WCAG 1.2.2), and which lack them.
      Array.isArray(clip.captions) ? el('p', {
        class: 'report-meta report-clip-captions' + (clip.captions.length ? '' : ' is-missing'),
        text: clip.captions.length ? t('report.clip.captions', { languages: clip.captions.join(', ') }) : t('report.clip.no-captions'),
        attrs: { 'data-role': 'clip-captions', 'data-captions': clip.captions.join(' ') || 'none' },
      }) : null,
    ]),
  ]);
}

function pollCard(poll, index) {
  const status = ['open', 'closed', 'revealed'].includes(poll.status) ? t('report.poll.status.' + poll.status) : poll.status;
  const kind = poll.kind === 'open' ? t('report.poll.open-text') : t('report.poll.choices', { count: poll.choices.length });
  const parts = [
    el('div', { class: 'report-poll-head' }, [
      el('span', { class: 'bank-number', text: formatNumber(index + 1) }),
      el('h3', { class: 'report-poll-question', text: poll.question }),
    ]),
    el('p', { class: 'report-meta', text: t('report.poll.meta', { kind, status, answers: t('report.poll.answers', { count: poll.answered }) }) }),
  ];
  if (poll.kind === 'choice') {
    parts.push(barChart({ choices: poll.choices, counts: poll.counts, answered: poll.answered, correct: poll.correct }));
    if (poll.correct && poll.correct.length) {
      const right = poll.correct.reduce((sum, i) => sum + (poll.counts[i] || 0), 0);
      parts.push(el('p', { class: 'report-meta', text: t('report.poll.right', { count: poll.correct.length, percent: percent(right, poll.answered) }) }));
    }
  } else {
    const answers = poll.answers || [];
    const list = el('ul', { class: 'report-answers', attrs: { 'aria-label': t('report.poll.answers-label') } });
    if (!answers.length) list.append(el('li', { class: 'muted', text: t('report.poll.no-answers') }));
    for (const text of answers) list.append(el('li', { text }));
    parts.push(list);
  }
  return el('article', { class: 'report-card report-poll', data: { pollId: poll.id } }, parts);
}

/** In a room: who had the stage when a question was asked (a presenter, or the moderator). */
function presenterOf(report, q) {
  if (report.kind !== 'room') return null;
  if (!q.presenter) return t('report.question.the-moderator');
  const found = (report.presenters || []).find((p) => p.id === q.presenter);
  return found ? found.name : t('report.question.a-presenter');
}

function questionItem(q, report) {
  const name = q.anonymous ? t('report.question.anonymous') : q.name || t('report.question.guest');
  const presenter = presenterOf(report, q);
  const data = { questionId: q.id, answered: String(Boolean(q.answered)) };
  if (presenter) data.presenter = presenter;
  return el('li', { class: 'report-question' + (q.answered ? ' is-answered' : ''), data }, [
    el('p', { class: 'report-question-text', text: q.text }),
    el('div', { class: 'report-meta' }, [
      presenter ? el('span', {
        class: 'report-presenter', text: (q.presenter ? t('report.question.turn', { name: presenter }) : t('report.question.moderator-turn')) + ' · ',
        attrs: { 'data-role': 'presenter', title: t('report.question.turn-title') },
      }) : null,
      el('span', { class: 'report-asker' + (q.anonymous ? ' is-anonymous' : ''), text: name }),
      q.page ? el('span', { text: ' · ' + t('report.question.slide', { page: q.page }) }) : null,
      q.votes ? el('span', { text: ' · ▲ ' + formatNumber(q.votes) }) : null,
      el('span', { text: ' · ' + when(q.askedAt, { timeStyle: 'short' }) }),
      el('span', { class: 'tag ' + (q.answered ? 'tag-correct' : 'tag-open'), text: q.answered ? t('report.question.answered') : t('report.question.not-answered'), attrs: { 'data-role': 'question-status' } }),
    ]),
  ]);
}

function downloads(withClips) {
  const files = ['attendance', ...(withClips ? ['clips'] : []), 'polls', 'answers', 'questions'];
  return el('ul', { class: 'report-downloads', attrs: { 'aria-label': t('report.download.label') } }, files.map((kind) => el('li', {}, [
    el('a', { class: 'btn btn-sm', attrs: { href: base + '/' + kind + '.csv', download: code + '-' + kind + '.csv', 'data-csv': kind } }, [
      icon('download', 16), el('span', { text: t('report.download.' + kind) }),
    ]),
  ])));
}

function section(title, children, extra = null) {
  return el('section', { class: 'report-section' }, [el('div', { class: 'report-section-head' }, [el('h2', { text: title }), extra]), ...children]);
}

function render(report, info) {
  // The report data says what it reports on: a session (one presenter) or a room.
  const kind = report.kind === 'room' ? t('report.kind.room') : t('report.kind.session');
  document.getElementById('report-kind').textContent = kind;
  document.title = t('report.document-title', { title: report.title, kind });
  const started = when(report.startedAt);
  // A session ended while the server had it loaded may come without endedAt: the join info says.
  const live = !report.endedAt && !(info && info.live === false);
  const length = report.endedAt ? duration(report.startedAt, report.endedAt) : live ? t('report.still-live') : t('report.ended');
  const meta = [started, length, t('report.code', { code: report.code })].filter(Boolean).join(' · ');
  const questions = report.questions || [];
  const answered = questions.filter((q) => q.answered).length;
  const polls = report.polls || [];
  const room = report.kind === 'room';
  const clips = report.clips || [];
  const pollList = polls.length ? polls.map(pollCard) : [el('p', { class: 'muted', text: room ? t('report.poll.none-room') : t('report.poll.none-session') })];
  const questionList = el('ol', { class: 'report-questions' }, questions.length
    ? questions.map((q) => questionItem(q, report)) : [el('li', { class: 'muted', text: t('report.question.none') })]);
  main.replaceChildren(...[
    el('div', { class: 'report-head' }, [
      el('div', {}, [el('h1', { class: 'report-title', text: report.title }), el('p', { class: 'report-meta', text: meta })]),
      el('div', { class: 'report-head-links' }, [
        // The replay (issue #44): the session or room as it happened, a running one up to now.
        el('a', {
          class: 'btn btn-sm', attrs: { href: (room ? '/r/' : '/s/') + encodeURIComponent(report.code) + '/replay', 'data-role': 'replay', title: t('replay.replay-link-title') },
        }, [el('span', { text: t('replay.replay-link') })]),
        el('a', { class: 'btn btn-sm', attrs: { href: (room ? '/r/' + encodeURIComponent(report.code) + '/moderate' : '/present/' + encodeURIComponent(report.code)) } }, [el('span', { text: t('report.open-console') })]),
      ]),
    ]),
    el('div', { class: 'report-stats' }, [
      stat(formatNumber(report.uniqueViewers), t('report.stat.unique', { count: report.uniqueViewers }), 'unique-viewers'),
      stat(formatNumber(report.peakViewers), t('report.stat.peak', { count: report.peakViewers }), 'peak-viewers'),
      stat(formatNumber(polls.length), t('report.stat.polls', { count: polls.length }), 'poll-count'),
      stat(formatNumber(questions.length), questions.length
        ? t('report.stat.questions-answered', { count: questions.length, answered: formatNumber(answered) })
        : t('report.stat.questions', { count: questions.length }), 'question-count'),
    ]),
    section(t('report.section.download'), [downloads(clips.length > 0)]),
    section(t('report.section.attendance'), [el('div', { class: 'report-card' }, [attendanceChart(report.attendance || [])])]),
    // Only a session that showed clips has this part: most show none.
    clips.length ? section(t('report.section.clips'), [el('ol', { class: 'report-clips' }, clips.map(clipItem))]) : null,
    section(t('report.section.polls'), pollList),
    section(t('report.section.questions'), [questionList]),
  ].filter(Boolean));
  setState('ready');
}

async function start() {
  setState('loading');
  if (!code) {
    fail(t('report.error.no-code-title'), t('report.error.no-code'), { href: '/library', label: t('report.back-to-library') });
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
      fail(t('report.error.forbidden-title'), t('report.error.forbidden', { code }), { href: '/library', label: t('report.back-to-library') });
    } else if (error.status === 404) {
      fail(t('report.error.not-found-title', { code }), t('report.error.not-found'), { href: '/library', label: t('report.back-to-library') });
    } else {
      fail(t('report.error.failed-title'), errorText(error));
    }
  }
}

startPage(start);
