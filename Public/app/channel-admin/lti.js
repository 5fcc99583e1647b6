// Courses (LTI 1.3): the URLs a learning platform (Moodle, Canvas) needs to know of Podium, the
// platforms registered, and the form that registers one (its issuer, the client id it gave
// Podium, its deployment ids, its login, token and key set URLs). Admins only, as the page.
import { errorText, loadAreas, t } from '../core/i18n.js';
import { el } from '../core/ui.js';

let ctx;
let root;
let list;
let urls;

const FIELDS = [
  ['name', 'lti.admin.name', 'text', false],
  ['issuer', 'lti.admin.issuer', 'url', true],
  ['clientId', 'lti.admin.client-id', 'text', true],
  ['deploymentIds', 'lti.admin.deployments', 'text', true],
  ['authLoginURL', 'lti.admin.auth-url', 'url', true],
  ['tokenURL', 'lti.admin.token-url', 'url', true],
  ['jwksURL', 'lti.admin.jwks-url', 'url', true],
];

export async function mount(section, context) {
  ctx = context;
  root = section;
  await loadAreas('lti');
  urls = el('div', { class: 'stack admin-form', attrs: { id: 'lti-tool-urls' } });
  list = el('tbody');
  const inputs = {};
  const form = el('form', { class: 'stack admin-form', attrs: { id: 'lti-register', novalidate: true } });
  for (const [name, label, type, required] of FIELDS) {
    const id = 'lti-field-' + name;
    inputs[name] = el('input', { class: 'input', attrs: { id, name, type, required, autocomplete: 'off', spellcheck: 'false' } });
    form.append(el('label', { class: 'field', attrs: { for: id } }, [el('span', { class: 'field-label', text: t(label) }), inputs[name]]));
  }
  const error = el('p', { class: 'form-error', attrs: { role: 'alert', id: 'lti-register-error' } });
  const submit = el('button', { class: 'btn btn-primary', text: t('lti.admin.register'), attrs: { type: 'submit', id: 'lti-register-submit' } });
  form.append(error, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const body = {};
    for (const [name] of FIELDS) body[name] = inputs[name].value.trim();
    body.deploymentIds = body.deploymentIds.split(/[\s,]+/).filter(Boolean);
    if (!body.name) delete body.name;
    submit.disabled = true;
    try {
      const platform = await ctx.api('/api/v1/lti/platforms', { method: 'POST', body });
      ctx.toast(t('lti.admin.registered', { name: platform.name }), { kind: 'success' });
      form.reset();
      await load();
    } catch (failure) {
      error.textContent = errorText(failure);
    } finally {
      submit.disabled = false;
    }
  });
  root.replaceChildren(
    el('div', { class: 'admin-head' }, [el('h1', { text: t('lti.admin.title') })]),
    el('p', { class: 'admin-hint', text: t('lti.admin.hint') }),
    // (The blocks are spaced as the Accounts section's.)
    el('div', { class: 'accounts-block' }, [el('h2', { text: t('lti.admin.tool-heading') }), urls]),
    el('div', { class: 'accounts-block' }, [
      el('h2', { text: t('lti.admin.platforms-heading') }),
      // Scrolled sideways on a phone: reachable by keyboard even when it holds no button yet.
      el('div', { class: 'admin-table-wrap', attrs: { tabindex: '0', role: 'region', 'aria-label': t('lti.admin.platforms-heading') } }, [
        el('table', { class: 'admin-table', attrs: { id: 'lti-platforms' } }, [
          el('thead', {}, [el('tr', {}, [
            el('th', { text: t('lti.admin.name') }), el('th', { text: t('lti.admin.issuer') }),
            el('th', { text: t('lti.admin.client-id') }), el('th', { text: t('lti.admin.deployments') }), el('th', { text: '' }),
          ])]),
          list,
        ]),
      ]),
    ]),
    el('div', { class: 'accounts-block' }, [el('h2', { text: t('lti.admin.register-heading') }), form]),
  );
}

export async function show() {
  await load();
}

async function load() {
  let tool;
  let platforms;
  try {
    [tool, platforms] = await Promise.all([ctx.api('/api/v1/lti/tool'), ctx.api('/api/v1/lti/platforms')]);
  } catch (failure) {
    ctx.toast(errorText(failure), { kind: 'error' });
    return;
  }
  urls.replaceChildren(...[
    ['loginURL', 'lti.admin.login-url'], ['launchURL', 'lti.admin.launch-url'],
    ['deepLinkingURL', 'lti.admin.deep-linking-url'], ['jwksURL', 'lti.admin.tool-jwks-url'],
  ].map(([key, label]) => el('label', { class: 'field', attrs: { for: 'lti-tool-' + key } }, [
    el('span', { class: 'field-label', text: t(label) }),
    el('input', { class: 'input', attrs: { readonly: true, value: tool[key], id: 'lti-tool-' + key, spellcheck: 'false' } }),
  ])));
  if (platforms.length === 0) {
    list.replaceChildren(el('tr', {}, [el('td', { text: t('lti.admin.none'), attrs: { colspan: 5 } })]));
    return;
  }
  list.replaceChildren(...platforms.map(row));
}

function row(platform) {
  const remove = el('button', { class: 'btn', text: t('lti.admin.remove'), attrs: { type: 'button', 'data-action': 'remove' } });
  remove.addEventListener('click', async () => {
    if (!window.confirm(t('lti.admin.remove-confirm', { name: platform.name }))) return;
    remove.disabled = true;
    try {
      await ctx.api('/api/v1/lti/platforms/' + encodeURIComponent(platform.id), { method: 'DELETE' });
      await load();
    } catch (failure) {
      ctx.toast(errorText(failure), { kind: 'error' });
      remove.disabled = false;
    }
  });
  return el('tr', { data: { platformId: platform.id } }, [
    el('td', { text: platform.name }),
    el('td', { text: platform.issuer }),
    el('td', { text: platform.clientId }),
    el('td', { text: platform.deploymentIds.join(', ') }),
    el('td', {}, [el('div', { class: 'admin-actions' }, [remove])]),
  ]);
}
