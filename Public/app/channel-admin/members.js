// Members: every account, searchable, with membership granted or revoked by one click.
// A member meets none of the channel's limits; admins see everything whatever this says.
import { el } from '../ui.js';

let ctx;
let root;
let list;
let search;

export function mount(section, context) {
  ctx = context;
  root = section;
  search = el('input', {
    class: 'input', attrs: { type: 'search', placeholder: 'Search by name or email', 'aria-label': 'Search accounts', id: 'member-search' },
  });
  let timer = null;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(load, 200);
  });
  list = el('tbody');
  root.replaceChildren(
    el('div', { class: 'admin-head' }, [el('h1', { text: 'Members' }), search]),
    el('p', { class: 'admin-hint', text: 'Members see every video, listen to the radio without a daily limit, take every quiz and get directions to places.' }),
    el('div', { class: 'admin-table-wrap' }, [
      el('table', { class: 'admin-table', attrs: { id: 'members-table' } }, [
        el('thead', {}, [el('tr', {}, [el('th', { text: 'Name' }), el('th', { text: 'Email' }), el('th', { text: 'Role' }), el('th', { text: 'Membership' }), el('th', { text: '' })])]),
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
    ctx.toast(error.message, { kind: 'error' });
    return;
  }
  if (users.length === 0) {
    list.replaceChildren(el('tr', {}, [el('td', { text: query ? 'No account matches.' : 'No accounts yet.', attrs: { colspan: 5 } })]));
    return;
  }
  list.replaceChildren(...users.map(row));
}

function row(user) {
  const status = user.role === 'admin' ? 'admin' : user.member ? 'member' : 'not a member';
  const toggle = el('button', {
    class: user.member ? 'btn' : 'btn btn-primary',
    text: user.member ? 'Revoke membership' : 'Make member',
    attrs: { type: 'button', 'data-action': user.member ? 'revoke' : 'grant' },
  });
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    try {
      const updated = await ctx.api('/api/v1/users/' + encodeURIComponent(user.id), { method: 'PATCH', body: { member: !user.member } });
      ctx.toast(updated.member ? updated.name + ' is a member.' : updated.name + ' is no longer a member.', { kind: 'success' });
      tr.replaceWith(row(updated));
    } catch (error) {
      ctx.toast(error.message, { kind: 'error' });
      toggle.disabled = false;
    }
  });
  const tr = el('tr', { data: { userId: user.id } }, [
    el('td', { text: user.name }),
    el('td', { text: user.email }),
    el('td', { text: user.role }),
    el('td', {}, [el('span', { class: 'admin-status', text: status, data: { status: user.member ? 'member' : user.role } })]),
    el('td', {}, [el('div', { class: 'admin-actions' }, [toggle])]),
  ]);
  return tr;
}
