// The audience's language: message catalogues, plural rules, and numbers and dates by Intl.
//
// Every string a page shows comes from a catalogue: `Public/locales/<language>/<area>.json`, a
// flat object of keys (`area.thing`) to messages. A message may hold `{name}` placeholders, and
// a message that depends on a count is an object of CLDR plural categories
// (`{"one": "{count} vote", "other": "{count} votes"}`), chosen by `Intl.PluralRules`.
//
// A page names the areas it needs on its root element (`<html data-i18n-areas="live polls">`;
// `common` is always loaded). This module loads them with a top-level await, so every module that
// imports it runs with its catalogues ready and can call `t()` at once. Static HTML carries
// `data-i18n="key"` (text) and `data-i18n-attr="placeholder=key;aria-label=key"` (attributes);
// they are filled when the catalogues arrive, and by `translate(root)` for markup made later.
//
// The language is, in order: `?lang=` in the address, the one chosen with the switcher (kept in
// localStorage), the browser's languages, English. `qps` is a pseudo-language for tests: English
// with every message wrapped in ⟦ ⟧, so a test can find text that no catalogue provided.

/** The languages with complete catalogues, in the switcher's order, by their own names. */
export const LANGUAGES = Object.freeze([
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'fr', name: 'Français' },
  { code: 'es', name: 'Español' },
  { code: 'cs', name: 'Čeština' },
  { code: 'zh-Hans', name: '简体中文' },
  { code: 'ar', name: 'العربية' },
]);

const SOURCE = 'en';
const PSEUDO = 'qps';
const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur']);
const STORAGE_KEY = 'podium.language';

/**
 * The supported language that best matches the choices, in order of preference: an exact tag,
 * then the same language with another region or script (`de-AT` → `de`, `zh-CN` → `zh-Hans`).
 */
export function chooseLanguage(preferences, supported = LANGUAGES.map((language) => language.code)) {
  for (const preference of preferences) {
    if (!preference) continue;
    if (preference === PSEUDO) return PSEUDO;
    const wanted = preference.toLowerCase();
    const exact = supported.find((code) => code.toLowerCase() === wanted);
    if (exact) return exact;
    const base = wanted.split('-')[0];
    // Chinese in Taiwan, Hong Kong or Macao, or written in traditional script, is not Simplified.
    if (base === 'zh' && /-(hant|tw|hk|mo)\b/.test(wanted)) continue;
    const sameLanguage = supported.find((code) => code.toLowerCase().split('-')[0] === base);
    if (sameLanguage) return sameLanguage;
  }
  return SOURCE;
}

function storedLanguage() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch (_) {
    return null; // storage blocked: follow the browser
  }
}

function requestedLanguage() {
  try {
    return new URL(location.href).searchParams.get('lang');
  } catch (_) {
    return null;
  }
}

/** The page's language, as a BCP 47 tag (`qps` in the pseudo-language). */
export const language = chooseLanguage([requestedLanguage(), storedLanguage(), ...(navigator.languages || [navigator.language])]);
/** The language whose rules format numbers, dates and plurals (English's for the pseudo-language). */
const formattingLanguage = language === PSEUDO ? SOURCE : language;
export const direction = RIGHT_TO_LEFT.has(formattingLanguage.split('-')[0]) ? 'rtl' : 'ltr';

const pluralRules = new Intl.PluralRules(formattingLanguage);
const numberFormats = new Map();
const messages = new Map(); // key -> message in the page's language
const fallback = new Map(); // key -> English message, for a key a catalogue lacks
const reportedMissing = new Set();

async function fetchCatalogue(code, area) {
  const response = await fetch(`/locales/${code}/${area}.json`, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`no ${code} catalogue for ${area} (${response.status})`);
  return response.json();
}

function wrapPseudo(message) {
  if (typeof message === 'string') return `⟦${message}⟧`;
  return Object.fromEntries(Object.entries(message).map(([category, text]) => [category, `⟦${text}⟧`]));
}

/** Each area's load, done or under way: a second caller waits for the same one. */
const areaLoads = new Map();

