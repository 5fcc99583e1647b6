// The shot editor's layers panel: top layer first; pick the layer strokes go to; add, rename, hide,
// lock, opacity, reorder by drag (the handle; or Move up / Move down from the keyboard), delete,
// group the layers chosen with Shift+click (or the current one with the one under it) and ungroup, and the
// "transform layer" mode. Every change is an edit (addLayer, updateLayer, moveLayer, deleteLayer,
// groupLayers, ungroupLayers).
//
// A reference image (a photo, a location, a frame of the film; from a file or the tablet's camera)
// is uploaded as a blob and placed on a layer of its own at the bottom (addLayer with `image`),
// dimmed by the layer's opacity, moved and turned in transform mode, sized with its slider, hidden
// and locked like any layer; locking it takes the pen to the layer above. A guide: the exports
// leave it out.
//
// State for tests: #layers > li.sk-layer[data-layer-id][data-index (from the bottom)][data-visible]
// [data-locked][data-group][data-image (the blob)]; #reference-file, #reference-camera (file inputs),
// #reference-size (the current reference's scale); .sk-layers-section[data-uploading].

import { api } from '../core/api.js';
import { t } from '../core/i18n.js';
import { el, icon, iconButton, confirmDialog, promptDialog, toast } from '../core/ui.js';
import { emptyLayer, newId } from './common.js';

/** A picture larger than this (a side, in pixels) is made smaller in the browser before it is sent. */
const REFERENCE_SIDE = 4096;

/** The picture as sent: a large one drawn smaller first (JPEG, or PNG when it was one: it may be transparent). */
async function shrunk(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch (_) {
    return file; // not one the browser reads: the server says what it is
  }
  const side = Math.max(bitmap.width, bitmap.height);
  if (side <= REFERENCE_SIDE) {
    bitmap.close();
    return file;
  }
  const scale = REFERENCE_SIDE / side;
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg';
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob || file), type, 0.9));
}

/** Why an upload was refused, in the page's language. */
function uploadError(error) {
  const known = { not_image: 'storyboard.reference-not-image', bad_image: 'storyboard.reference-bad-image',
    too_large: 'storyboard.reference-too-big', too_many_pixels: 'storyboard.reference-too-big' };
  return known[error && error.code] ? t(known[error.code]) : (error && error.message) || String(error);
}

