// Accounts: invite presenters and admins by email (pending invitations: sent again, revoked, or,
// without a mail relay, their link copied to pass on by hand), approve or decline sign-ups, and
// read the audit log of admin actions. Members (and roles) are the next section.
import { errorText, formatDate, has, language, LANGUAGES, t } from '../core/i18n.js';
import { copyText } from '../core/clipboard.js';
import { el } from '../core/ui.js';

let ctx;
let invitationRows;
let signUpRows;
let signUpBlock;
let auditRows;
let olderButton;
let auditBefore = null;
/** Links of invitations made or sent again on this page (no mail relay): id → link. */
const links = new Map();

export function mount(section, context) {
  ctx = context;
  const email = el('input', {
    class: 'input', attrs: { type: 'email', id: 'invite-email', required: true, autocomplete: 'off', placeholder: t('accounts.admin.invite-placeholder') },
  });
  const role = el('select', { class: 'input', attrs: { id: 'invite-role' } }, [
    el('option', { text: t('channeladmin.members.role-presenter'), attrs: { value: 'presenter' } }),
    el('option', { text: t('channeladmin.members.role-admin'), attrs: { value: 'admin' } }),
  ]);
  // The message's language: the admin's page's unless they choose the person's (each option
  // named in its own language, as the language switcher does).
  const messageLanguage = el(
    'select',
    { class: 'input', attrs: { id: 'invite-language' } },
    LANGUAGES.map(({ code, name }) => el('option', { text: name, attrs: { value: code, lang: code } })),
  );
  messageLanguage.value = LANGUAGES.some(({ code }) => code === language) ? language : 'en';
  const submit = el('button', { class: 'btn btn-primary', text: t('accounts.admin.invite'), attrs: { type: 'submit', id: 'invite-submit' } });
  const form = el('form', { class: 'accounts-invite', attrs: { novalidate: true, 'aria-label': t('accounts.admin.invite-heading') } }, [
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('accounts.email') }), email]),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('channeladmin.members.role') }), role]),
    el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('accounts.admin.invite-language') }), messageLanguage]),
    submit,
  ]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!email.value.trim()) {
      email.focus();
      return;
    }
    submit.disabled = true;
    try {
      const invitation = await ctx.api('/api/v1/invitations', { method: 'POST', body: { email: email.value.trim(), role: role.value, language: messageLanguage.value } });
      if (invitation.link) links.set(invitation.id, invitation.link);
      ctx.toast(t(invitation.link ? 'accounts.admin.invited-manual' : 'accounts.admin.invited', { email: invitation.email }), { kind: 'success' });
      email.value = '';
      await Promise.all([loadInvitations(), loadAudit()]);
    } catch (error) {
      ctx.toast(adminError(error), { kind: 'error' });
    }
    submit.disabled = false;
  });

  invitationRows = el('tbody');
  signUpRows = el('tbody');
  auditRows = el('tbody');
  olderButton = el('button', { class: 'btn', text: t('accounts.admin.older'), attrs: { type: 'button', id: 'audit-older', hidden: true } });
  olderButton.addEventListener('click', () => loadAudit({ more: true }));
  signUpBlock = el('div', { class: 'accounts-block', attrs: { id: 'sign-ups', hidden: true } }, [
    el('h2', { text: t('accounts.admin.sign-ups') }),
    el('div', { class: 'admin-table-wrap' }, [
      el('table', { class: 'admin-table', attrs: { id: 'sign-ups-table' } }, [
        el('thead', {}, [el('tr', {}, [th('channeladmin.members.name'), th('accounts.email'), th('accounts.admin.asked'), el('th', { text: '' })])]),
        signUpRows,
      ]),
    ]),
  ]);
  section.replaceChildren(
    el('div', { class: 'admin-head' }, [el('h1', { text: t('accounts.admin.heading') })]),
    el('p', { class: 'admin-hint', text: t('accounts.admin.hint') }),
    el('div', { class: 'accounts-block' }, [el('h2', { text: t('accounts.admin.invite-heading') }), form]),
    el('div', { class: 'accounts-block' }, [
      el('h2', { text: t('accounts.admin.pending') }),
      el('div', { class: 'admin-table-wrap' }, [
        el('table', { class: 'admin-table', attrs: { id: 'invitations-table' } }, [
          el('thead', {}, [el('tr', {}, [th('accounts.email'), th('channeladmin.members.role'), th('accounts.admin.invite-language'), th('accounts.admin.delivery'), th('accounts.admin.expires'), el('th', { text: '' })])]),
          invitationRows,
        ]),
      ]),
    ]),
    signUpBlock,
    el('div', { class: 'accounts-block' }, [
      el('h2', { text: t('accounts.admin.audit') }),
      el('div', { class: 'admin-table-wrap' }, [
        el('table', { class: 'admin-table', attrs: { id: 'audit-table' } }, [
          el('thead', {}, [el('tr', {}, [th('accounts.admin.when'), th('accounts.admin.who'), th('accounts.admin.what'), th('accounts.admin.whom')])]),
          auditRows,
        ]),
      ]),
      el('div', { class: 'accounts-more' }, [olderButton]),
    ]),
  );
}

