// The library's history: past sessions and rooms, with their reports and exports, a page at a
// time (GET /api/v1/history), in the main column instead of the decks.

import { t, formatNumber, formatDate } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon } from '../core/ui.js';

const historyList = document.getElementById('past-list');
const historyMore = document.getElementById('past-more');

/**
 * Wires the "Past sessions" button and "More": `history` is the page's record of what is loaded
 * ({entries, next, loaded, loading}); `show()` puts the history in the main column; errors go
 * to `onError`.
 */
export function mountHistory({ history, show, onError }) {
  document.getElementById('past-button').addEventListener('click', () => {
    show();
    loadHistory(history, onError);
  });
  historyMore.addEventListener('click', () => loadHistory(history, onError, { more: true }));
}

function duration(entry) {
  if (!entry.endedAt) return '';
  const minutes = Math.max(1, Math.round((new Date(entry.endedAt) - new Date(entry.createdAt)) / 60000));
  const unit = (value, name) => formatNumber(value, { style: 'unit', unit: name, unitDisplay: 'short' });
  const text = minutes < 60 ? unit(minutes, 'minute') : unit(Math.floor(minutes / 60), 'hour') + ' ' + unit(minutes % 60, 'minute');
  return el('time', { text, attrs: { datetime: 'PT' + minutes + 'M' } });
}

/** An export's name in the page's language, known by its file (the server names it in English). */
function exportLabel(file) {
  const name = (file.url || '').split('/').pop();
  if (file.format === 'pdf') return /clips/i.test(file.label || '') ? t('library.export-pdf-clips') : t('library.export-pdf');
  const known = { 'attendance.csv': 'attendance', 'polls.csv': 'polls', 'answers.csv': 'answers', 'questions.csv': 'questions', 'clips.csv': 'clips' }[name];
  return t('library.csv', { label: known ? t('library.export-' + known) : file.label });
}

/** The replay page of a session or room. */
export function replayPath(kind, code) {
  return (kind === 'room' ? '/r/' : '/s/') + encodeURIComponent(code) + '/replay';
}

function historyRow(entry) {
  const when = el('time', { text: formatDate(entry.createdAt, { dateStyle: 'medium', timeStyle: 'short' }), attrs: { datetime: entry.createdAt } });
  const parts = [entry.kind === 'room' ? t('library.room') : t('library.session'), when, duration(entry), t('library.code', { code: entry.code })].filter(Boolean);
  const meta = parts.flatMap((part, index) => (index ? [' · ', part] : [part]));
  const badges = el('span', { class: 'past-badges' });
  if (entry.live) badges.append(el('span', { class: 'status-pill status-live', text: t('library.live'), attrs: { 'data-role': 'live' } }));
  if (entry.hasPasscode) badges.append(el('span', { class: 'past-flag', attrs: { title: t('library.passcode'), 'aria-label': t('library.passcode') } }, [icon('lock', 14)]));
  if (entry.unlisted) badges.append(el('span', { class: 'past-flag', text: t('library.unlisted') }));
  const links = el('div', { class: 'past-links' });
  if (entry.consoleUrl) {
    links.append(el('a', { class: 'btn btn-sm btn-primary', attrs: { href: entry.consoleUrl, 'data-role': 'console' } }, [icon('broadcast', 16), t('library.open-console')]));
  }
  links.append(el('a', { class: 'btn btn-sm', attrs: { href: entry.reportUrl, 'data-role': 'report' } }, [icon('grid', 16), t('library.report')]));
  // The replay (issue #44): the session or room as it happened, a running one up to now.
  links.append(el('a', {
    class: 'btn btn-sm', attrs: { href: replayPath(entry.kind, entry.code), 'data-role': 'replay', title: t('replay.replay-link-title') },
  }, [icon('play', 16), t('replay.replay-link')]));
  const exports = el('ul', { class: 'past-exports', attrs: { 'aria-label': t('library.exports-of', { title: entry.title }) } });
  for (const file of entry.exports) {
    exports.append(el('li', {}, [el('a', {
      class: 'past-export', text: exportLabel(file),
      attrs: { href: file.url, download: '', 'data-format': file.format },
    })]));
  }
  return el('li', { class: 'past-row', attrs: { 'data-code': entry.code, 'data-kind': entry.kind, 'data-live': String(entry.live) } }, [
    el('div', { class: 'past-main' }, [
      el('div', { class: 'past-title' }, [el('strong', { text: entry.title }), badges]),
      el('div', { class: 'past-meta' }, meta),
      exports,
    ]),
    links,
  ]);
}

async function loadHistory(history, onError, { more = false } = {}) {
  if (history.loading) return;
  history.loading = true;
  historyMore.disabled = true;
  try {
    const query = more && history.next ? '?before=' + encodeURIComponent(history.next) : '';
    const page = await api('/api/v1/history' + query);
    history.entries = more ? [...history.entries, ...page.sessions] : page.sessions;
    history.next = page.next || null;
    history.loaded = true;
    if (more) historyList.append(...page.sessions.map(historyRow));
    else historyList.replaceChildren(...history.entries.map(historyRow));
    document.getElementById('past-empty').hidden = history.entries.length > 0;
    historyMore.hidden = !history.next;
  } catch (error) {
    onError(error);
  } finally {
    history.loading = false;
    historyMore.disabled = false;
  }
}

