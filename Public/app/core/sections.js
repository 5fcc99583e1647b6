// A page of sections routed by the hash (#<section>/<rest>): each section is a module loaded on
// its first visit, mounted once (mount(element, context)) and shown on every hash change
// (show(rest)). The channel's page and its admin are two such pages.
import { el } from './ui.js';

/**
 * Returns the page's route(): shows the section the hash names (the first of `names` by
 * default), marks its link current and hands the module the rest of the route. A module that
 * cannot be loaded leaves `failureText` in its section instead of breaking the page.
 */
export function sectionRouter({ names, element, sectionSelector, linkSelector, load, context, failureText, failureClass }) {
  const mounted = new Map();

  async function moduleFor(name) {
    if (mounted.has(name)) return mounted.get(name);
    const section = element(name);
    let module;
    try {
      module = await load(name);
      await module.mount(section, context);
    } catch (error) {
      console.error(error);
      section.replaceChildren(el('p', { class: failureClass, text: failureText }));
      module = { show() {} };
    }
    mounted.set(name, module);
    return module;
  }

  return async function route() {
    const parts = decodeURIComponent(location.hash.replace(/^#/, '')).split('/').filter(Boolean);
    const name = names.includes(parts[0]) ? parts[0] : names[0];
    for (const section of document.querySelectorAll(sectionSelector)) section.hidden = section.dataset.section !== name;
    for (const link of document.querySelectorAll(linkSelector)) {
      if (link.dataset.section === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    const module = await moduleFor(name);
    await module.show(parts.slice(1));
  };
}