export async function show() {
  await Promise.all([loadInvitations(), loadSignUps(), loadAudit()]);
}

function th(key) {
  return el('th', { text: t(key) });
}

function adminError(error) {
  if (error && error.code && has('accounts.error.' + error.code)) return t('accounts.error.' + error.code);
  return errorText(error);
}

function roleText(role) {
  return ['admin', 'presenter'].includes(role) ? t('channeladmin.members.role-' + role) : role;
}

async function loadInvitations() {
  let invitations;
  try {
    invitations = await ctx.api('/api/v1/invitations');
  } catch (error) {
    ctx.toast(adminError(error), { kind: 'error' });
    return;
  }
  if (invitations.length === 0) {
    invitationRows.replaceChildren(el('tr', {}, [el('td', { text: t('accounts.admin.no-pending'), attrs: { colspan: 6 } })]));
    return;
  }
  invitationRows.replaceChildren(...invitations.map(invitationRow));
}

function invitationRow(invitation) {
  const link = links.get(invitation.id);
  const status = el('span', {
    class: 'admin-status', text: t('accounts.admin.delivery-' + invitation.delivery), data: { status: 'delivery-' + invitation.delivery },
  });
  if (invitation.deliveryError) status.title = invitation.deliveryError;
  const actions = [];
  if (link) {
    const copy = el('button', { class: 'btn btn-primary', text: t('accounts.admin.copy-link'), attrs: { type: 'button', 'data-action': 'copy-link' } });
    copy.addEventListener('click', async () => {
      const copied = await copyText(link);
      ctx.toast(t(copied ? 'accounts.admin.link-copied' : 'accounts.admin.link-not-copied'), { kind: copied ? 'success' : 'error' });
    });
    actions.push(copy);
  }
  const resend = el('button', { class: 'btn', text: t('accounts.admin.resend'), attrs: { type: 'button', 'data-action': 'resend' } });
  resend.addEventListener('click', async () => {
    resend.disabled = true;
    try {
      const renewed = await ctx.api('/api/v1/invitations/' + encodeURIComponent(invitation.id) + '/resend', { method: 'POST' });
      if (renewed.link) links.set(renewed.id, renewed.link);
      ctx.toast(t(renewed.link ? 'accounts.admin.new-link' : 'accounts.admin.resent', { email: renewed.email }), { kind: 'success' });
      await Promise.all([loadInvitations(), loadAudit()]);
    } catch (error) {
      ctx.toast(adminError(error), { kind: 'error' });
      resend.disabled = false;
    }
  });
  const revoke = el('button', { class: 'btn btn-ghost', text: t('accounts.admin.revoke'), attrs: { type: 'button', 'data-action': 'revoke' } });
  revoke.addEventListener('click', async () => {
    revoke.disabled = true;
    try {
      await ctx.api('/api/v1/invitations/' + encodeURIComponent(invitation.id), { method: 'DELETE' });
      links.delete(invitation.id);
      ctx.toast(t('accounts.admin.revoked', { email: invitation.email }), { kind: 'success' });
      await Promise.all([loadInvitations(), loadAudit()]);
    } catch (error) {
      ctx.toast(adminError(error), { kind: 'error' });
      revoke.disabled = false;
    }
  });
  actions.push(resend, revoke);
  const linkCell = link
    ? el('div', { class: 'accounts-link' }, [el('span', { text: t('accounts.admin.pass-on') }), el('code', { text: link, attrs: { 'data-role': 'invitation-link' } })])
    : null;
  return el('tr', { data: { invitationId: invitation.id } }, [
    el('td', {}, [el('div', { text: invitation.email }), linkCell].filter(Boolean)),
    el('td', { text: roleText(invitation.role) }),
    languageCell(invitation.language),
    el('td', {}, [status]),
    el('td', { text: formatDate(invitation.expiresAt, { dateStyle: 'medium' }) }),
    el('td', {}, [el('div', { class: 'admin-actions' }, actions)]),
  ]);
}

