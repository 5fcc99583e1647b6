// Members: every account, searchable, with membership granted or revoked by one click.
// A member meets none of the channel's limits; admins see everything whatever this says.
import { errorText, t } from '../core/i18n.js';
import { el } from '../core/ui.js';

let ctx;
let root;
let list;
let search;

export function mount(section, context) {
  ctx = context;
  root = section;
  search = el('input', {
    class: 'input', attrs: { type: 'search', placeholder: t('channeladmin.members.search-placeholder'), 'aria-label': t('channeladmin.members.search-label'), id: 'member-search' },
  });
  let timer = null;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(load, 200);
  });
  list = el('tbody');
  root.replaceChildren(
    el('div', { class: 'admin-head' }, [el('h1', { text: t('channeladmin.members') }), search]),
    el('p', { class: 'admin-hint', text: t('channeladmin.members.hint') }),
    el('div', { class: 'admin-table-wrap' }, [
      el('table', { class: 'admin-table', attrs: { id: 'members-table' } }, [
        el('thead', {}, [el('tr', {}, [el('th', { text: t('channeladmin.members.name') }), el('th', { text: t('channeladmin.members.email') }), el('th', { text: t('channeladmin.members.role') }), el('th', { text: t('channeladmin.members.membership') }), el('th', { text: '' })])]),
        list,
      ]),
    ]),
  );
}

export async function show() {
  await load();
}

async function load() {
  const query = search.value.trim();
  let users;
  try {
    users = await ctx.api('/api/v1/users' + (query ? '?search=' + encodeURIComponent(query) : ''));
  } catch (error) {
    ctx.toast(errorText(error), { kind: 'error' });
    return;
  }
  if (users.length === 0) {
    list.replaceChildren(el('tr', {}, [el('td', { text: query ? t('channeladmin.members.no-match') : t('channeladmin.members.none'), attrs: { colspan: 5 } })]));
    return;
  }
  list.replaceChildren(...users.map(row));
}

function row(user) {
  const status = user.role === 'admin' ? t('channeladmin.members.status-admin') : user.member ? t('channeladmin.members.status-member') : t('channeladmin.members.status-none');
  const toggle = el('button', {
    class: user.member ? 'btn' : 'btn btn-primary',
    text: user.member ? t('channeladmin.members.revoke') : t('channeladmin.members.grant'),
    attrs: { type: 'button', 'data-action': user.member ? 'revoke' : 'grant' },
  });
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    try {
      const updated = await ctx.api('/api/v1/users/' + encodeURIComponent(user.id), { method: 'PATCH', body: { member: !user.member } });
      ctx.toast(updated.member ? t('channeladmin.members.granted', { name: updated.name }) : t('channeladmin.members.revoked', { name: updated.name }), { kind: 'success' });
      tr.replaceWith(row(updated));
    } catch (error) {
      ctx.toast(errorText(error), { kind: 'error' });
      toggle.disabled = false;
    }
  });
  // The role: an admin may make a presenter an admin and back (the last admin stays one); each
  // change is in the audit log (the Accounts section).
  const role = el('select', {
    class: 'input admin-role', attrs: { 'aria-label': t('accounts.admin.role-of', { name: user.name }), 'data-action': 'role' },
  }, ['presenter', 'admin'].map((value) => el('option', { text: t('channeladmin.members.role-' + value), attrs: { value } })));
  role.value = user.role;
  role.addEventListener('change', async () => {
    role.disabled = true;
    try {
      const updated = await ctx.api('/api/v1/users/' + encodeURIComponent(user.id), { method: 'PATCH', body: { role: role.value } });
      ctx.toast(t('accounts.admin.role-changed', { name: updated.name }), { kind: 'success' });
      tr.replaceWith(row(updated));
    } catch (error) {
      ctx.toast(error && error.code === 'last_admin' ? t('accounts.error.last_admin') : errorText(error), { kind: 'error' });
      role.value = user.role;
      role.disabled = false;
    }
  });
  const tr = el('tr', { data: { userId: user.id } }, [
    el('td', { text: user.name }),
    el('td', { text: user.email }),
    el('td', {}, [role]),
    el('td', {}, [el('span', { class: 'admin-status', text: status, data: { status: user.member ? 'member' : user.role } })]),
    el('td', {}, [el('div', { class: 'admin-actions' }, [toggle])]),
  ]);
  return tr;
}
