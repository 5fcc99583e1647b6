// What is new: everything published since the person last looked (videos, radio, places,
// quizzes), newest first. Opening the tab marks it seen, so the badge counts only what came after.
import { el, hydrateIcons } from '../ui.js';

const ICON = { video: 'film', radio: 'radio', place: 'map-pin', quiz: 'quiz' };
const KIND = { video: 'Video', radio: 'Radio', place: 'Place', quiz: 'Quiz' };

let ctx;
let root;
let list;
let note;

export function mount(section, context) {
  ctx = context;
  root = section;
  note = el('p', { class: 'channel-new-note' });
  list = el('ul', { class: 'channel-new-list', attrs: { id: 'new-items' } });
  root.replaceChildren(el('h1', { text: 'New' }), note, list);
}

export async function show() {
  let feed;
  try {
    feed = await ctx.api('/api/v1/channel/new');
  } catch (error) {
    note.textContent = error.message;
    return;
  }
  note.textContent = feed.lastSeenAt
    ? 'Published since your last visit on ' + new Date(feed.lastSeenAt).toLocaleString() + '.'
    : 'Published in the last month.';
  if (feed.items.length === 0) {
    list.replaceChildren(el('li', { class: 'channel-empty', text: 'Nothing new since your last visit.' }));
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
      el('span', { class: 'channel-new-kind', text: KIND[entry.kind] || entry.kind }),
      el('span', { class: 'channel-new-title', text: entry.title }),
      entry.description ? el('span', { class: 'channel-new-desc', text: entry.description }) : null,
    ]),
    el('time', { class: 'channel-new-time', text: new Date(entry.publishedAt).toLocaleDateString(), attrs: { datetime: entry.publishedAt } }),
  ]);
  return el('li', {}, [link]);
}

/** The number on the New tab: what was published since the last visit. */
export function setBadge(count) {
  const badge = document.getElementById('new-count');
  if (!badge) return;
  badge.hidden = count === 0;
  badge.textContent = count > 99 ? '99+' : String(count);
  badge.setAttribute('aria-label', count + ' new');
}