/** The language an invitation's message is written in, named in itself (as the form's choices are). */
function languageCell(code) {
  const known = LANGUAGES.find((candidate) => candidate.code === code);
  if (!code) return el('td', { text: '' });
  return el('td', { text: known ? known.name : code, attrs: { lang: code }, data: { role: 'invitation-language', language: code } });
}

async function loadSignUps() {
  let requests;
  try {
    requests = await ctx.api('/api/v1/sign-ups');
  } catch (error) {
    ctx.toast(adminError(error), { kind: 'error' });
    return;
  }
  signUpBlock.hidden = requests.length === 0;
  signUpRows.replaceChildren(...requests.map(signUpRow));
}

function signUpRow(request) {
  const approve = el('button', { class: 'btn btn-primary', text: t('accounts.admin.approve'), attrs: { type: 'button', 'data-action': 'approve' } });
  const decline = el('button', { class: 'btn btn-ghost', text: t('accounts.admin.decline'), attrs: { type: 'button', 'data-action': 'decline' } });
  const decide = async (button, path, message) => {
    approve.disabled = true;
    decline.disabled = true;
    try {
      await ctx.api('/api/v1/sign-ups/' + encodeURIComponent(request.id) + '/' + path, { method: 'POST' });
      ctx.toast(t(message, { email: request.email }), { kind: 'success' });
      await Promise.all([loadSignUps(), loadAudit()]);
    } catch (error) {
      ctx.toast(adminError(error), { kind: 'error' });
      approve.disabled = false;
      decline.disabled = false;
    }
  };
  approve.addEventListener('click', () => decide(approve, 'approve', 'accounts.admin.approved'));
  decline.addEventListener('click', () => decide(decline, 'decline', 'accounts.admin.declined'));
  return el('tr', { data: { signUpId: request.id } }, [
    el('td', { text: request.name }),
    el('td', { text: request.email }),
    el('td', { text: formatDate(request.createdAt) }),
    el('td', {}, [el('div', { class: 'admin-actions' }, [approve, decline])]),
  ]);
}

async function loadAudit({ more = false } = {}) {
  let page;
  try {
    const query = more && auditBefore ? '?before=' + auditBefore : '';
    page = await ctx.api('/api/v1/audit' + query);
  } catch (error) {
    ctx.toast(adminError(error), { kind: 'error' });
    return;
  }
  auditBefore = page.before ?? null;
  olderButton.hidden = auditBefore === null;
  const rows = page.entries.map(auditRow);
  if (more) auditRows.append(...rows);
  else if (rows.length === 0) auditRows.replaceChildren(el('tr', {}, [el('td', { text: t('accounts.admin.no-audit'), attrs: { colspan: 4 } })]));
  else auditRows.replaceChildren(...rows);
}

function auditRow(entry) {
  const key = 'accounts.audit.' + entry.action;
  const what = has(key) ? t(key, { detail: entry.detail ? roleText(entry.detail) : '' }) : entry.action;
  return el('tr', { data: { action: entry.action } }, [
    el('td', { text: formatDate(entry.at) }),
    el('td', { text: entry.actorId ? entry.actorName : t('accounts.audit.server') }),
    el('td', { text: what }),
    el('td', { text: [entry.target, entry.address].filter(Boolean).join(' · ') }),
  ]);
}
