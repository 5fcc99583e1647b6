// What is new: everything published since the person last looked (videos, radio, places,
// quizzes), newest first. Opening the tab marks it seen, so the badge counts only what came after.
import { errorText, formatDate, formatNumber, t } from '../core/i18n.js';
import { el, hydrateIcons } from '../core/ui.js';

const ICON = { video: 'film', radio: 'radio', place: 'map-pin', quiz: 'quiz' };
const KINDS = new Set(['video', 'radio', 'place', 'quiz']);

let ctx;
let root;
let list;
let note;

export function mount(section, context) {
  ctx = context;
  root = section;
  note = el('p', { class: 'channel-new-note' });
  list = el('ul', { class: 'channel-new-list', attrs: { id: 'new-items' } });
  root.replaceChildren(el('h1', { text: t('channel.tab.new') }), note, list);
}

export async function show() {
  let feed;
  try {
    feed = await ctx.api('/api/v1/channel/new');
  } catch (error) {
    note.textContent = errorText(error);
    return;
  }
  note.textContent = feed.lastSeenAt
    ? t('channel.new.since', { date: formatDate(feed.lastSeenAt) })
    : t('channel.new.last-month');
  if (feed.items.length === 0) {
    list.replaceChildren(el('li', { class: 'channel-empty', text: t('channel.new.nothing') }));
  } else {
    list.replaceChildren(...feed.items.map(item));
  }
  hydrateIcons(list);
  // Seen now: the badge clears, and the next visit lists only what comes after.
  try {
    await ctx.api('/api/v1/channel/new/seen', { method: 'POST' });
    setBadge(0);
  } catch (_) {
    // Not fatal: the feed still shows, and the next visit shows these again.
  }
}

function item(entry) {
  const link = el('a', { class: 'channel-new-item', attrs: { href: entry.url }, data: { kind: entry.kind } }, [
    el('span', { class: 'channel-new-icon', attrs: { 'data-icon': ICON[entry.kind] || 'bell' } }),
    el('span', { class: 'channel-new-text' }, [
      el('span', { class: 'channel-new-kind', text: KINDS.has(entry.kind) ? t('channel.kind.' + entry.kind) : entry.kind }),
      el('span', { class: 'channel-new-title', text: entry.title }),
      entry.description ? el('span', { class: 'channel-new-desc', text: entry.description }) : null,
    ]),
    el('time', { class: 'channel-new-time', text: formatDate(entry.publishedAt, { dateStyle: 'medium' }), attrs: { datetime: entry.publishedAt } }),
  ]);
  return el('li', {}, [link]);
}

/** The number on the New tab: what was published since the last visit. */
export function setBadge(count) {
  const badge = document.getElementById('new-count');
  if (!badge) return;
  badge.hidden = count === 0;
  badge.textContent = count > 99 ? t('channel.new.badge-many', { count: 99 }) : formatNumber(count);
  badge.setAttribute('aria-label', t('channel.new.badge-label', { count }));
}
