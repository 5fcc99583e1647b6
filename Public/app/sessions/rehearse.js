// Rehearsal: /decks/{id}. The presenter's stage and controls, alone: no live session, nothing
// any viewer could see. Drawing (ink) works as in a session but stays in this tab; the deck's
// question bank is there to prepare polls and quizzes, kept with the deck for every session.

import { t, errorText } from '../core/i18n.js';
import { api, goToLogin } from '../core/api.js';
import { applyEvent } from '../live/live.js';
import { StageDriver } from '../stage/driver.js';
import { el, toast } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { openGoLive } from '../library/go-live.js';
import { QuestionBank } from '../interaction/question-bank.js';

const id = addressPart();
const $ = (name) => document.getElementById(name);
const message = $('console-message');

// Ink on this tab only: the commands a session would send are applied here by live.js's reducer.
let inkState = { strokes: [] };
const LOCAL_EVENTS = {
  stroke: (command) => ({ type: 'stroke', stroke: { ...command.stroke, id: command.id } }),
  erase: (command) => ({ type: 'erased', strokeId: command.strokeId }),
  clearPage: (command) => ({ type: 'pageCleared', page: command.page }),
};

// The stage driver of every presenting page, with no socket: page changes, zoom and blank stay
// on this screen (the console applies them itself), ink goes through the local reducer above.
let loaded = false;
const driver = new StageDriver({
  stage: $('stage'),
  stageWrap: $('stage-wrap'),
  controls: $('controls'),
  thumbs: $('thumbs'),
  inkBar: $('ink-bar'),
  inkKey: 'rehearse-' + id,
  live: () => null,
  state: () => inkState,
  drives: () => loaded,
  send: () => {},
  sendForResult: async (command) => {
    const event = LOCAL_EVENTS[command.type];
    if (event) inkState = applyEvent(inkState, event(command));
    queueMicrotask(() => driver.renderInk());
    return { id: command.id, seq: 0 };
  },
  error: (text) => toast(text, { kind: 'error' }),
});

// The question bank, in the side panel (behind a button on narrow screens).
const panel = $('bank-panel');
const hint = $('bank-hint');
new QuestionBank({ deckId: id, container: $('bank-pane') });
$('bank-pane').querySelector('.pane-actions').after(hint); // under the heading and its button
$('bank-toggle').addEventListener('click', () => toggleBank());
$('close-bank').addEventListener('click', () => toggleBank(false));
function toggleBank(show = !document.body.classList.contains('show-join')) {
  document.body.classList.toggle('show-join', show);
  $('bank-toggle').setAttribute('aria-expanded', String(show));
  if (show) panel.querySelector('button, [tabindex]')?.focus();
}

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
      showMessage(t('live.no-such-deck'), t('live.maybe-deleted'), { href: '/library', label: t('live.back-to-library') });
      return;
    }
    showMessage(t('live.cannot-open-deck'), errorText(error));
    return;
  }
  $('deck-title').textContent = deck.title;
  document.title = t('live.rehearse-title', { title: deck.title });
  if (deck.status === 'processing') {
    const p = deck.progress;
    showMessage(t('live.still-processing'), p && p.total ? t('live.page-ready', { done: p.done, total: p.total }) : t('live.pages-being-prepared'));
    setTimeout(load, 1000);
    return;
  }
  if (deck.status === 'failed') {
    showMessage(t('live.pdf-failed'), deck.error && (deck.error.code || deck.error.message) ? errorText(deck.error) : '', { href: '/library', label: t('live.back-to-library') });
    return;
  }
  message.hidden = true;
  $('console-subtitle').textContent = t('live.rehearsal-subtitle', { count: deck.pageCount });
  loaded = true;
  driver.console.setPages(deck.pages || []);
  driver.console.setEnabled(true);
  driver.renderInk();
  const goLive = $('go-live');
  goLive.disabled = false;
  goLive.addEventListener('click', () => openGoLive({ ...deck, thumbnailUrl: deck.thumbnailUrl || (deck.pages[0] && deck.pages[0].thumbnailUrl) }));
}

startPage(load);
