// The LTI deep linking picker: /lti/pick/{id}, where a teacher lands from a learning platform's
// "add content" (an LtiDeepLinkingRequest). Lists the teacher's decks, live sessions and
// session reports; the choice goes to POST /api/v1/lti/deep-links/{id}, whose signed answer is
// posted, as the form field JWT, to the platform's return URL (the page's Content-Security-Policy
// allows that one address).
//
// State for tests and CSS: #lti-pick[data-state] (loading | ready | sending | error).

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { signedInUser, startPage } from '../core/page.js';

const card = document.getElementById('lti-pick');
const form = document.getElementById('lti-pick-form');
const error = document.getElementById('lti-error');
const add = document.getElementById('lti-add');
// The request's id: /lti/pick/{id}.
const id = decodeURIComponent(location.pathname.split('/')[3] || '');

/** One radio choice in `group`'s list: `kind:id`, its title and a note. */
function option(group, kind, value, title, note) {
  const label = document.createElement('label');
  label.className = 'lti-option';
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'item';
  input.value = kind + ':' + value;
  const text = document.createElement('span');
  text.className = 'lti-option-title';
  text.textContent = title;
  label.append(input, text);
  if (note) {
    const small = document.createElement('span');
    small.className = 'field-hint';
    small.textContent = note;
    label.append(small);
  }
  group.querySelector('.lti-options').append(label);
}

async function start() {
  if (!(await signedInUser((failure) => { error.textContent = errorText(failure); }))) return;
  try {
    const [decks, history] = await Promise.all([api('/api/v1/decks'), api('/api/v1/history?limit=50')]);
    const groups = {
      decks: document.getElementById('lti-decks'),
      sessions: document.getElementById('lti-sessions'),
      reports: document.getElementById('lti-reports'),
    };
    for (const deck of decks.filter((each) => each.status === 'ready')) {
      option(groups.decks, 'deck', deck.id, deck.title, t('lti.pages', { count: deck.pageCount }));
    }
    const sessions = (history.sessions || []).filter((entry) => entry.kind === 'session');
    for (const entry of sessions.filter((each) => each.live)) {
      option(groups.sessions, 'session', entry.code, entry.title, entry.code);
    }
    for (const entry of sessions) option(groups.reports, 'report', entry.code, entry.title, entry.code);
    let any = false;
    for (const group of Object.values(groups)) {
      const empty = !group.querySelector('input');
      group.hidden = empty;
      any = any || !empty;
    }
    document.getElementById('lti-empty').hidden = any;
    add.disabled = !any;
    card.dataset.state = 'ready';
  } catch (failure) {
    error.textContent = errorText(failure);
    card.dataset.state = 'error';
  }
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.textContent = '';
  const chosen = form.querySelector('input[name="item"]:checked');
  if (!chosen) {
    error.textContent = t('lti.choose');
    return;
  }
  const [kind, value] = [chosen.value.slice(0, chosen.value.indexOf(':')), chosen.value.slice(chosen.value.indexOf(':') + 1)];
  add.disabled = true;
  add.textContent = t('lti.adding');
  card.dataset.state = 'sending';
  try {
    const answer = await api('/api/v1/lti/deep-links/' + encodeURIComponent(id), { method: 'POST', body: [{ kind, id: value }] });
    // Back to the platform: a form of its own, posted once (the platform reads the field JWT).
    const back = document.createElement('form');
    back.method = 'post';
    back.action = answer.url;
    back.hidden = true;
    const field = document.createElement('input');
    field.type = 'hidden';
    field.name = 'JWT';
    field.value = answer.jwt;
    back.append(field);
    document.body.append(back);
    back.submit();
  } catch (failure) {
    error.textContent = errorText(failure);
    add.disabled = false;
    add.textContent = t('lti.add');
    card.dataset.state = 'ready';
  }
});

startPage(start);
