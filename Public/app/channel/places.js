// The channel's places: a searchable list (nearest first when the browser may tell where it is)
// and a map (Leaflet on the server's offline basemap): tabs on a phone, side by side on a laptop.
// A place's page has its address, phone, website, opening hours, a Directions button (members:
// the device's maps app and OpenStreetMap; others: the membership message) and a share button.
import { api } from '../core/api.js';
import { errorText, formatNumber, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { createMap, fitTo } from './places-map.js';
import { useStylesheet } from './stylesheet.js';

let ctx = null;
let root = null;
const state = { places: [], categories: [], category: null, search: '', origin: null, view: 'list', map: null };
const parts = {};
let searchTimer = 0;
let listLoad = 0;

export async function mount(section, context) {
  await useStylesheet('/app/channel/places.css');
  ctx = context;
  root = section;
  root.classList.add('places');
  parts.venue = el('img', { class: 'places-venue', attrs: { alt: '', hidden: true } });
  parts.search = el('input', {
    class: 'input places-search',
    attrs: { type: 'search', placeholder: t('channel.places.search'), 'aria-label': t('channel.places.search'), maxlength: 200 },
    on: { input: onSearch },
  });
  parts.near = el('button', {
    class: 'btn places-near',
    text: t('channel.places.nearest'),
    attrs: { type: 'button', 'aria-pressed': 'false', title: t('channel.places.nearest-title') },
    on: { click: toggleNear },
  });
  parts.chips = el('div', { class: 'places-chips', attrs: { role: 'group', 'aria-label': t('channel.videos.categories') } });
  parts.status = el('p', { class: 'places-status', attrs: { role: 'status' } });
  parts.tabList = tabButton('list', t('channel.places.list'));
  parts.tabMap = tabButton('map', t('channel.places.map'));
  parts.tabs = el('div', { class: 'places-tabs', attrs: { role: 'tablist', 'aria-label': t('channel.places.show') } }, [parts.tabList, parts.tabMap]);
  parts.list = el('ul', { class: 'places-list', attrs: { id: 'places-list', 'aria-label': t('channel.tab.places') } });
  parts.listPanel = el('div', { class: 'places-panel places-list-panel', attrs: { role: 'tabpanel', 'aria-label': t('channel.places.list') } }, [parts.list]);
  parts.mapBox = el('div', { class: 'places-map', attrs: { id: 'places-map' } });
  parts.mapNote = el('p', { class: 'places-map-note', attrs: { hidden: true } });
  parts.mapPanel = el('div', { class: 'places-panel places-map-panel', attrs: { role: 'tabpanel', 'aria-label': t('channel.places.map') } }, [
    parts.mapNote,
    parts.mapBox,
  ]);
  parts.browse = el('div', { class: 'places-browse' }, [
    parts.venue,
    el('div', { class: 'places-toolbar' }, [parts.search, parts.near]),
    parts.chips,
    parts.status,
    parts.tabs,
    el('div', { class: 'places-split' }, [parts.listPanel, parts.mapPanel]),
  ]);
  parts.detail = el('article', { class: 'place-detail', attrs: { hidden: true, 'aria-live': 'polite' } });
  root.append(parts.browse, parts.detail);
  setView('list');
  start();
}

export function show(route) {
  const id = route && route[0];
  if (id) {
    parts.browse.hidden = true;
    parts.detail.hidden = false;
    showDetail(id);
  } else {
    parts.detail.hidden = true;
    parts.browse.hidden = false;
    refit();
  }
}

async function start() {
  try {
    const [info, categories] = await Promise.all([api('/api/v1/channel/map'), api('/api/v1/channel/pois/categories')]);
    state.categories = categories;
    renderChips();
    if (info.venueImageUrl) {
      parts.venue.src = info.venueImageUrl;
      parts.venue.hidden = false;
    }
    const made = await createMap(parts.mapBox, info.basemap, { note: showMapNote });
    if (made) state.map = { ...made, markers: made.L.layerGroup().addTo(made.map) };
  } catch (error) {
    parts.status.textContent = errorText(error);
  }
  await loadList();
}

function showMapNote(text) {
  parts.mapNote.textContent = text;
  parts.mapNote.hidden = false;
}

function tabButton(view, label) {
  return el('button', {
    class: 'places-tab',
    text: label,
    attrs: { type: 'button', role: 'tab', 'aria-selected': 'false', 'data-view': view },
    on: { click: () => setView(view) },
  });
}

/** On a phone one panel at a time; a laptop shows both (CSS) and ignores this. */
function setView(view) {
  state.view = view;
  root.dataset.view = view;
  parts.tabList.setAttribute('aria-selected', String(view === 'list'));
  parts.tabMap.setAttribute('aria-selected', String(view === 'map'));
  if (view === 'map' && state.map) requestAnimationFrame(() => refit());
}

/** A map laid out while hidden has no size: it is fitted to the places once it can be seen. */
function refit() {
  if (!state.map) return;
  const { L, map } = state.map;
  map.invalidateSize();
  if (state.fitPoints && map.getSize().x > 0) {
    fitTo(L, map, state.fitPoints);
    state.fitPoints = null;
  }
}

function renderChips() {
  const chip = (id, name) =>
    el('button', {
      class: 'chip',
      text: name,
      attrs: { type: 'button', 'aria-pressed': String(state.category === id), 'data-category': id || '' },
      on: {
        click: () => {
          state.category = id;
          renderChips();
          loadList();
        },
      },
    });
  parts.chips.replaceChildren(chip(null, t('channel.videos.chip-all')), ...state.categories.map((c) => chip(c.id, c.name)));
  parts.chips.hidden = state.categories.length === 0;
}

function onSearch() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    state.search = parts.search.value.trim();
    loadList();
  }, 250);
}

