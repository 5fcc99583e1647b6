// The admin's table of channel videos: add (pick a ready library video), edit (title, category,
// description, chapters, free, promoted), reorder, publish/unpublish, delete (= archive), and in
// the archive restore or delete for ever. Uploading stays in the library.
//
// Hooks for tests: [data-role=add-video], rows tr[data-id] with [data-role=edit|publish|archive|
// restore|delete-forever], [data-role=status-all|status-archived].

import { errorText, t } from '../core/i18n.js';
import { el, modalDialog } from '../core/ui.js';
import {
  BASE, call, reorderHandle, rowButton, clock, seconds, tablePart, archivedButtons, messageRow, emptyRow,
} from './video-admin-common.js';
import { archiveActions } from './archive.js';

let categories = [];

// The page: its section's context (`table.ctx`), the Current/Archived choice (`table.view`), the rows (`table.tbody`).
const table = tablePart({
  title: t('channeladmin.videos'),
  add: { label: t('channeladmin.videos.add'), role: 'add-video', onClick: () => editDialog(null) },
  columns: [t('channeladmin.videos.video'), t('channeladmin.videos.category'), t('channeladmin.status'), t('channeladmin.actions')],
  orderPath: '/videos/order', load: () => load(),
});
export const { mount, show } = table;

async function load() {
  let videos;
  try {
    [videos, categories] = await Promise.all([
      call('/videos?status=' + table.view.status + '&limit=100'), call('/videos/categories?status=all'),
    ]);
  } catch (error) {
    table.tbody.replaceChildren(messageRow(errorText(error), 5));
    return;
  }
  const name = (id) => (categories.find((c) => c.id === id) || {}).name || '—';
  table.tbody.replaceChildren(...videos.map((video) => {
    const published = Boolean(video.publishedAt);
    const archive = archiveActions(BASE + '/videos/' + encodeURIComponent(video.id), {
      ctx: table.ctx, done: load, archived: t('channeladmin.archived-toast'), confirm: t('channeladmin.videos.delete-forever-message', { title: video.title }),
    });
    const flags = [published ? t('channeladmin.published') : t('channeladmin.draft'), video.free ? t('channeladmin.videos.free') : null, video.promoted ? t('channeladmin.videos.promoted') : null]
      .filter(Boolean).join(' · ');
    const actions = table.view.status === 'archived'
      ? archivedButtons(archive)
      : [
        rowButton(t('channeladmin.edit'), 'edit', () => editDialog(video)),
        rowButton(published ? t('channeladmin.unpublish') : t('channeladmin.publish'), 'publish', () => publish(video, !published)),
        rowButton(t('channeladmin.delete'), 'archive', archive.archive, { danger: true }),
      ];
    return el('tr', { attrs: { 'data-id': video.id } }, [
      el('td', {}, [table.view.status === 'archived' ? null : reorderHandle(video.title)]),
      el('td', {}, [el('div', { class: 'cva-video' }, [
        video.posterUrl ? el('img', { class: 'cva-poster', attrs: { src: video.posterUrl, alt: '' } }) : el('span', { class: 'cva-poster' }),
        el('div', {}, [el('strong', { text: video.title }), el('div', { class: 'cva-muted', text: clock(video.duration) })]),
      ])]),
      el('td', { text: [name(video.categoryId), video.subcategoryId ? name(video.subcategoryId) : null].filter(Boolean).join(' › ') }),
      el('td', { text: flags }),
      el('td', {}, [el('div', { class: 'cva-actions' }, actions)]),
    ]);
  }));
  if (!videos.length) {
    table.tbody.replaceChildren(emptyRow(table.view, t('channeladmin.videos.none'), 5));
  }
}

async function publish(video, published) {
  try {
    await call('/videos/' + encodeURIComponent(video.id), { method: 'PATCH', body: { published } });
    table.ctx.toast(published ? t('channeladmin.published-toast') : t('channeladmin.unpublished-toast'));
  } catch (error) {
    table.ctx.toast(errorText(error));
  }
  load();
}

function field(label, control) {
  return el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), control]);
}

function chaptersText(chapters) {
  return chapters.map((c) => clock(c.start) + ' ' + c.title).join('\n');
}

/** "0:00 Intro" lines → [{start, title}]; throws with the line that is wrong. */
function parseChapters(text) {
  return text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const match = /^(\S+)\s+(.+)$/.exec(line);
    const start = match ? seconds(match[1]) : NaN;
    if (!match || Number.isNaN(start)) throw new Error(t('channeladmin.videos.chapter-invalid', { line }));
    return { start, title: match[2] };
  });
}

