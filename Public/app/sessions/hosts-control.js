// The presenter console's co-hosts card in the join panel: who runs this session (its presenter
// and every co-host, with how they came), a field to add a co-host by the email of their account
// and a remove button each (the presenter or an admin), or Leave (a co-host). GET, POST and DELETE
// /api/v1/sessions/{code}/hosts (docs/operations.md, "Co-hosts in the console").
//
// State for tests and CSS: .hosts-card[data-can-manage]; #hosts-list > li[data-user-id][data-reason]
// (`presenter`, `invited`, `lti-course`); #cohost-email; [data-action=remove-host];
// [data-action=leave-hosts].

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon, toast, confirmDialog } from '../core/ui.js';

/**
 * Mounts the card into `panel` after `after` for the session `code`, once its hosts are read;
 * someone who is not a host (refused by the server) gets no card. `me` is the signed-in user
 * (GET /api/v1/me), to tell their own row; `onLeft` runs after a co-host leaves.
 */
export async function mountHostsControl({ panel, after, code, me, onLeft }) {
  const base = '/api/v1/sessions/' + encodeURIComponent(code) + '/hosts';
  let hosts;
  try {
    hosts = await api(base);
  } catch {
    return null;
  }
  const list = el('ul', { class: 'hosts-list', attrs: { id: 'hosts-list', 'aria-label': t('live.hosts') } });
  const email = el('input', {
    class: 'input',
    attrs: { id: 'cohost-email', type: 'email', placeholder: t('live.hosts-add-placeholder'), 'aria-label': t('live.hosts-add-label'), autocomplete: 'off' },
  });
  const addButton = el('button', { class: 'btn btn-sm', attrs: { type: 'submit' } }, [icon('plus', 16), t('live.hosts-add')]);
  const form = el('form', { class: 'hosts-add' }, [email, addButton]);
  const hint = el('p', { class: 'field-hint' });
  const card = el('section', { class: 'access-card hosts-card', attrs: { 'aria-label': t('live.hosts') } }, [
    el('div', { class: 'access-row' }, [el('span', { class: 'access-label' }, [icon('users', 16), t('live.hosts')])]),
    list, form, hint,
  ]);

  function label(person) {
    return person.name && person.name !== person.email ? person.name : person.email;
  }

  function row(person, reason) {
    const mine = me && person.id === me.id;
    const who = el('span', { class: 'hosts-name', attrs: { title: person.email }, text: label(person) + (mine ? ' ' + t('live.hosts-you') : '') });
    const tag = el('span', { class: 'hosts-tag', text: t('live.hosts-reason-' + reason) });
    const children = [el('span', { class: 'hosts-who' }, [who, tag])];
    if (reason !== 'presenter') {
      if (mine && !hosts.canManage) {
        const leave = el('button', { class: 'btn btn-sm btn-ghost', attrs: { type: 'button', 'data-action': 'leave-hosts' } }, [t('live.hosts-leave')]);
        leave.addEventListener('click', () => remove(person, true));
        children.push(leave);
      } else if (hosts.canManage && reason !== 'lti-course') {
        const button = el('button', {
          class: 'btn btn-sm btn-ghost btn-icon',
          attrs: { type: 'button', 'data-action': 'remove-host', 'aria-label': t('live.hosts-remove-named', { name: label(person) }), title: t('live.hosts-remove') },
        }, [icon('x', 16)]);
        button.addEventListener('click', () => remove(person, false));
        children.push(button);
      }
    }
    return el('li', { attrs: { 'data-user-id': person.id, 'data-reason': reason } }, children);
  }

  function render() {
    card.dataset.canManage = String(hosts.canManage);
    list.replaceChildren(row(hosts.presenter, 'presenter'), ...hosts.coHosts.map((host) => row(host, host.reason)));
    form.hidden = !hosts.canManage;
    hint.textContent = hosts.coHosts.some((host) => host.reason === 'lti-course') && hosts.canManage
      ? t('live.hosts-hint') + ' ' + t('live.hosts-course-hint')
      : t('live.hosts-hint');
  }

  async function remove(person, leaving) {
    const ok = await confirmDialog(leaving
      ? { title: t('live.hosts-leave-title'), message: t('live.hosts-leave-message'), confirmLabel: t('live.hosts-leave'), danger: true }
      : { title: t('live.hosts-remove-title'), message: t('live.hosts-remove-message', { name: label(person) }), confirmLabel: t('live.hosts-remove'), danger: true });
    if (!ok) return;
    try {
      await api(base + '/' + encodeURIComponent(person.id), { method: 'DELETE' });
      if (leaving) {
        toast(t('live.hosts-left'), { kind: 'success' });
        if (onLeft) onLeft();
        return;
      }
      hosts.coHosts = hosts.coHosts.filter((host) => host.id !== person.id);
      render();
      toast(t('live.hosts-removed', { name: label(person) }), { kind: 'success' });
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const address = email.value.trim();
    if (!address) return;
    addButton.disabled = true;
    try {
      const added = await api(base, { method: 'POST', body: { email: address } });
      email.value = '';
      hosts.coHosts = hosts.coHosts.filter((host) => host.id !== added.id).concat([added]);
      render();
      toast(t('live.hosts-added', { name: label(added) }), { kind: 'success' });
    } catch (error) {
      // The two answers a mistyped or repeated address gets, said with the address.
      const said = { not_found: 'live.hosts-no-account', already_host: 'live.hosts-already' }[error.code];
      toast(said ? t(said, { email: address }) : errorText(error), { kind: 'error' });
    } finally {
      addButton.disabled = false;
    }
  });

  render();
  // Read after the console's tabs may have moved the access card into the Join tab: beside it
  // wherever it is now.
  if (after && after.parentNode) after.after(card);
  else panel.append(card);
  return card;
}
