// The admin's places: a table (reorder by drag or keys, publish, delete = archive, the archive
// with restore and delete for ever), a form whose coordinates are picked by clicking a Leaflet
// map (or typed), with the address typed (no geocoding: it must work offline), categories, a
// picture per place, and the venue's picture shown above the audience's list and map.
import { api } from '../core/api.js';
import { errorText, t } from '../core/i18n.js';
import { el, promptDialog } from '../core/ui.js';
import { createMap } from '../channel/places-map.js';
import { handle, makeReorderable } from './reorder.js';
import { archiveActions } from './archive.js';
import { listPart, rowActions, itemRow, closePane, submitForm, formActions, openPane } from './rows.js';

const state = { status: 'all', places: [], categories: [], mapInfo: null };
const parts = {};

// The places page (rows.js): its section's context (`page.ctx`) and saver (`page.save`) once mounted.
const page = listPart({
  parts, state, load: () => load(),
  cls: 'admin-places', title: t('channeladmin.places'),
  addLabel: t('channeladmin.places.add'), addClass: 'admin-add-place', onAdd: () => edit(null),
  tableClass: 'admin-rows admin-place-rows', onReorder: (ids) => page.save('/api/v1/channel/pois/order', 'POST', { ids }, t('channeladmin.order-saved')),
  formClass: 'admin-place-form', formLabel: t('channeladmin.places.place'),
  more: () => {
    parts.categories = el('ul', { class: 'admin-rows admin-category-rows', attrs: { 'aria-label': t('channeladmin.places.categories-label') } });
    makeReorderable(parts.categories, (ids) => page.save('/api/v1/channel/pois/categories/order', 'POST', { ids }, t('channeladmin.order-saved')));
    parts.venue = el('div', { class: 'admin-venue' });
    return [
      el('div', { class: 'admin-columns' }, [
        el('section', { class: 'admin-card' }, [
          el('div', { class: 'admin-card-head' }, [
            el('h2', { text: t('channeladmin.categories') }),
            el('button', { class: 'btn', text: t('channeladmin.categories.add'), attrs: { type: 'button' }, on: { click: addCategory } }),
          ]),
          parts.categories,
        ]),
        el('section', { class: 'admin-card' }, [el('h2', { text: t('channeladmin.places.venue') }), parts.venue]),
      ]),
    ];
  },
});
export const { mount, show } = page;


async function load() {
  try {
    const [places, categories, archivedCategories, mapInfo] = await Promise.all([
      api('/api/v1/channel/pois?limit=100&status=' + state.status),
      api('/api/v1/channel/pois/categories?status=all'),
      api('/api/v1/channel/pois/categories?status=archived'),
      api('/api/v1/channel/map'),
    ]);
    state.places = places;
    state.categories = categories;
    state.mapInfo = mapInfo;
    renderPlaces();
    renderCategories(categories, archivedCategories);
    renderVenue();
  } catch (error) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: errorText(error) }));
  }
}

function categoryName(id) {
  const category = state.categories.find((c) => c.id === id);
  return category ? category.name : '';
}

function renderPlaces() {
  const archived = state.status === 'archived';
  if (state.places.length === 0) {
    parts.table.replaceChildren(el('li', { class: 'admin-empty', text: archived ? t('channeladmin.archive-empty') : t('channeladmin.places.none') }));
    return;
  }
  parts.table.replaceChildren(...[
    ...state.places.map((place) => {
      const published = Boolean(place.publishedAt);
      const archive = archiveActions('/api/v1/channel/pois/' + encodeURIComponent(place.id), {
        ctx: page.ctx, done: load, archived: t('channeladmin.archived-named', { name: place.name }), confirm: t('channeladmin.places.delete-forever-message', { name: place.name }),
      });
      const actions = rowActions({ archived, archive, published, edit: () => edit(place), publish: (on) => publish(place, on) });
      return itemRow({
        id: place.id, name: place.name, meta: [categoryName(place.categoryId), place.address].filter(Boolean).join(' · '), archived, published, actions,
      });
    }),
  ].filter(Boolean));
}

async function publish(place, published) {
  await page.save('/api/v1/channel/pois/' + encodeURIComponent(place.id), 'PATCH', { published }, published ? t('channeladmin.published-toast') : t('channeladmin.unpublished-toast'));
  load();
}

function field(label, input, hint) {
  return el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), input, hint ? el('span', { class: 'field-hint', text: hint }) : null]);
}

