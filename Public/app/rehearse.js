// Rehearsal: /decks/{id}. The presenter's stage and controls, alone: nothing is sent anywhere.

import { api, goToLogin } from './api.js';
import './stage.js';
import { DeckConsole } from './console.js';
import { hydrateIcons, el } from './ui.js';
import { openGoLive } from './golive.js';

hydrateIcons();

const id = decodeURIComponent(location.pathname.split('/')[2] || '');
const $ = (name) => document.getElementById(name);
const message = $('console-message');

const deckConsole = new DeckConsole({
  stage: $('stage'),
  stageWrap: $('stage-wrap'),
  controls: $('controls'),
  thumbs: $('thumbs'),
});
deckConsole.setEnabled(false);

function showMessage(title, text, link) {
  const parts = [el('h2', { text: title }), el('p', { text })];
  if (link) parts.push(el('a', { class: 'btn btn-primary', text: link.label, attrs: { href: link.href } }));
  message.replaceChildren(el('div', {}, parts));
  message.hidden = false;
}

async function load() {
  let deck;
  try {
    deck = await api('/api/v1/decks/' + encodeURIComponent(id));
  } catch (error) {
    if (error.status === 401) {
      goToLogin();
      return;
    }
    if (error.status === 404) {
      showMessage('No such deck', 'It may have been deleted.', { href: '/library', label: 'Back to the library' });
      return;
    }
    showMessage('Cannot open this deck', error.message);
    return;
  }
  $('deck-title').textContent = deck.title;
  document.title = deck.title + ' — Rehearse — Podium';
  if (deck.status === 'processing') {
    const p = deck.progress;
    showMessage('Still processing…', p && p.total ? 'Page ' + p.done + ' of ' + p.total + ' is ready.' : 'The pages are being prepared.');
    setTimeout(load, 1000);
    return;
  }
  if (deck.status === 'failed') {
    showMessage('This PDF could not be processed', (deck.error && deck.error.message) || '', { href: '/library', label: 'Back to the library' });
    return;
  }
  message.hidden = true;
  $('console-subtitle').textContent = 'Rehearsal · ' + deck.pageCount + (deck.pageCount === 1 ? ' slide' : ' slides') + ' · only you see this';
  deckConsole.setPages(deck.pages || []);
  deckConsole.setEnabled(true);
  const goLive = $('go-live');
  goLive.disabled = false;
  goLive.addEventListener('click', () => openGoLive({ ...deck, thumbnailUrl: deck.thumbnailUrl || (deck.pages[0] && deck.pages[0].thumbnailUrl) }));
}

load();
