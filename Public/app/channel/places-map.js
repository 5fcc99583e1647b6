// The channel's map: Leaflet (Debian's libjs-leaflet, served at /vendor/leaflet/) on the offline
// basemap the server serves at /tiles/ (OpenStreetMap tiles to zoom 6), for the audience's
// places page and the admin's place form alike.

import { t } from '../core/i18n.js';

let leafletPromise = null;

/** Loads Leaflet's stylesheet and module once; resolves with the module, or null if it is missing. */
export function loadLeaflet() {
  if (!leafletPromise) {
    leafletPromise = (async () => {
      if (!document.querySelector('link[data-leaflet]')) {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = '/vendor/leaflet/leaflet.css';
        link.dataset.leaflet = '';
        const loaded = new Promise((resolve) => {
          link.addEventListener('load', resolve, { once: true });
          link.addEventListener('error', resolve, { once: true });
        });
        document.head.append(link);
        await loaded; // the default marker finds its image through this stylesheet
      }
      try {
        return await import('/vendor/leaflet/leaflet.esm.js');
      } catch (_) {
        return null;
      }
    })();
  }
  return leafletPromise;
}

/**
 * Makes a map in `container` with the basemap (`basemap` from GET /api/v1/channel/map; null when
 * none is installed, and then the map says so). Resolves with {L, map} or null without Leaflet.
 */
export async function createMap(container, basemap, { note } = {}) {
  const L = await loadLeaflet();
  if (!L) {
    if (note) note(t('channel.map.no-library'));
    return null;
  }
  const map = L.map(container, {
    worldCopyJump: true,
    minZoom: basemap ? basemap.minZoom : 0,
    // The basemap stops at its last zoom; closer than that the tiles are stretched (still
    // useful to tell neighbouring places apart).
    maxZoom: 18,
    attributionControl: true,
  });
  map.attributionControl.setPrefix(false);
  if (basemap) {
    L.tileLayer(basemap.tileUrl, {
      minZoom: basemap.minZoom,
      maxNativeZoom: basemap.maxZoom,
      maxZoom: 18,
      attribution: basemap.attribution,
      noWrap: false,
    }).addTo(map);
  } else if (note) {
    note(t('channel.map.no-basemap'));
  }
  map.setView([20, 0], 1);
  return { L, map };
}

/** Fits the map to `points` ([[lat, lon]…]): one point at a city's zoom, none: the world. */
export function fitTo(L, map, points) {
  if (points.length === 0) {
    map.setView([20, 0], 1);
  } else if (points.length === 1) {
    map.setView(points[0], 12);
  } else {
    map.fitBounds(L.latLngBounds(points), { padding: [28, 28], maxZoom: 14 });
  }
}
