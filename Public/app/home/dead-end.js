// The dead ends the server fills in from error.html (an unknown join code, a deck that is gone, a
// mistyped path): the server writes them in English; here they are said again in the page's
// language, chosen by the page's `data-reason` (`session`, `room`, `deck`, `page`) and its address.

import { t } from '../core/i18n.js';
import { startPage } from '../core/page.js';

const main = document.getElementById('not-found');
const reason = main ? main.dataset.reason : '';
const [, first, second] = location.pathname.split('/');
const code = decodeURIComponent(second || '').toUpperCase();

/** The messages of each dead end: title, message, main action and the other way out. */
function messages() {
  if (reason === 'session' && first === 'present') {
    return { title: t('home.deadend-console-title'), message: t('home.deadend-console-message', { code }), action: t('home.deadend-go-library') };
  }
  if (reason === 'session') {
    return {
      title: t('home.deadend-session-title', { code }), message: t('home.deadend-session-message'),
      action: t('common.enter-another-code'), other: t('home.deadend-presenter'),
    };
  }
  if (reason === 'room') {
    return {
      title: t('home.deadend-room-title', { code }), message: t('home.deadend-room-message'),
      action: t('common.enter-another-code'), other: t('home.deadend-moderator'),
    };
  }
  if (reason.startsWith('lti-')) {
    // A course link that could not open Podium (LTI 1.3): why, by the server's reason.
    const kind = reason.slice(4);
    return { title: t('lti.deadend-' + kind + '-title'), message: t('lti.deadend-' + kind + '-message'), action: t('common.home'), other: t('home.deadend-presenter') };
  }
  if (reason === 'deck') return { title: t('home.deadend-deck-title'), message: t('home.deadend-deck-message'), action: t('home.deadend-go-library') };
  return {
    title: t('home.deadend-page-title'), message: t('home.deadend-page-message'),
    action: t('home.deadend-join'), other: t('home.deadend-presenter'),
  };
}

function start() {
  if (!main) return;
  const words = messages();
  document.getElementById('not-found-title').textContent = words.title;
  document.getElementById('not-found-text').textContent = words.message;
  document.getElementById('dead-end-action').textContent = words.action;
  const other = document.getElementById('dead-end-home');
  // A dead end without a second way out points home: "Podium home".
  other.textContent = words.other || t('common.home');
  document.title = t('common.page-title', { title: words.title });
}

startPage(start);
