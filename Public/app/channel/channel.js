// The channel's audience page: a tab per kind of content, each a module that fills its section
// (mount/show, see ../sections.js), routed by the hash: #videos, #videos/<id>, #radio/<id>, #places/<id>,
// #quizzes/<id>, #new. Phone first: the tabs sit at the bottom of a phone, at the top of a laptop.
import { api, ApiError } from '../core/api.js';
import { errorText, has, t } from '../core/i18n.js';
import { sectionRouter } from '../core/sections.js';
import { el, hydrateIcons, toast } from '../core/ui.js';
import { startPage } from '../core/page.js';

const SECTIONS = ['videos', 'radio', 'places', 'quizzes', 'new'];
let me = null;

/**
 * Renders a membership error (403 membership_required) in `container`: which limit, why, and how
 * to become a member, with sign-in for a person who is not signed in. Never a broken player.
 */
function showLimit(error, container) {
  const detail = (error && error.detail) || error || {};
  const box = el('div', { class: 'channel-limit', attrs: { role: 'alert' }, data: { limit: detail.limit || '' } }, [
    el('span', { class: 'channel-limit-icon', attrs: { 'data-icon': 'lock', 'data-icon-size': '28' } }),
    el('h2', { class: 'channel-limit-title', text: limitTitle(detail) }),
    el('p', { class: 'channel-limit-join', text: joinText(detail.join || (me && me.channel.membershipInfo) || '') }),
  ]);
  const actions = el('div', { class: 'channel-limit-actions' });
  const joinUrl = detail.joinUrl || (me && me.channel.membershipURL);
  if (joinUrl) actions.append(el('a', { class: 'btn btn-primary', text: t('channel.limit.become-member'), attrs: { href: joinUrl, rel: 'noopener' } }));
  if (!me || !me.signedIn) {
    actions.append(el('a', { class: 'btn', text: t('channel.sign-in'), attrs: { href: '/login?next=' + encodeURIComponent('/channel' + location.hash) } }));
  }
  if (actions.childElementCount) box.append(actions);
  hydrateIcons(box);
  if (container) container.replaceChildren(box);
  return box;
}

/**
 * The limit's title in the page's language: the catalogue's message for the limit the server
 * names (`channel.limit.<limit>`), else the server's own words, else a general one.
 */
function limitTitle(detail) {
  const key = 'channel.limit.' + (detail.limit || '');
  if (detail.limit && has(key)) return t(key);
  return detail.message || t('channel.limit.members');
}

// The server's own words when its operator has written none (ChannelConfiguration.swift): shown
// in the page's language instead. What an operator wrote is shown as written.
const DEFAULT_JOIN = "Members see everything. Ask the channel's team to make your account a member.";
const DEFAULT_NAME = 'Podium Channel';

function joinText(text) {
  return text === DEFAULT_JOIN ? t('channel.limit.join-default') : text;
}

function channelName(name) {
  return !name || name === DEFAULT_NAME ? t('channel.name-default') : name;
}

/**
 * Shares a link: the system's share sheet on phones (Web Share API), else the clipboard. A link
 * to an item of this page (/channel#videos/<id>) is shared as its share link (/c/video/<id>),
 * whose page carries the preview that chat apps and social networks show.
 */
async function share({ title, text, url }) {
  const absolute = new URL(shareLink(url), location.origin).href;
  if (navigator.share) {
    try {
      await navigator.share({ title, text, url: absolute });
      return;
    } catch (error) {
      if (error && error.name === 'AbortError') return;
    }
  }
  try {
    await navigator.clipboard.writeText(absolute);
    toast(t('channel.link-copied', { url: absolute }), { kind: 'success' });
  } catch (_) {
    toast(absolute);
  }
}

const SHARE_KINDS = { videos: 'video', radio: 'radio', places: 'place', quizzes: 'quiz' };

function shareLink(url) {
  const match = /^\/channel#(videos|radio|places|quizzes)\/([^/]+)$/.exec(url);
  return match ? '/c/' + SHARE_KINDS[match[1]] + '/' + match[2] : url;
}

/** The New tab's badge: how much was published since the last visit. */
async function countNew() {
  try {
    const feed = await api('/api/v1/channel/new');
    const { setBadge } = await import('./new.js');
    setBadge(location.hash.startsWith('#new') ? 0 : feed.items.length);
  } catch (_) {
    // The badge is a nicety; the tab itself still works.
  }
}

const context = {
  get me() { return me; },
  api,
  ApiError,
  showLimit,
  share,
  navigate(hash) { location.hash = hash; },
};

const route = sectionRouter({
  names: SECTIONS,
  element: (name) => document.getElementById('section-' + name),
  sectionSelector: '.channel-section',
  linkSelector: '.channel-tab',
  load: (name) => import('./' + name + '.js'),
  context,
  failureText: t('channel.section-failed'),
  failureClass: 'channel-empty',
});

async function start() {
  try {
    me = await api('/api/v1/channel/me');
  } catch (error) {
    toast(errorText(error), { kind: 'error' });
    me = { key: '', signedIn: false, member: false, admin: false, name: null, channel: { name: t('channel.name-default'), membershipInfo: '', membershipURL: null } };
  }
  document.getElementById('channel-name').textContent = channelName(me.channel.name);
  document.title = channelName(me.channel.name);
  document.getElementById('member-badge').hidden = !me.member;
  const account = document.getElementById('account-link');
  if (me.signedIn) {
    // The name in a span of its own, so a long one ends in "…" inside the screen (channel.css).
    const label = me.admin ? t('channel.manage') : me.name || t('channel.account');
    account.replaceChildren(el('span', { class: 'channel-account-name', text: label }));
    account.title = label;
    account.href = me.admin ? '/channel/admin' : '/library';
  } else {
    account.href = '/login?next=' + encodeURIComponent('/channel' + location.hash);
  }
  window.addEventListener('hashchange', route);
  if (!location.hash.startsWith('#new')) countNew();
  await route();
  document.body.dataset.ready = 'true';
}

startPage(start);
