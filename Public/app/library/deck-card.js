// A deck's card in the library: its thumbnail, title, status (processing with progress, failed
// with the reason), Go live and Open, and the "More" menu (rename, move, delete) that keys move
// through.

import { t, errorText, formatNumber } from '../core/i18n.js';
import { el, icon, iconButton, plural } from '../core/ui.js';
import { processingText } from '../media/uploader.js';
import { progressBar } from './upload-cards.js';

/** The card of `deck`; its buttons call `open`, `goLive`, `rename`, `move` and `remove` with the deck. */
export function deckCard(deck, { open, goLive, rename, move, remove }) {
  const ready = deck.status === 'ready';
  const failed = deck.status === 'failed';
  const thumb = el('button', {
    class: 'deck-thumb' + (failed ? ' is-failed' : ''),
    attrs: { type: 'button', 'aria-label': t('library.open-named', { title: deck.title }), tabindex: ready ? null : '-1', disabled: !ready },
    on: { click: () => open(deck) },
  });
  if (deck.thumbnailUrl) thumb.append(el('img', { attrs: { src: deck.thumbnailUrl, alt: '', loading: 'lazy' } }));
  else thumb.append(icon(failed ? 'alert' : 'film', 36));
  if (ready && deck.pageCount) thumb.append(el('span', { class: 'pages-badge', text: formatNumber(deck.pageCount) }));

  const meta = el('div', { class: 'deck-meta' });
  const pill = ['ready', 'processing', 'failed'].includes(deck.status) ? t('library.status-' + deck.status) : deck.status;
  meta.append(el('span', { class: 'status-pill status-' + deck.status, text: pill, attrs: { 'data-role': 'status' } }));
  if (deck.pageCount) meta.append(el('span', { class: 'deck-pages', text: plural('library.pages', deck.pageCount), attrs: { 'data-role': 'pages' } }));
  const body = el('div', { class: 'deck-body' }, [el('div', { class: 'deck-title', text: deck.title, attrs: { title: deck.title } }), meta]);
  if (deck.status === 'processing') {
    const p = deck.progress;
    const fraction = p && p.total ? p.done / p.total : 0;
    body.append(progressBar(fraction, processingText(p), true));
  }
  if (failed) {
    const message = deck.error && (deck.error.code || deck.error.message) ? errorText(deck.error) : t('library.pdf-failed');
    body.append(el('p', { class: 'deck-error', attrs: { 'data-role': 'error' } }, [icon('alert', 16), el('span', { text: message })]));
  }

  const actions = el('div', { class: 'deck-actions' });
  const menu = el('div', { class: 'menu', attrs: { role: 'menu', hidden: true, 'aria-label': t('library.more-actions', { title: deck.title }) } });
  const more = el('button', {
    class: 'btn btn-more', attrs: { type: 'button', 'aria-label': t('library.more-actions', { title: deck.title }), 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'data-action': 'more', title: t('library.more') },
  }, [icon('more')]);
  const closeMenu = () => {
    menu.hidden = true;
    more.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', outside, true);
  };
  const outside = (event) => {
    if (!menu.contains(event.target) && event.target !== more && !more.contains(event.target)) closeMenu();
  };
  more.addEventListener('click', () => {
    if (!menu.hidden) {
      closeMenu();
      return;
    }
    for (const other of document.querySelectorAll('.menu:not([hidden])')) other.hidden = true;
    menu.hidden = false;
    more.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', outside, true);
    const first = menu.querySelector('button');
    if (first) first.focus();
  });
  menu.addEventListener('keydown', (event) => {
    const items = [...menu.querySelectorAll('button')];
    const index = items.indexOf(document.activeElement);
    if (event.key === 'Escape') {
      closeMenu();
      more.focus();
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      items[(index + 1) % items.length].focus();
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      items[(index - 1 + items.length) % items.length].focus();
    }
  });
  const menuItem = (iconName, label, action, handler, danger = false) =>
    el('button', {
      class: 'menu-item' + (danger ? ' danger' : ''), attrs: { type: 'button', role: 'menuitem', 'data-action': action },
      on: { click: () => { closeMenu(); handler(); } },
    }, [icon(iconName, 18), label]);
  if (!failed) {
    menu.append(menuItem('edit', t('library.rename'), 'rename', () => rename(deck)));
    menu.append(menuItem('folder', t('library.move-to-folder'), 'move', () => move(deck)));
  }
  menu.append(menuItem('trash', t('library.delete'), 'delete', () => remove(deck), true));

  if (ready) {
    actions.append(
      iconButton('broadcast', t('library.go-live'), { cls: 'btn btn-primary', on: { click: () => goLive(deck) }, attrs: { 'data-action': 'golive', 'aria-label': t('library.go-live-with', { title: deck.title }) } }),
      iconButton('play', t('library.open'), { cls: 'btn', on: { click: () => open(deck) }, attrs: { 'data-action': 'open', 'aria-label': t('library.open-rehearse', { title: deck.title }), title: t('library.rehearse-alone') } }),
    );
  } else if (failed) {
    actions.append(iconButton('trash', t('library.delete'), { cls: 'btn', on: { click: () => remove(deck) }, attrs: { 'data-action': 'delete-failed', 'aria-label': t('library.delete-named', { title: deck.title }) } }));
  }
  actions.append(more);
  return el('li', {
    class: 'deck-card' + (failed ? ' is-failed' : ''),
    attrs: { 'data-deck-id': deck.id, 'data-status': deck.status, 'data-title': deck.title },
  }, [thumb, body, actions, menu]);
}