export class LayersPanel {
  /**
   * @param {object} o
   * @param {(edit) => string|null} o.edit
   * @param {() => string} o.shotId
   * @param {(layerId: string) => void} o.select
   * @param {() => boolean} o.transformMode
   * @param {() => void} o.toggleTransform
   */
  constructor(o) {
    this.o = o;
    this.shot = null;
    this.current = null;
    this.checked = new Set();
    this.list = el('ol', { class: 'sk-layers', attrs: { id: 'layers', 'aria-label': t('storyboard.layers-top-first') } });
    this.opacity = el('input', { class: 'sk-layer-opacity', attrs: { type: 'range', min: '0', max: '1', step: '0.05', id: 'layer-opacity', 'aria-label': t('storyboard.layer-opacity') } });
    this.opacity.addEventListener('change', () => this.update({ opacity: Number(this.opacity.value) }));
    this.transformButton = iconButton('move', t('storyboard.tool.transform'), {
      cls: 'btn btn-sm', attrs: { 'data-action': 'transform-layer', 'aria-pressed': 'false', 'aria-keyshortcuts': 'T' },
      on: { click: () => this.o.toggleTransform() },
    });
    this.actions = el('div', { class: 'sk-layer-actions' }, [
      iconButton('chevronUp', t('storyboard.move-up'), { cls: 'btn btn-sm', showLabel: false, attrs: { 'data-action': 'layer-up' }, on: { click: () => this.step(1) } }),
      iconButton('chevronDown', t('storyboard.move-down'), { cls: 'btn btn-sm', showLabel: false, attrs: { 'data-action': 'layer-down' }, on: { click: () => this.step(-1) } }),
      iconButton('edit', t('storyboard.rename'), { cls: 'btn btn-sm', showLabel: false, attrs: { 'data-action': 'rename-layer' }, on: { click: () => this.rename() } }),
      el('button', { class: 'btn btn-sm', text: t('storyboard.group'), attrs: { type: 'button', 'data-action': 'group-layers', title: t('storyboard.group-title') }, on: { click: () => this.group() } }),
      el('button', { class: 'btn btn-sm', text: t('storyboard.ungroup'), attrs: { type: 'button', 'data-action': 'ungroup-layers' }, on: { click: () => this.ungroup() } }),
      el('span', { class: 'sk-pair' }, [
        this.transformButton,
        iconButton('zoom-reset', t('storyboard.reset-layer-transform'), { cls: 'btn btn-sm', showLabel: false, attrs: { 'data-action': 'reset-layer-transform' }, on: { click: () => this.update({ transform: { x: 0, y: 0, scale: 1, rotation: 0 } }) } }),
      ]),
    ]);
    // A reference image: from a file, or (on a tablet or a phone) straight from the camera.
    const fileInput = (id, capture) => {
      const input = el('input', { class: 'sk-file-input', attrs: { type: 'file', accept: 'image/*', id, tabindex: '-1', 'aria-hidden': 'true', capture } });
      input.addEventListener('change', () => {
        const file = input.files && input.files[0];
        input.value = '';
        if (file) this.addReference(file);
      });
      return input;
    };
    this.fileInput = fileInput('reference-file', null);
    this.cameraInput = fileInput('reference-camera', 'environment');
    this.size = el('input', { class: 'sk-layer-opacity', attrs: { type: 'range', min: '0.1', max: '4', step: '0.05', id: 'reference-size', 'aria-label': t('storyboard.reference-size') } });
    this.size.addEventListener('change', () => {
      const layer = this.layer();
      if (layer) this.update({ transform: { ...layer.transform, scale: Number(this.size.value) } });
    });
    this.referenceBox = el('div', { class: 'sk-reference', attrs: { hidden: true } }, [
      el('label', { class: 'sk-field' }, [t('storyboard.reference-size'), this.size]),
      el('p', { class: 'sk-reference-hint', text: t('storyboard.reference-hint') }),
    ]);
    this.node = el('section', { class: 'sk-section sk-layers-section', attrs: { 'aria-labelledby': 'layers-title' } }, [
      el('div', { class: 'sk-section-head' }, [
        el('h2', { text: t('storyboard.layers'), attrs: { id: 'layers-title' } }),
        iconButton('plus', t('storyboard.add-layer'), { cls: 'btn btn-sm', attrs: { 'data-action': 'add-layer' }, on: { click: () => this.add() } }),
      ]),
      this.list,
      el('label', { class: 'sk-field' }, [t('storyboard.opacity'), this.opacity]),
      this.referenceBox,
      this.actions,
      el('div', { class: 'sk-layer-actions sk-reference-actions' }, [
        iconButton('upload', t('storyboard.reference-image'), { cls: 'btn btn-sm', attrs: { 'data-action': 'add-reference' }, on: { click: () => this.fileInput.click() } }),
        el('button', { class: 'btn btn-sm', text: t('storyboard.reference-camera'), attrs: { type: 'button', 'data-action': 'add-reference-camera' }, on: { click: () => this.cameraInput.click() } }),
        this.fileInput, this.cameraInput,
      ]),
    ]);
    this.drag = null;
  }

  layer() {
    return this.shot ? this.shot.layers.find((l) => l.id === this.current) || null : null;
  }

  render(shot, currentId) {
    this.shot = shot;
    this.current = currentId;
    const ids = new Set(shot.layers.map((l) => l.id));
    for (const id of [...this.checked]) if (!ids.has(id)) this.checked.delete(id);
    if (this.drag) return; // not under the pointer: after the drop
    // Drawn again only when something it shows changed (not for every stroke).
    const key = [currentId, this.o.transformMode(), [...this.checked].join(','), ...shot.layers.map((l) => [
      l.id, l.name, l.visible, l.locked, l.opacity, l.group || '', l.strokes.length > 0, l.image ? l.image.blob : '',
      l.transform ? l.transform.scale : 1].join(':'))].join('|');
    if (key === this.key) return;
    this.key = key;
    const focusedId = document.activeElement && this.list.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
    const rows = [];
    const count = shot.layers.length;
    for (let i = count - 1; i >= 0; i -= 1) rows.push(this.row(shot.layers[i], i, count));
    this.list.replaceChildren(...rows);
    if (focusedId) {
      const again = this.list.querySelector('[data-focus="' + CSS.escape(focusedId) + '"]');
      if (again) again.focus({ preventScroll: true });
    }
    const layer = this.layer();
    this.opacity.value = String(layer ? layer.opacity ?? 1 : 1);
    this.opacity.disabled = !layer;
    this.referenceBox.hidden = !(layer && layer.image);
    if (layer && layer.image) {
      this.size.value = String(layer.transform ? layer.transform.scale : 1);
      this.size.disabled = layer.locked;
    }
    this.transformButton.setAttribute('aria-pressed', this.o.transformMode() ? 'true' : 'false');
  }