/** Fetches `areas` (not loaded or loading yet) and keeps them; resolves once all of them are in. */
function fetchAreas(areas) {
  const fresh = areas.filter((area) => !areaLoads.has(area));
  if (fresh.length) {
    const load = fetchCatalogues(fresh);
    fresh.forEach((area) => areaLoads.set(area, load));
  }
  return Promise.all(areas.map((area) => areaLoads.get(area)));
}

/** Fetches `areas` in English and, unless English, in the page's language. */
async function fetchCatalogues(areas) {
  const wanted = language === SOURCE || language === PSEUDO ? [] : [language];
  const loads = areas.flatMap((area) => [SOURCE, ...wanted].map((code) => fetchCatalogue(code, area).then((catalogue) => ({ code, catalogue }))));
  for (const result of await Promise.allSettled(loads)) {
    if (result.status === 'rejected') {
      console.warn('i18n:', result.reason.message);
      continue;
    }
    const { code, catalogue } = result.value;
    for (const [key, message] of Object.entries(catalogue)) {
      if (code === SOURCE) {
        fallback.set(key, message);
        if (language === PSEUDO) messages.set(key, wrapPseudo(message));
      } else {
        messages.set(key, message);
      }
    }
  }
}

/** Loads `common` and the page's areas. */
function loadCatalogues() {
  const declared = (document.documentElement.dataset.i18nAreas || '').split(/\s+/).filter(Boolean);
  return fetchAreas(['common', ...declared.filter((area) => area !== 'common')]);
}

/**
 * Loads more areas after the page's own, for a module that runs on a page of another area (the
 * library's "Open a room" dialog and storyboard cards use the `rooms` and `storyboard` areas):
 * their messages join the page's. An area is fetched once; a caller while it loads waits for it.
 */
export function loadAreas(...areas) {
  return fetchAreas(areas);
}

/** Formats a number in the page's language (`options` as for `Intl.NumberFormat`). */
export function formatNumber(value, options = {}) {
  const id = JSON.stringify(options);
  let format = numberFormats.get(id);
  if (!format) {
    format = new Intl.NumberFormat(formattingLanguage, options);
    numberFormats.set(id, format);
  }
  return format.format(value);
}

/** Formats a date or time in the page's language (`options` as for `Intl.DateTimeFormat`). */
export function formatDate(value, options = { dateStyle: 'medium', timeStyle: 'short' }) {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return new Intl.DateTimeFormat(formattingLanguage, options).format(date);
}

/** "3 minutes ago", "in 2 days": `seconds` from now (negative is past), in the largest whole unit. */
export function formatRelativeTime(seconds, options = { numeric: 'auto' }) {
  const format = new Intl.RelativeTimeFormat(formattingLanguage, options);
  const units = [
    ['year', 365 * 24 * 3600],
    ['month', 30 * 24 * 3600],
    ['week', 7 * 24 * 3600],
    ['day', 24 * 3600],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(Math.round(seconds), 'second');
}

/** "A, B and C" in the page's language. */
export function formatList(items, options = { style: 'long', type: 'conjunction' }) {
  return new Intl.ListFormat(formattingLanguage, options).format(items.map(String));
}

function lookup(key) {
  if (messages.has(key)) return messages.get(key);
  if (fallback.has(key)) {
    if (language !== SOURCE && !reportedMissing.has(key)) {
      reportedMissing.add(key);
      console.warn(`i18n: "${key}" has no ${language} message; English shown`);
    }
    return fallback.get(key);
  }
  if (!reportedMissing.has(key)) {
    reportedMissing.add(key);
    console.error(`i18n: no message "${key}" in any loaded catalogue`);
  }
  return null;
}

/**
 * The message `key` in the page's language, its `{placeholders}` filled from `params` (numbers
 * formatted for the language). A plural message picks its form by `params.count`. A key no
 * catalogue has shows as the key itself, so it is seen and fixed, never blank.
 */
export function t(key, params = {}) {
  let message = lookup(key);
  if (message === null) return key;
  if (typeof message === 'object') {
    const count = Number(params.count ?? 0);
    message = message[pluralRules.select(count)] ?? message.other ?? '';
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === 'number' ? formatNumber(value) : String(value);
  });
}

