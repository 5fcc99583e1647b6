// The moderator's lists (rooms/moderate.js): the deck tabs over the stage while the moderator
// drives, the queue of requests (with do-not-disturb and the queue's cap), the presenters with
// their decks and presence, and the room's decks (with uploads still being prepared).

import { formatList, formatNumber, t } from '../core/i18n.js';
import { el, toast } from '../core/ui.js';
import { presenterName, deckItem, pendingDeckItems } from './common.js';
import { roomOf } from './control.js';

const $ = (id) => document.getElementById(id);

/**
 * The lists of the moderator's page, drawn by `render(state, room, control, driving)`. `page`
 * gives the live client (`live()`), whether the room ended (`ended()`), the presenters connected
 * (`connected()`, a Set), `send(command)`, when each request came (`requestedAt`, a Map) and the
 * uploads not yet in the room (`pendingUploads`, a Map of deck id to title).
 */
export function moderatorLists(page) {
  const { send, requestedAt, pendingUploads } = page;
  let live = null;
  let ended = false;
  let connected = new Set();
  let heldBefore = false; // do-not-disturb was on at the last render

  function render(state, r, c, driving) {
    live = page.live();
    ended = page.ended();
    connected = page.connected();
    renderDeckBar(state, driving);
    renderQueue(c);
    renderPresenters(r, c);
    renderDecks(r, driving);
  }

  function renderDeckBar(state, driving) {
    const bar = $('deckbar');
    const r = roomOf(live);
    bar.hidden = !driving || !(r.decks || []).length;
    if (bar.hidden) return;
    const buttons = (r.decks || []).map((deck) => el('button', {
      class: 'deck-tab', text: deck.title,
      attrs: { type: 'button', 'aria-pressed': String(deck.id === r.deck), 'data-deck-id': deck.id, title: t('rooms.show-on-stage-named', { title: deck.title }) },
      on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
    }, [el('span', { class: 'deck-tab-owner', text: deck.owner ? presenterName(r, deck.owner) : t('rooms.deck-owner-you') })]));
    bar.replaceChildren(el('span', { class: 'deckbar-label', text: t('rooms.deckbar-show') }), ...buttons);
  }

  function renderQueue(c) {
    const queue = c.queue || [];
    const held = Boolean(c.moderatorDoNotDisturb);
    $('queue-count').textContent = formatNumber(queue.length);
    $('queue-count').dataset.count = String(queue.length);
    $('hand-over').disabled = !queue.length || ended;
    $('dnd').checked = held;
    $('dnd').disabled = ended;
    const list = $('queue');
    list.hidden = held;
    $('queue-empty').hidden = held || queue.length > 0;
    const heldLine = $('queue-held');
    heldLine.hidden = !held;
    heldLine.textContent = queue.length ? t('rooms.held-waiting', { count: queue.length }) : t('rooms.held-quietly');
    heldLine.dataset.count = String(queue.length);
    if (heldBefore && !held && queue.length) {
      toast(t('rooms.requests-wait-for-control', { count: queue.length }), { kind: 'info' });
    }
    heldBefore = held;
    const capField = $('queue-cap');
    if (document.activeElement !== capField) capField.value = c.queueCap ? String(c.queueCap) : '';
    const r = roomOf(live);
    list.replaceChildren(...queue.map((id, index) => {
      const since = requestedAt.get(id);
      // Lent the stage for a while: still waiting for a turn of their own, and said so.
      const borrowing = c.active === id && c.lender ? presenterName(r, c.lender) : '';
      const waited = el('span', { class: 'room-item-meta', data: { since: since || '', borrowing } });
      return el('li', { class: 'room-item queue-item', data: { presenterId: id } }, [
        el('span', { class: 'queue-pos', text: formatNumber(index + 1) }),
        el('span', { class: 'room-item-main' }, [
          el('strong', { text: presenterName(r, id) }),
          waited,
        ]),
        el('button', {
          class: 'btn btn-sm', text: t('rooms.grant'), attrs: { type: 'button', 'data-action': 'grant', disabled: ended },
          on: { click: () => send({ type: 'grant', presenterId: id }) },
        }),
      ]);
    }));
  }

  function renderPresenters(r, c) {
    const presenters = c.presenters || [];
    $('presenter-count').textContent = formatNumber(presenters.length);
    $('presenters-empty').hidden = presenters.length > 0;
    $('presenters').replaceChildren(...presenters.map((p) => {
      const decks = (r.decks || []).filter((d) => d.owner === p.id);
      const online = connected.has(p.id);
      const position = (c.queue || []).indexOf(p.id);
      const badges = [];
      if (c.active === p.id) badges.push(el('span', { class: 'badge badge-live', text: t('rooms.presenting') }));
      else if (position >= 0) badges.push(el('span', { class: 'badge badge-wait', text: t('rooms.waiting-position', { position: position + 1 }) }));
      if (c.lender === p.id) badges.push(el('span', { class: 'badge', text: t('rooms.lent-control') }));
      const isActive = c.active === p.id && !c.lender;
      return el('li', { class: 'room-item presenter-item', data: { presenterId: p.id, connected: String(online) } }, [
        el('span', { class: 'presence-dot' + (online ? ' is-on' : ''), attrs: { title: online ? t('rooms.connected') : t('rooms.not-connected'), 'aria-label': online ? t('rooms.connected') : t('rooms.not-connected'), role: 'img' } }),
        el('span', { class: 'room-item-main' }, [
          el('span', { class: 'room-item-title' }, [el('strong', { text: p.name }), ...badges]),
          el('span', { class: 'room-item-meta', text: online
            ? (decks.length ? formatList(decks.map((d) => d.title)) : t('rooms.no-deck-yet'))
            : t('rooms.offline-meta', { decks: decks.length ? formatList(decks.map((d) => d.title)) : t('rooms.no-deck-yet') }) }),
          el('span', { class: 'room-item-meta talk-meta', data: { talkOf: p.id } }),
        ]),
        el('button', {
          class: 'btn btn-sm', text: isActive ? t('rooms.on-stage') : t('rooms.grant'),
          attrs: { type: 'button', 'data-action': 'grant', disabled: isActive || ended, title: t('rooms.grant-title', { name: p.name }) },
          on: { click: () => send({ type: 'grant', presenterId: p.id }) },
        }),
      ]);
    }));
  }

  function renderDecks(r, driving) {
    const decks = r.decks || [];
    $('deck-count').textContent = formatNumber(decks.length);
    const items = decks.map((deck) => {
      const onStage = deck.id === r.deck;
      return deckItem(deck, {
        onStage,
        meta: t('rooms.deck-meta', { owner: deck.owner ? presenterName(r, deck.owner) : t('rooms.you'), count: deck.pages.length }),
        action: el('button', {
          class: 'btn btn-sm', text: t('rooms.show'),
          attrs: {
            type: 'button', 'data-action': 'show-deck', disabled: !driving || (onStage),
            title: driving ? t('rooms.show-deck-stage') : t('rooms.take-back-to-show-deck'),
          },
          on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
        }),
      });
    });
    items.push(...pendingDeckItems(pendingUploads, decks, { text: t('rooms.processing') }));
    $('decks').replaceChildren(...items);
  }

  return { render };
}