  row(layer, index, count) {
    const current = layer.id === this.current;
    const handle = el('button', {
      class: 'sk-icon-btn sk-layer-handle', attrs: { type: 'button', 'aria-label': t('storyboard.drag-layer', { name: layer.name }), title: t('storyboard.drag-to-reorder'), 'data-focus': 'handle:' + layer.id },
    }, [icon('move', 16)]);
    handle.addEventListener('pointerdown', (event) => this.startDrag(event, layer));
    handle.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
        event.preventDefault();
        this.o.select(layer.id);
        this.move(layer.id, index + (event.key === 'ArrowUp' ? 1 : -1));
      }
    });
    const eye = el('button', {
      class: 'sk-icon-btn' + (layer.visible ? '' : ' is-off'),
      attrs: { type: 'button', 'aria-pressed': layer.visible ? 'true' : 'false', 'aria-label': t('storyboard.show-layer', { name: layer.name }), title: layer.visible ? t('storyboard.hide') : t('storyboard.show'), 'data-action': 'toggle-visible', 'data-focus': 'eye:' + layer.id },
      on: { click: () => this.o.edit({ op: 'updateLayer', shot: this.o.shotId(), layer: layer.id, visible: !layer.visible }) },
    }, [icon('eye', 16)]);
    const name = el('button', {
      class: 'sk-layer-name', attrs: { type: 'button', 'aria-pressed': current ? 'true' : 'false', 'data-action': 'select-layer', 'data-focus': 'name:' + layer.id, title: t('storyboard.draw-on-layer') },
      on: {
        click: (event) => {
          if (event.shiftKey) {
            // Shift+click: choose layers to group.
            if (this.checked.has(layer.id)) this.checked.delete(layer.id);
            else this.checked.add(layer.id);
            this.render(this.shot, this.current);
            return;
          }
          this.o.select(layer.id);
        },
        dblclick: () => { this.o.select(layer.id); this.rename(); },
      },
    }, [layer.name, layer.group ? el('small', { text: t('storyboard.layer-group') }) : null,
      layer.image ? el('small', { text: t('storyboard.reference-badge') }) : null,
      layer.strokes.length || layer.image ? null : el('small', { text: t('storyboard.layer-empty') })]);
    const lock = el('button', {
      class: 'sk-icon-btn' + (layer.locked ? '' : ' is-off'),
      attrs: { type: 'button', 'aria-pressed': layer.locked ? 'true' : 'false', 'aria-label': t('storyboard.lock-layer', { name: layer.name }), title: layer.locked ? t('storyboard.unlock') : t('storyboard.lock'), 'data-action': 'toggle-lock', 'data-focus': 'lock:' + layer.id },
      on: { click: () => this.toggleLock(layer) },
    }, [icon(layer.locked ? 'lock' : 'unlock', 16)]);
    const remove = el('button', {
      class: 'sk-icon-btn', attrs: { type: 'button', 'aria-label': t('storyboard.delete-named', { name: layer.name }), title: t('storyboard.delete-layer'), 'data-action': 'delete-layer', disabled: count <= 1, 'data-focus': 'delete:' + layer.id },
      on: { click: () => this.remove(layer) },
    }, [icon('trash', 16)]);
    return el('li', {
      class: 'sk-layer' + (current ? ' is-current' : '') + (layer.group ? ' in-group' : '') + (this.checked.has(layer.id) ? ' is-checked' : ''),
      attrs: {
        'data-layer-id': layer.id, 'data-index': index, 'data-visible': String(layer.visible), 'data-locked': String(layer.locked),
        'data-group': layer.group || '', 'data-name': layer.name, 'aria-current': current ? 'true' : null,
        'data-image': layer.image ? layer.image.blob : null,
      },
    }, [handle, eye, name, lock, remove]);
  }

  /** Locks or unlocks a layer; locking the reference one draws on, the pen goes to the layer above it. */
  toggleLock(layer) {
    const locked = !layer.locked;
    if (!this.o.edit({ op: 'updateLayer', shot: this.o.shotId(), layer: layer.id, locked })) return;
    if (!locked || !layer.image || layer.id !== this.current || !this.shot) return;
    const at = this.shot.layers.findIndex((l) => l.id === layer.id);
    const above = this.shot.layers.slice(at + 1).find((l) => !l.locked && !l.image);
    if (above) this.o.select(above.id);
  }

  /** Uploads a picture and places it on a new layer at the bottom, half dimmed, ready to move. */
  async addReference(file) {
    if (!this.shot) return;
    const shotId = this.o.shotId();
    const project = new URLSearchParams(location.search).get('id');
    this.node.dataset.uploading = 'true';
    const note = toast(t('storyboard.reference-uploading'), { timeout: 3000 });
    try {
      const body = await shrunk(file);
      const image = await api('/api/v1/storyboards/' + encodeURIComponent(project) + '/images', {
        method: 'POST', body, headers: { 'Content-Type': body.type || 'application/octet-stream' },
      });
      if (note && note.remove) note.remove();
      const layer = {
        ...emptyLayer(t('storyboard.reference-layer-name')), opacity: 0.5,
        image: { blob: image.blob, width: image.width, height: image.height },
      };
      if (this.o.edit({ op: 'addLayer', shot: shotId, layer, index: 0 })) {
        this.o.select(layer.id);
        if (!this.o.transformMode()) this.o.toggleTransform();
      }
    } catch (error) {
      toast(t('storyboard.reference-failed', { reason: uploadError(error) }), { kind: 'error' });
    } finally {
      delete this.node.dataset.uploading;
    }
  }

  update(changes) {
    const layer = this.layer();
    if (layer) this.o.edit({ op: 'updateLayer', shot: this.o.shotId(), layer: layer.id, ...changes });
  }

  add() {
    if (!this.shot) return;
    const layer = emptyLayer(t('storyboard.layer-n', { n: this.shot.layers.length + 1 }));
    const at = this.shot.layers.findIndex((l) => l.id === this.current);
    const index = at < 0 ? this.shot.layers.length : at + 1;
    if (this.o.edit({ op: 'addLayer', shot: this.o.shotId(), layer, index })) this.o.select(layer.id);
  }

  async rename() {
    const layer = this.layer();
    if (!layer) return;
    const name = await promptDialog({ title: t('storyboard.rename-layer'), label: t('storyboard.name'), value: layer.name, confirmLabel: t('storyboard.save'), maxLength: 100 });
    if (name && name !== layer.name) this.o.edit({ op: 'updateLayer', shot: this.o.shotId(), layer: layer.id, name });
  }

  async remove(layer) {
    if (!this.shot || this.shot.layers.length <= 1) return;
    if (layer.strokes.length) {
      const sure = await confirmDialog({
        title: t('storyboard.delete-layer-title', { name: layer.name }), message: t('storyboard.delete-layer-message', { count: layer.strokes.length }),
        confirmLabel: t('storyboard.delete'), danger: true,
      });
      if (!sure) return;
    }
    this.o.edit({ op: 'deleteLayer', shot: this.o.shotId(), layer: layer.id });
  }

  move(layerId, index) {
    if (!this.shot) return;
    const clamped = Math.max(0, Math.min(this.shot.layers.length - 1, index));
    const at = this.shot.layers.findIndex((l) => l.id === layerId);
    if (at === clamped) return;
    this.o.edit({ op: 'moveLayer', shot: this.o.shotId(), layer: layerId, index: clamped });
  }

  step(delta) {
    const at = this.shot ? this.shot.layers.findIndex((l) => l.id === this.current) : -1;
    if (at >= 0) this.move(this.current, at + delta);
  }

  group() {
    if (!this.shot) return;
    let ids = [...this.checked];
    if (ids.length < 2) {
      const at = this.shot.layers.findIndex((l) => l.id === this.current);
      if (at <= 0) return;
      ids = [this.shot.layers[at - 1].id, this.current];
    }
    this.o.edit({ op: 'groupLayers', shot: this.o.shotId(), layers: ids, group: newId('g') });
    this.checked.clear();
  }

  ungroup() {
    const layer = this.layer();
    if (layer && layer.group) this.o.edit({ op: 'ungroupLayers', shot: this.o.shotId(), group: layer.group });
  }

  // Drag by the handle (mouse, pen or touch): the row follows the pointer, dropped between rows.
  startDrag(event, layer) {
    if (event.button !== 0) return;
    event.preventDefault();
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    const row = handle.closest('.sk-layer');
    const rows = [...this.list.children];
    const boxes = rows.map((r) => r.getBoundingClientRect());
    const from = rows.indexOf(row);
    const y0 = event.clientY;
    this.drag = { layer: layer.id, to: from };
    row.classList.add('is-dragging');
    const move = (e) => {
      const dy = e.clientY - y0;
      row.style.transform = 'translateY(' + dy + 'px)';
      const y = e.clientY;
      let to = rows.length - 1;
      for (let i = 0; i < boxes.length; i += 1) {
        if (y < boxes[i].top + boxes[i].height / 2) {
          to = i > from ? i - 1 : i;
          break;
        }
      }
      this.drag.to = to;
    };
    const end = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
      row.classList.remove('is-dragging');
      row.style.transform = '';
      const { to } = this.drag;
      this.drag = null;
      const count = rows.length;
      // Rows are top first; the model's index counts from the bottom.
      if (to !== from) this.move(layer.id, count - 1 - to);
      else if (this.shot) {
        this.key = null;
        this.render(this.shot, this.current);
      }
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  }
}
