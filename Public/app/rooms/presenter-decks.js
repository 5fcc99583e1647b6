// The decks and presenters of a room's presenter page (rooms/presenter.js): this presenter's
// decks (uploaded here, with their progress, or still being prepared), the deck tabs over the
// stage while presenting more than one, and the room's presenters with their presence.

import { formatNumber, t } from '../core/i18n.js';
import { el, toast } from '../core/ui.js';
import { errorText, uploadToRoom, uploadLine, deckItem, pendingDeckItems } from './common.js';
import { roomOf } from './control.js';

const $ = (id) => document.getElementById(id);

/**
 * This presenter's decks and the room's presenters, drawn by `render(room, control, driving)`.
 * `page` gives the room's code, the live client (`live()`), this presenter's id (`myId()`), the
 * presenters connected (`connected()`, a Set), `send(command)` and `render()` (the whole page,
 * after an upload).
 */
export function presenterDecks(page) {
  const { code, send } = page;
  const pendingUploads = new Map(); // deck id -> title, until it joins the room
  let live = null;
  let myId = null;
  let connected = new Set();
  const update = () => {
    live = page.live();
    myId = page.myId();
    connected = page.connected();
  };

  $('upload').addEventListener('click', () => $('file-input').click());
  $('file-input').addEventListener('change', async (event) => {
    const file = event.target.files && event.target.files[0];
    event.target.value = '';
    if (file) await upload(file);
  });

  async function upload(file) {
    update();
    const status = $('upload-status');
    const bar = el('span', { class: 'progress-bar' });
    const label = el('span', { class: 'room-upload-label', text: t('rooms.uploading', { file: file.name, percent: 0 }) });
    status.replaceChildren(label, el('span', { class: 'progress-track' }, [bar]));
    status.hidden = false;
    status.dataset.state = 'uploading';
    $('upload').disabled = true;
    try {
      const added = await uploadToRoom(code, file, { asPresenter: true, ...uploadLine(label, bar, file) });
      if (!((roomOf(live) && roomOf(live).decks) || []).some((d) => d.id === added.deckId)) pendingUploads.set(added.deckId, added.title);
      status.hidden = true;
      status.dataset.state = 'done';
    } catch (error) {
      status.dataset.state = 'failed';
      label.textContent = errorText(error);
      toast(errorText(error), { kind: 'error' });
      setTimeout(() => { status.hidden = true; }, 6000);
    } finally {
      $('upload').disabled = false;
      page.render();
    }
  }

  function renderMyDecks(r, driving) {
    const mine = (r.decks || []).filter((d) => d.owner === myId);
    $('deck-count').textContent = formatNumber(mine.length);
    $('my-decks-empty').hidden = mine.length > 0 || pendingUploads.size > 0;
    const items = mine.map((deck) => {
      const onStage = deck.id === r.deck;
      return deckItem(deck, {
        onStage,
        meta: deck.page > 1 && !onStage ? t('rooms.slides-left-at', { count: deck.pages.length, page: deck.page }) : t('rooms.slides', { count: deck.pages.length }),
        action: driving && !onStage ? el('button', {
          class: 'btn btn-sm', text: t('rooms.show'),
          attrs: { type: 'button', 'data-action': 'show-deck', disabled: onStage, title: t('rooms.show-deck-title') },
          on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
        }) : null,
      });
    });
    items.push(...pendingDeckItems(pendingUploads, r.decks || [], { text: t('rooms.preparing-slides'), data: { processing: 'true' } }));
    $('my-decks').replaceChildren(...items);

    // Deck tabs over the thumbnails while presenting with more than one deck.
    const bar = $('deckbar');
    bar.hidden = !driving || mine.length < 2;
    if (!bar.hidden) {
      bar.replaceChildren(el('span', { class: 'deckbar-label', text: t('rooms.deckbar-show') }), ...mine.map((deck) => el('button', {
        class: 'deck-tab', text: deck.title,
        attrs: { type: 'button', 'aria-pressed': String(deck.id === r.deck), 'data-deck-id': deck.id },
        on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
      })));
    }
  }

  function renderPresenters(r, c) {
    const presenters = c.presenters || [];
    $('presenter-count').textContent = formatNumber(presenters.length);
    $('presenters').replaceChildren(...presenters.map((p) => {
      const online = connected.has(p.id);
      const position = (c.queue || []).indexOf(p.id);
      const decks = (r.decks || []).filter((d) => d.owner === p.id).length;
      return el('li', { class: 'room-item presenter-item', data: { presenterId: p.id, connected: String(online) } }, [
        el('span', { class: 'presence-dot' + (online ? ' is-on' : ''), attrs: { title: online ? t('rooms.connected') : t('rooms.not-connected') } }),
        el('span', { class: 'room-item-main' }, [
          el('span', { class: 'room-item-title' }, [
            el('strong', { text: p.id === myId ? t('rooms.you-name', { name: p.name }) : p.name }),
            c.active === p.id ? el('span', { class: 'badge badge-live', text: t('rooms.presenting') }) : null,
            position >= 0 ? el('span', { class: 'badge badge-wait', text: t('rooms.waiting-position', { position: position + 1 }) }) : null,
          ]),
          el('span', { class: 'room-item-meta', text: t('rooms.decks-count', { count: decks }) }),
        ]),
      ]);
    }));
  }

  return {
    render(r, c, driving) {
      update();
      renderMyDecks(r, driving);
      renderPresenters(r, c);
    },
  };
}
