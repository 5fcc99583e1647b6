// The channel's admin (the CMS of seed 004): a menu of sections, each a module filling its
// section (mount once, show on every hash change: #videos, #videos/archived, #members...).
import { api, goToLogin } from '../core/api.js';
import { startPage, signedInUser } from '../core/page.js';
import { errorText, t } from '../core/i18n.js';
import { sectionRouter } from '../core/sections.js';
import { el, toast } from '../core/ui.js';

const SECTIONS = ['videos', 'categories', 'radio', 'places', 'quizzes', 'accounts', 'members', 'lti'];

const context = {
  api,
  navigate(hash) { location.hash = hash; },
  toast(message, options) { toast(message, options); },
};

const route = sectionRouter({
  names: SECTIONS,
  element: (name) => document.getElementById('admin-' + name),
  sectionSelector: '.admin-section',
  linkSelector: '.admin-menu-item',
  load: (name) => import('./' + name + '.js'),
  context,
  failureText: t('channeladmin.section-failed'),
  failureClass: 'admin-empty',
});

async function start() {
  const user = await signedInUser((error) => {
    toast(errorText(error), { kind: 'error' });
    goToLogin();
  });
  if (!user) return;
  if (user.role !== 'admin') {
    document.getElementById('admin-main').replaceChildren(
      el('p', { class: 'admin-empty', text: t('channeladmin.admins-only') }));
    document.body.dataset.ready = 'true';
    return;
  }
  document.getElementById('admin-user').textContent = user.name;
  window.addEventListener('hashchange', route);
  await route();
  document.body.dataset.ready = 'true';
}

startPage(start);