/** The form, for a new place (null) or an existing one. */
async function edit(place) {
  const value = (key) => (place && place[key] != null ? String(place[key]) : '');
  const input = (name, attrs = {}) => el('input', { class: 'input', attrs: { name, value: value(name), ...attrs } });
  const name = input('name', { required: true, maxlength: 200 });
  const category = el('select', { class: 'input', attrs: { name: 'categoryId' } }, [
    el('option', { text: t('channeladmin.places.no-category'), attrs: { value: '' } }),
    ...state.categories.map((c) => el('option', { text: c.name, attrs: { value: c.id, selected: place && place.categoryId === c.id } })),
  ]);
  const description = el('textarea', { class: 'input', text: value('description'), attrs: { name: 'description', rows: 3, maxlength: 5000 } });
  const address = el('textarea', { class: 'input', text: value('address'), attrs: { name: 'address', rows: 2, maxlength: 500 } });
  const phone = input('phone', { type: 'tel', maxlength: 40 });
  const website = input('website', { type: 'url', maxlength: 500, placeholder: 'https://' });
  const hours = el('textarea', { class: 'input', text: value('openingHours'), attrs: { name: 'openingHours', rows: 2, maxlength: 1000 } });
  const latitude = input('latitude', { type: 'number', step: 'any', min: -90, max: 90, required: true });
  const longitude = input('longitude', { type: 'number', step: 'any', min: -180, max: 180, required: true });
  const published = el('input', { attrs: { type: 'checkbox', name: 'published', checked: place ? Boolean(place.publishedAt) : true } });
  const error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
  const mapBox = el('div', { class: 'admin-place-map', attrs: { id: 'admin-place-map' } });
  const mapNote = el('p', { class: 'field-hint admin-map-note' });
  const image = el('input', { attrs: { type: 'file', accept: 'image/jpeg,image/png,image/webp', name: 'image' } });
  const form = el('form', { class: 'admin-form', attrs: { novalidate: true } }, [
    el('h2', { text: place ? t('channeladmin.edit-named', { name: place.name }) : t('channeladmin.places.new') }),
    el('div', { class: 'admin-form-grid' }, [
      el('div', { class: 'admin-form-fields' }, [
        field(t('channeladmin.name'), name),
        field(t('channeladmin.videos.category'), category),
        field(t('channeladmin.description'), description),
        field(t('channel.places.address'), address, t('channeladmin.places.address-hint')),
        field(t('channel.places.phone'), phone),
        field(t('channeladmin.website'), website),
        field(t('channel.places.hours'), hours),
        field(t('channeladmin.places.picture'), image, place && place.imageUrl ? t('channeladmin.places.picture-set') : t('channeladmin.places.picture-hint')),
        el('label', { class: 'admin-check' }, [published, el('span', { text: t('channeladmin.published') })]),
      ]),
      el('div', { class: 'admin-form-location' }, [
        el('div', { class: 'admin-coordinates' }, [field(t('channeladmin.places.latitude'), latitude), field(t('channeladmin.places.longitude'), longitude)]),
        el('p', { class: 'field-hint', text: t('channeladmin.places.map-hint') }),
        mapNote,
        mapBox,
      ]),
    ]),
    error,
    formActions(closeForm),
  ]);
  openPane(parts.form, form);
  parts.form.scrollIntoView({ block: 'start' });
  name.focus();

  const made = await createMap(mapBox, state.mapInfo && state.mapInfo.basemap, { note: (text) => (mapNote.textContent = text) });
  let marker = null;
  const showPoint = () => {
    if (!made) return;
    const lat = Number(latitude.value);
    const lon = Number(longitude.value);
    if (latitude.value === '' || longitude.value === '' || !Number.isFinite(lat) || !Number.isFinite(lon)) return;
    if (!marker) marker = made.L.marker([lat, lon], { draggable: true, title: t('channeladmin.places.the-place') }).addTo(made.map);
    marker.setLatLng([lat, lon]);
    marker.off('dragend').on('dragend', () => setPoint(marker.getLatLng()));
  };
  const setPoint = (latlng) => {
    const wrapped = latlng.wrap();
    latitude.value = wrapped.lat.toFixed(6);
    longitude.value = wrapped.lng.toFixed(6);
    showPoint();
  };
  if (made) {
    // Each click places the pin and brings the map closer, so the point can be refined.
    made.map.on('click', (event) => {
      setPoint(event.latlng);
      made.map.setView(event.latlng, Math.min(made.map.getZoom() + 3, 17));
    });
    if (place) made.map.setView([place.latitude, place.longitude], 12);
    showPoint();
  }
  const typed = () => {
    showPoint();
    if (marker) made.map.panTo(marker.getLatLng());
  };
  latitude.addEventListener('input', typed);
  longitude.addEventListener('input', typed);

  submitForm(form, {
    error, ctx: page.ctx, pane: parts.form, load, saved: place ? t('channeladmin.saved') : t('channeladmin.places.added'),
    check() {
      if (!name.value.trim()) {
        error.textContent = t('channeladmin.places.name-required');
        name.focus();
        return false;
      }
      if (latitude.value === '' || longitude.value === '') {
        error.textContent = t('channeladmin.places.pick');
        latitude.focus();
        return false;
      }
      return true;
    },
    async send() {
      const body = {
        name: name.value,
        categoryId: category.value || null,
        description: description.value,
        address: address.value,
        phone: phone.value,
        website: website.value,
        openingHours: hours.value,
        latitude: Number(latitude.value),
        longitude: Number(longitude.value),
        published: published.checked,
      };
      const saved = place
        ? await api('/api/v1/channel/pois/' + encodeURIComponent(place.id), { method: 'PATCH', body })
        : await api('/api/v1/channel/pois', { method: 'POST', body });
      if (image.files && image.files[0]) {
        await api('/api/v1/channel/pois/' + encodeURIComponent(saved.id) + '/image', { method: 'PUT', body: image.files[0] });
      }
    },
  });
}