function toggleNear() {
  if (state.origin) {
    state.origin = null;
    parts.near.setAttribute('aria-pressed', 'false');
    loadList();
    return;
  }
  if (!navigator.geolocation) {
    parts.status.textContent = t('channel.places.no-geolocation');
    return;
  }
  parts.status.textContent = t('channel.places.locating');
  navigator.geolocation.getCurrentPosition(
    (position) => {
      state.origin = { lat: position.coords.latitude, lon: position.coords.longitude };
      parts.near.setAttribute('aria-pressed', 'true');
      loadList();
    },
    () => {
      parts.status.textContent = t('channel.places.location-denied');
    },
    { enableHighAccuracy: false, timeout: 15000, maximumAge: 300000 },
  );
}

function query() {
  const params = new URLSearchParams();
  if (state.search) params.set('search', state.search);
  if (state.category) params.set('category', state.category);
  if (state.origin) params.set('near', state.origin.lat.toFixed(6) + ',' + state.origin.lon.toFixed(6));
  params.set('limit', '100');
  return params.toString();
}

async function loadList() {
  const load = ++listLoad;
  try {
    const places = await api('/api/v1/channel/pois?' + query());
    if (load !== listLoad) return; // a newer search answered first
    state.places = places;
    renderList();
    renderMarkers();
    parts.status.textContent = places.length === 0 ? (state.search ? t('channel.places.no-match') : t('channel.places.none')) : '';
  } catch (error) {
    if (load === listLoad) parts.status.textContent = errorText(error);
  }
}