/** Whether some loaded catalogue has `key` (for optional messages, such as one per error code). */
export function has(key) {
  return messages.has(key) || fallback.has(key);
}

/**
 * What to tell a person about a failed request: the catalogue's message for the server's error
 * code (`errors.<code>`), else the server's own message, else a general one.
 */
export function errorText(error) {
  const code = error && error.code;
  if (code && has(`errors.${code}`)) return t(`errors.${code}`, (error && error.detail) || {});
  if (error && error.message) return error.message;
  return t('errors.unknown');
}

/**
 * Fills `data-i18n` (text) and `data-i18n-attr` ("attribute=key;attribute=key") under `root`,
 * and `root` itself. `data-i18n-params` holds JSON placeholders for either.
 */
export function translate(root = document) {
  const elements = root.querySelectorAll ? [...root.querySelectorAll('[data-i18n], [data-i18n-attr]')] : [];
  if (root instanceof Element && (root.hasAttribute('data-i18n') || root.hasAttribute('data-i18n-attr'))) elements.unshift(root);
  for (const element of elements) {
    let params = {};
    if (element.dataset.i18nParams) {
      try {
        params = JSON.parse(element.dataset.i18nParams);
      } catch (_) {
        console.error('i18n: bad data-i18n-params on', element);
      }
    }
    if (element.dataset.i18n) element.textContent = t(element.dataset.i18n, params);
    if (element.dataset.i18nAttr) {
      for (const pair of element.dataset.i18nAttr.split(';')) {
        const [attribute, key] = pair.split('=').map((part) => part.trim());
        if (attribute && key) element.setAttribute(attribute, t(key, params));
      }
    }
  }
}

/** Remembers the person's choice and reloads the page in that language. */
export function switchLanguage(code) {
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch (_) {
    // storage blocked: the address carries the choice instead
  }
  const url = new URL(location.href);
  if (url.searchParams.has('lang')) url.searchParams.set('lang', code);
  location.replace(url.toString());
}

/**
 * A `<select>` of the languages, each named in itself, set to the page's; choosing one switches.
 * Pages put it where `[data-language-switcher]` is (filled on load) or call this themselves.
 */
export function languageSwitcher() {
  const select = document.createElement('select');
  select.className = 'language-switcher';
  select.setAttribute('aria-label', t('common.language'));
  for (const { code, name } of LANGUAGES) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = name;
    option.selected = code === language;
    select.append(option);
  }
  select.addEventListener('change', () => switchLanguage(select.value));
  return select;
}

// A page slow to get its words is shown in English after a second (styles.css), but its controls
// get their listeners only from the modules that import this one, which run once the catalogues
// are in. Until then a click on a button did nothing, and a form submitted itself to its own
// address (a sign-in's password in the URL). Such a click or submit is held, the last one only,
// and replayed once the page's modules have run.
const HELD_CONTROLS = 'button, [role="button"], summary, input:is([type="submit"], [type="button"], [type="checkbox"], [type="radio"], [type="file"])';
let heldAction = null;
function holdAction(event) {
  if (!document.documentElement.classList.contains('i18n-pending')) return;
  const control = event.type === 'submit' ? event.target : event.target.closest?.(HELD_CONTROLS);
  if (!control) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  heldAction = event.type === 'submit' ? () => control.requestSubmit(event.submitter ?? undefined) : () => control.click();
}
document.addEventListener('click', holdAction, true);
document.addEventListener('submit', holdAction, true);

await loadCatalogues();
// The importing modules run right after this one, in the same job; a task later they have.
setTimeout(() => {
  document.removeEventListener('click', holdAction, true);
  document.removeEventListener('submit', holdAction, true);
  const replay = heldAction;
  heldAction = null;
  if (replay) replay();
});
document.documentElement.lang = formattingLanguage;
document.documentElement.dir = direction;
translate(document);
for (const slot of document.querySelectorAll('[data-language-switcher]')) slot.replaceChildren(languageSwitcher());
// Pages hide their text until it is in the right language (styles.css), so no English flashes first.
document.documentElement.classList.remove('i18n-pending');