function closeForm() {
  closePane(parts.form);
}

function renderCategories(categories, archived) {
  // A category's archive asks nothing before deleting for ever, nor says it restored or deleted.
  const archiveOf = (category) => archiveActions('/api/v1/channel/pois/categories/' + category.id, {
    ctx: page.ctx, done: load, archived: t('channeladmin.places.category-archived'), restored: null, deleted: null,
  });
  const row = (category, isArchived) =>
    el('li', { class: 'admin-row', data: { id: isArchived ? '' : category.id } }, [
      isArchived ? null : handle(category.name),
      el('span', { class: 'admin-row-title' }, [
        el('strong', { text: category.name }),
        el('span', { class: 'admin-row-meta', text: isArchived ? t('channeladmin.archived') : t('channeladmin.places.published-count', { count: category.placeCount }) }),
      ]),
      el(
        'span',
        { class: 'admin-row-actions' },
        isArchived
          ? [
              el('button', { class: 'btn', text: t('channeladmin.restore'), attrs: { type: 'button' }, on: { click: archiveOf(category).restore } }),
              el('button', { class: 'btn btn-danger', text: t('channeladmin.delete-forever'), attrs: { type: 'button' }, on: { click: archiveOf(category).forever } }),
            ]
          : [
              el('button', { class: 'btn', text: t('channeladmin.rename'), attrs: { type: 'button' }, on: { click: () => renameCategory(category) } }),
              el('button', { class: 'btn btn-ghost', text: t('channeladmin.delete'), attrs: { type: 'button' }, on: { click: archiveOf(category).archive } }),
            ],
      ),
    ]);
  parts.categories.replaceChildren(...categories.map((c) => row(c, false)), ...archived.map((c) => row(c, true)));
  if (categories.length + archived.length === 0) parts.categories.append(el('li', { class: 'admin-empty', text: t('channeladmin.categories.none') }));
}

async function addCategory() {
  const name = await promptDialog({ title: t('channeladmin.places.new-category'), label: t('channeladmin.name'), confirmLabel: t('channeladmin.add'), maxLength: 100 });
  if (!name) return;
  await page.save('/api/v1/channel/pois/categories', 'POST', { name }, t('channeladmin.places.category-added'));
  load();
}

async function renameCategory(category) {
  const name = await promptDialog({ title: t('channeladmin.places.rename-category'), label: t('channeladmin.name'), value: category.name, confirmLabel: t('channeladmin.save'), maxLength: 100 });
  if (!name) return;
  await page.save('/api/v1/channel/pois/categories/' + category.id, 'PATCH', { name }, t('channeladmin.renamed'));
  load();
}

function renderVenue() {
  const url = state.mapInfo && state.mapInfo.venueImageUrl;
  const file = el('input', { attrs: { type: 'file', accept: 'image/jpeg,image/png,image/webp', 'aria-label': t('channeladmin.places.venue') } });
  file.addEventListener('change', async () => {
    if (!file.files[0]) return;
    await page.save('/api/v1/channel/map/venue-image', 'PUT', file.files[0], t('channeladmin.places.venue-saved'));
    load();
  });
  parts.venue.replaceChildren(...[
    el('p', { class: 'field-hint', text: t('channeladmin.places.venue-hint') }),
    url ? el('img', { class: 'admin-venue-image', attrs: { src: url, alt: t('channeladmin.places.venue-alt') } }) : null,
    file,
    url
      ? el('button', { class: 'btn btn-ghost', text: t('channeladmin.remove'), attrs: { type: 'button' }, on: { click: async () => { await page.save('/api/v1/channel/map/venue-image', 'DELETE', undefined, t('channeladmin.removed')); load(); } } })
      : null,
  ].filter(Boolean));
}
