// The channel's admin (the CMS of seed 004): a menu of sections, each a module filling its
// section (mount once, show on every hash change: #videos, #videos/archived, #members...).
import { api, currentUser, goToLogin } from '../api.js';
import { el, hydrateIcons, toast } from '../ui.js';

const SECTIONS = ['videos', 'categories', 'radio', 'places', 'quizzes', 'members'];
const mounted = new Map();

const context = {
  api,
  navigate(hash) { location.hash = hash; },
  toast(message, options) { toast(message, options); },
};

async function moduleFor(name) {
  if (mounted.has(name)) return mounted.get(name);
  const section = document.getElementById('admin-' + name);
  let module;
  try {
    module = await import('./' + name + '.js');
    await module.mount(section, context);
  } catch (error) {
    console.error(error);
    section.replaceChildren(el('p', { class: 'admin-empty', text: 'This section could not be loaded.' }));
    module = { show() {} };
  }
  mounted.set(name, module);
  return module;
}

async function route() {
  const parts = decodeURIComponent(location.hash.replace(/^#/, '')).split('/').filter(Boolean);
  const name = SECTIONS.includes(parts[0]) ? parts[0] : 'videos';
  for (const section of document.querySelectorAll('.admin-section')) section.hidden = section.dataset.section !== name;
  for (const item of document.querySelectorAll('.admin-menu-item')) {
    if (item.dataset.section === name) item.setAttribute('aria-current', 'page');
    else item.removeAttribute('aria-current');
  }
  const module = await moduleFor(name);
  await module.show(parts.slice(1));
}

async function start() {
  hydrateIcons();
  const user = await currentUser().catch((error) => {
    toast(error.message, { kind: 'error' });
    return null;
  });
  if (!user) return goToLogin();
  if (user.role !== 'admin') {
    document.getElementById('admin-main').replaceChildren(
      el('p', { class: 'admin-empty', text: 'Only an admin manages the channel.' }));
    document.body.dataset.ready = 'true';
    return;
  }
  document.getElementById('admin-user').textContent = user.name;
  window.addEventListener('hashchange', route);
  await route();
  document.body.dataset.ready = 'true';
}

start();
