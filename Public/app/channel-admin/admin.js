// The channel's admin (the CMS of seed 004): a menu of sections, each a module filling its
// section (mount once, show on every hash change: #videos, #videos/archived, #members...).
import { api, currentUser, goToLogin } from '../api.js';
import { errorText, t } from '../i18n.js';
import { sectionRouter } from '../sections.js';
import { el, hydrateIcons, toast } from '../ui.js';

const SECTIONS = ['videos', 'categories', 'radio', 'places', 'quizzes', 'members'];

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
  hydrateIcons();
  const user = await currentUser().catch((error) => {
    toast(errorText(error), { kind: 'error' });
    return null;
  });
  if (!user) return goToLogin();
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

start();
