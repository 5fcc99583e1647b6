// Audience home: type a join code, or pick a live session from the lobby (live over a socket).

import { t } from '../core/i18n.js';
import { api, currentUser } from '../core/api.js';
import { el, icon, cleanCode, CODE_LENGTH } from '../core/ui.js';
import { startPage } from '../core/page.js';

const form = document.getElementById('join-form');
const input = document.getElementById('code');
const hint = document.getElementById('join-hint');
const list = document.getElementById('sessions');
const empty = document.getElementById('sessions-empty');
const HINT = t('home.hint');

// ---- join code ----

function updateCode() {
  const start = input.selectionStart;
  let before = input.value;
  // A pasted join link: keep its code.
  const link = before.match(/\/s\/([A-Za-z0-9]+)/);
  if (link) before = link[1];
  const { code, dropped } = cleanCode(before);
  if (code !== input.value) {
    input.value = code;
    const pos = Math.min(code.length, start === null ? code.length : start);
    input.setSelectionRange(pos, pos);
  }
  hint.classList.toggle('is-error', dropped);
  hint.textContent = dropped ? t('home.hint-dropped') : HINT;
  input.removeAttribute('aria-invalid');
}

input.addEventListener('input', updateCode);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const { code } = cleanCode(input.value);
  if (code.length !== CODE_LENGTH) {
    hint.classList.add('is-error');
    hint.textContent = t('home.hint-length', { length: CODE_LENGTH });
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    return;
  }
  location.assign('/s/' + code);
});

// ---- live sessions ----

function viewersText(n) {
  return t('common.viewers', { count: n });
}

function render(sessions) {
  const live = (sessions || []).filter((s) => s.live !== false);
  list.replaceChildren(...live.map((session) => {
    const title = el('span', { text: session.title || t('home.untitled') });
    const titleRow = el('div', { class: 'session-title' }, [title]);
    // The lobby says `passcode: true/false` (never the passcode); the REST list `hasPasscode`.
    if (session.passcode === true || session.hasPasscode === true) {
      const lock = el('span', { class: 'session-lock', attrs: { title: t('home.passcode-required'), 'data-role': 'lock' } }, [icon('lock', 16)]);
      lock.append(el('span', { class: 'visually-hidden', text: t('home.passcode-required') }));
      titleRow.append(lock);
    }
    const meta = el('div', { class: 'session-meta', text: session.presenter ? t('home.by', { name: session.presenter }) : '' });
    const right = el('div', { class: 'session-side' });
    if (typeof session.viewers === 'number') {
      right.append(el('span', { class: 'session-viewers', attrs: { 'data-role': 'viewers' } }, [icon('users', 16), viewersText(session.viewers)]));
    }
    right.append(el('div', { class: 'session-code', text: session.code }));
    const link = el('a', {
      class: 'session-link',
      attrs: { href: '/s/' + encodeURIComponent(session.code), 'data-code': session.code },
    }, [el('span', { class: 'session-icon' }, [icon('broadcast', 22)]), el('div', { class: 'session-text' }, [titleRow, meta]), right]);
    return el('li', {}, [link]);
  }));
  empty.hidden = live.length > 0;
}

// First paint from REST, then the lobby socket keeps the list current (and wins any race).
let heardLobby = false;
api('/api/v1/sessions?live=true').then((sessions) => {
  if (!heardLobby) render(sessions);
}).catch(() => {});

let attempt = 0;
function connectLobby() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(scheme + '//' + location.host + '/api/v1/lobby');
  let ping = null;
  ws.onopen = () => {
    attempt = 0;
    ping = setInterval(() => {
      try {
        ws.send(JSON.stringify({ type: 'ping' }));
      } catch (_) {
        // closing
      }
    }, 25000);
  };
  ws.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (_) {
      return;
    }
    if (message.type === 'sessions') {
      heardLobby = true;
      render(message.sessions);
    }
  };
  ws.onclose = () => {
    clearInterval(ping);
    const base = Math.min(10000, 500 * 2 ** attempt);
    attempt += 1;
    setTimeout(connectLobby, base / 2 + Math.random() * base / 2);
  };
}
// A presenter already signed in is offered their library, not a sign-in they have done (the
// sign-in page would only have sent them on). body[data-account] says the answer is in.
function showAccount() {
  currentUser().then((user) => {
    if (user) {
      const link = document.getElementById('presenter-link');
      link.href = '/library';
      link.dataset.i18n = 'home.deadend-go-library';
      link.textContent = t('home.deadend-go-library');
    }
    document.body.dataset.account = user ? 'signed-in' : 'signed-out';
  }).catch(() => {});
}

startPage(() => {
  showAccount();
  connectLobby();
});
