// The replay page's export controls, for a session's hosts: "Export MP4" starts a replay export
// (a job on the server), a progress bar follows it, then "Download" and, for an admin,
// "Publish to channel" with the title prefilled, and a link to the channel video it became.
// REPLAY-PAGE mounts it: mountExportControls(container, {code, session}).

import { api, currentUser } from '../core/api.js';
import { errorText, loadAreas, t } from '../core/i18n.js';
import { el } from '../core/ui.js';

const POLL_MS = 1000;

/**
 * Mounts the controls in `container` for session `code` (`session`: its LiveSessionInfo, whose
 * title prefills the channel video's). Also takes one object, `{container, code, session}`.
 * Returns {unmount}.
 */
export async function mountExportControls(container, options = {}) {
  if (container && !(container instanceof Element) && container.container) {
    options = container;
    container = options.container;
  }
  const { code, session = {} } = options;
  addStylesheet();
  await loadAreas('replayexport');
  let user = null;
  let earlier = [];
  try {
    user = await currentUser();
    // Only the session's hosts may export: anyone else is refused here, and sees nothing.
    if (user) earlier = await api(`/api/v1/sessions/${encodeURIComponent(code)}/replay/exports`);
  } catch (_) {
    user = null;
  }
  // Said on the container, for whoever waits for the controls (tests): shown, or none here.
  container.dataset.exportControls = user ? 'shown' : 'none';
  if (!user) return { unmount() {} };
  let timer = null;
  let stopped = false;

  const root = el('section', { class: 'replay-export', attrs: { 'aria-label': t('replayexport.heading') } });
  const exportButton = el('button', {
    class: 'btn replay-export-start',
    text: t('replayexport.export'),
    attrs: { type: 'button' },
    on: { click: start },
  });
  const progress = el('progress', {
    class: 'replay-export-progress',
    attrs: { max: '100', value: '0', hidden: true, 'aria-label': t('replayexport.progress') },
  });
  const status = el('p', { class: 'replay-export-status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const actions = el('div', { class: 'replay-export-actions' });
  root.append(exportButton, progress, status, actions);
  container.append(root);
  // The newest export made before (a reload, another tab): its state, or its progress followed.
  if (earlier.length > 0) {
    exportButton.disabled = earlier[0].status === 'queued' || earlier[0].status === 'running';
    show(earlier[0]);
  }

  async function start() {
    exportButton.disabled = true;
    actions.replaceChildren();
    status.textContent = t('replayexport.queued');
    try {
      const created = await api(`/api/v1/sessions/${encodeURIComponent(code)}/replay/exports`, { method: 'POST' });
      show(created);
    } catch (error) {
      exportButton.disabled = false;
      status.textContent = error.code === 'nothing_shown' ? t('replayexport.nothing-shown') : errorText(error);
    }
  }

  function show(exported) {
    if (stopped) return;
    const percent = Math.round((exported.progress || 0) * 100);
    progress.hidden = exported.status === 'ready' || exported.status === 'failed';
    progress.value = percent;
    if (exported.status === 'queued' || exported.status === 'running') {
      status.textContent =
        exported.status === 'queued' ? t('replayexport.queued') : t('replayexport.running', { percent });
      timer = setTimeout(() => poll(exported.id), POLL_MS);
      return;
    }
    exportButton.disabled = false;
    if (exported.status === 'failed') {
      status.textContent = t('replayexport.failed', {
        reason: (exported.error && exported.error.message) || t('replayexport.unknown'),
      });
      return;
    }
    status.textContent = t('replayexport.ready');
    ready(exported);
  }

  async function poll(id) {
    try {
      show(await api(`/api/v1/replay-exports/${encodeURIComponent(id)}`));
    } catch (error) {
      exportButton.disabled = false;
      status.textContent = errorText(error);
    }
  }

  function ready(exported) {
    const download = el('a', {
      class: 'btn replay-export-download',
      text: t('replayexport.download'),
      attrs: { href: exported.downloadUrl, download: '' },
    });
    actions.replaceChildren(download);
    if (exported.channelVideoId) {
      actions.append(channelLink(exported.channelVideoId));
    } else if (user && user.role === 'admin') {
      actions.append(publishForm(exported));
    }
  }

  function publishForm(exported) {
    const input = el('input', {
      class: 'input replay-export-title',
      attrs: { type: 'text', required: true, maxlength: '200', value: session.title || '' },
    });
    const label = el('label', { class: 'replay-export-label' }, [t('replayexport.title'), input]);
    const button = el('button', { class: 'btn', text: t('replayexport.publish'), attrs: { type: 'submit' } });
    const form = el('form', { class: 'replay-export-publish' }, [label, button]);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const title = input.value.trim();
      if (!title) {
        status.textContent = t('replayexport.title-needed');
        input.focus();
        return;
      }
      button.disabled = true;
      status.textContent = t('replayexport.publishing');
      try {
        const video = await api(`/api/v1/replay-exports/${encodeURIComponent(exported.id)}/publish`, {
          method: 'POST',
          body: { title },
        });
        status.textContent = t('replayexport.published');
        form.replaceWith(channelLink(video.id));
      } catch (error) {
        button.disabled = false;
        status.textContent = errorText(error);
      }
    });
    return form;
  }

  function channelLink(id) {
    return el('a', {
      class: 'replay-export-channel',
      text: t('replayexport.open-channel'),
      attrs: { href: `/channel#videos/${encodeURIComponent(id)}` },
    });
  }

  return {
    unmount() {
      stopped = true;
      clearTimeout(timer);
      root.remove();
    },
  };
}

export default mountExportControls;

function addStylesheet() {
  if (document.querySelector('link[href="/app/replay/export-controls.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/replay/export-controls.css' } }));
}