export function formatDistance(meters) {
  if (meters == null) return '';
  if (meters < 1000) return t('channel.places.meters', { distance: formatNumber(Math.round(meters)) });
  if (meters < 100000) return t('channel.places.kilometers', { distance: formatNumber(meters / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
  return t('channel.places.kilometers', { distance: formatNumber(Math.round(meters / 1000)) });
}

function categoryName(id) {
  const category = state.categories.find((c) => c.id === id);
  return category ? category.name : '';
}

function renderList() {
  parts.list.replaceChildren(...[
    ...state.places.map((place) => {
      const meta = [categoryName(place.categoryId), place.address].filter(Boolean).join(' · ');
      return el('li', { class: 'place-item', data: { id: place.id } }, [
        el('a', { class: 'place-link', attrs: { href: '#places/' + place.id } }, [
          el('span', { class: 'place-name', text: place.name }),
          meta ? el('span', { class: 'place-meta', text: meta }) : null,
          place.distanceMeters != null ? el('span', { class: 'place-distance', text: formatDistance(place.distanceMeters) }) : null,
        ]),
      ]);
    }),
  ].filter(Boolean));
}

function renderMarkers() {
  if (!state.map) return;
  const { L, map, markers } = state.map;
  markers.clearLayers();
  const points = [];
  for (const place of state.places) {
    const point = [place.latitude, place.longitude];
    points.push(point);
    const popup = el('div', { class: 'place-popup' }, [
      el('strong', { text: place.name }),
      el('a', { class: 'btn btn-small', text: t('channel.places.details'), attrs: { href: '#places/' + place.id } }),
    ]);
    L.marker(point, { title: place.name, alt: place.name, keyboard: true }).bindPopup(popup).addTo(markers);
  }
  if (state.origin) points.push([state.origin.lat, state.origin.lon]);
  state.fitPoints = points;
  refit();
}

async function showDetail(id) {
  parts.detail.replaceChildren(el('p', { class: 'places-status', text: t('channel.loading') }));
  let place;
  try {
    const near = state.origin ? '?near=' + state.origin.lat.toFixed(6) + ',' + state.origin.lon.toFixed(6) : '';
    place = await api('/api/v1/channel/pois/' + encodeURIComponent(id) + near);
  } catch (error) {
    parts.detail.replaceChildren(backButton(), el('p', { class: 'places-status', text: errorText(error) }));
    return;
  }
  const rows = [];
  const row = (label, value) => rows.push(el('dt', { text: label }), el('dd', {}, [value]));
  if (place.address) row(t('channel.places.address'), el('span', { class: 'place-address', text: place.address }));
  if (place.openingHours) row(t('channel.places.hours'), el('span', { class: 'place-hours', text: place.openingHours }));
  if (place.phone) row(t('channel.places.phone'), el('a', { text: place.phone, attrs: { href: 'tel:' + place.phone.replace(/[^+0-9]/g, '') } }));
  if (place.website) {
    row(t('channel.places.website'), el('a', { text: place.website.replace(/^https?:\/\//, ''), attrs: { href: place.website, rel: 'noopener', target: '_blank' } }));
  }
  if (place.distanceMeters != null) row(t('channel.places.distance'), el('span', { text: formatDistance(place.distanceMeters) }));
  const directions = el('div', { class: 'place-directions' });
  const actions = el('div', { class: 'place-actions' }, [
    el('button', { class: 'btn btn-primary place-directions-button', attrs: { type: 'button' }, on: { click: () => openDirections(place, directions) } }, [
      icon('pass', 18),
      el('span', { text: t('channel.places.directions') }),
    ]),
    el('button', {
      class: 'btn place-share',
      attrs: { type: 'button' },
      on: { click: () => ctx.share({ title: place.name, text: place.address || place.name, url: '/c/place/' + encodeURIComponent(place.id) }) },
    }, [icon('share', 18), el('span', { text: t('channel.share') })]),
  ]);
  parts.detail.replaceChildren(...[
    backButton(),
    place.imageUrl ? el('img', { class: 'place-image', attrs: { src: place.imageUrl, alt: '' } }) : null,
    el('h2', { class: 'place-title', text: place.name }),
    categoryName(place.categoryId) ? el('p', { class: 'place-category', text: categoryName(place.categoryId) }) : null,
    place.description ? el('p', { class: 'place-description', text: place.description }) : null,
    el('dl', { class: 'place-facts' }, rows),
    actions,
    directions,
  ].filter(Boolean));
}

function backButton() {
  return el('a', { class: 'btn btn-ghost place-back', attrs: { href: '#places' } }, [el('span', { class: 'flip-inline', text: '←', attrs: { 'aria-hidden': 'true' } }), el('span', { text: t('channel.places.all') })]);
}

/** Members have the links in the place already; others ask, and are told how to become one. */
async function openDirections(place, container) {
  if (place.directions) {
    container.replaceChildren(...[
      el('a', { class: 'btn place-geo', text: t('channel.places.open-maps'), attrs: { href: place.directions.geo } }),
      el('a', { class: 'btn place-osm', text: 'OpenStreetMap', attrs: { href: place.directions.osm, rel: 'noopener', target: '_blank' } }),
    ].filter(Boolean));
    return;
  }
  try {
    place.directions = await api('/api/v1/channel/pois/' + encodeURIComponent(place.id) + '/directions');
    openDirections(place, container);
  } catch (error) {
    if (error.code === 'membership_required') ctx.showLimit(error, container);
    else container.replaceChildren(el('p', { class: 'places-status', text: errorText(error) }));
  }
}