async function editDialog(video) {
  let library = [];
  if (!video) {
    try {
      library = await call('/videos/library');
    } catch (error) {
      table.ctx.toast(errorText(error));
      return;
    }
    if (!library.length) {
      table.ctx.toast(t('channeladmin.videos.library-empty'));
      return;
    }
  }
  const top = categories.filter((c) => !c.parentId);
  if (!top.length) {
    table.ctx.toast(t('channeladmin.videos.category-first'));
    return;
  }
  const pick = el('select', { class: 'input', attrs: { name: 'videoId', 'data-role': 'library-video' } },
    library.map((v) => el('option', { text: `${v.title} (${clock(v.duration)})`, attrs: { value: v.id } })));
  const title = el('input', { class: 'input', attrs: { name: 'title', maxlength: 200, value: video ? video.title : '' } });
  const category = el('select', { class: 'input', attrs: { name: 'categoryId' } },
    top.map((c) => el('option', { text: c.name, attrs: { value: c.id } })));
  const sub = el('select', { class: 'input', attrs: { name: 'subcategoryId' } });
  const fillSubs = () => {
    const subs = categories.filter((c) => c.parentId === category.value);
    sub.replaceChildren(el('option', { text: t('channeladmin.none'), attrs: { value: '' } }),
      ...subs.map((c) => el('option', { text: c.name, attrs: { value: c.id } })));
    sub.disabled = subs.length === 0;
  };
  category.value = video ? video.categoryId : top[0].id;
  fillSubs();
  if (video && video.subcategoryId) sub.value = video.subcategoryId;
  category.addEventListener('change', fillSubs);
  const description = el('textarea', { class: 'input', attrs: { name: 'description', rows: 4, maxlength: 10000 } });
  description.value = video ? video.description : '';
  const chapters = el('textarea', { class: 'input', attrs: { name: 'chapters', rows: 4, placeholder: t('channeladmin.videos.chapters-placeholder') } });
  chapters.value = video ? chaptersText(video.chapters) : '';
  const check = (name, label, on) => {
    const box = el('input', { attrs: { type: 'checkbox', name, checked: on } });
    return [box, el('label', { class: 'cva-check' }, [box, el('span', { text: label })])];
  };
  const [free, freeLabel] = check('free', t('channeladmin.videos.free-label'), video ? video.free : false);
  const [promoted, promotedLabel] = check('promoted', t('channeladmin.videos.promoted-label'), video ? video.promoted : false);
  const [publish, publishLabel] = check('published', t('channeladmin.publish-now'), video ? Boolean(video.publishedAt) : true);
  const error = el('p', { class: 'cva-error', attrs: { role: 'alert', hidden: true } });
  const cancel = el('button', { class: 'btn', text: t('channeladmin.cancel'), attrs: { type: 'button' } });
  const save = el('button', { class: 'btn btn-primary', text: video ? t('channeladmin.save') : t('channeladmin.add'), attrs: { type: 'submit', 'data-role': 'save' } });
  const body = [
    video ? null : field(t('channeladmin.videos.library-video'), pick),
    field(video ? t('channeladmin.title') : t('channeladmin.videos.title-empty'), title),
    field(t('channeladmin.videos.category'), category), field(t('channeladmin.videos.subcategory'), sub), field(t('channeladmin.description'), description),
    field(t('channeladmin.videos.chapters'), chapters), freeLabel, promotedLabel, publishLabel, error,
  ];
  const { dialog, content } = modalDialog({ title: video ? t('channeladmin.videos.edit-title') : t('channeladmin.videos.add-title'), body, actions: [cancel, save], form: true });
  cancel.addEventListener('click', () => dialog.close());
  content.addEventListener('submit', async (event) => {
    event.preventDefault();
    let payload;
    try {
      payload = {
        categoryId: category.value, subcategoryId: sub.value || null, description: description.value,
        chapters: parseChapters(chapters.value), free: free.checked, promoted: promoted.checked, published: publish.checked,
      };
    } catch (problem) {
      error.textContent = problem.message;
      error.hidden = false;
      return;
    }
    if (title.value.trim()) payload.title = title.value.trim();
    if (!video) payload.videoId = pick.value;
    try {
      if (video) await call('/videos/' + encodeURIComponent(video.id), { method: 'PATCH', body: payload });
      else await call('/videos', { method: 'POST', body: payload });
    } catch (problem) {
      error.textContent = errorText(problem);
      error.hidden = false;
      return;
    }
    dialog.close();
    table.ctx.toast(video ? t('channeladmin.saved') : t('channeladmin.added'));
    load();
  });
}
