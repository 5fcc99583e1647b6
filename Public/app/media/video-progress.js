// What a clip's card says while it is packaged (issue #41, "playable in a minute"): while it
// waits, its place in line and about how long it has left ("1 clip ahead of it · about 3 min
// left"); while its first rendition is made, the packaging line and the time left; once it plays
// from that first rendition while the rest of its ladder is packaged, "Playable — adding HD
// versions (40 %)". The numbers are the server's (`progress.queuePosition`, `progress.secondsLeft`,
// `ladderComplete`, see GET /api/v1/videos/{id}).

import { t } from '../core/i18n.js';

/** Whether the clip's packaging is still under way (and its card should keep asking). */
export function isPackaging(video) {
  return video.status === 'queued' || video.status === 'processing' || (video.status === 'ready' && video.ladderComplete === false && Boolean(video.progress));
}

/** "about 3 min left", "less than a minute left", or '' when unknown. */
export function timeLeftText(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return t('video.left-under-a-minute');
  return t('video.left-minutes', { count: Math.round(seconds / 60) });
}

/** The place in line of a queued clip: "Next in line", "2 clips ahead of it". */
export function queueText(position) {
  return position <= 1 ? t('video.next-in-line') : t('video.clips-ahead', { count: position - 1 });
}

/**
 * The line for a clip being packaged, or null when there is none to show (ready and whole,
 * failed). `packagingText` says the stage of a clip not playable yet (the uploader's wording).
 */
export function videoProgressText(video, packagingText) {
  const p = video.progress || null;
  const left = p ? timeLeftText(p.secondsLeft) : '';
  const joined = (...parts) => parts.filter(Boolean).join(' · ');
  if (video.status === 'ready') {
    if (video.ladderComplete !== false || !p) return null;
    const percent = p.stage === 'finishing' ? 100 : p.total > 0 ? Math.round((p.done / p.total) * 100) : 0;
    return joined(t('video.adding-renditions', { percent }), p.stage === 'renditions' ? left : '');
  }
  if (video.status === 'queued') {
    if (p && p.queuePosition) return joined(queueText(p.queuePosition), left);
    return packagingText({ stage: 'queued' });
  }
  if (video.status === 'processing') return joined(packagingText(p), left);
  return null;
}

/** How far the bar of a clip being packaged is filled (0..1). */
export function videoProgressFraction(video) {
  const p = video.progress;
  if (!p || !p.total) return 0;
  return Math.min(1, p.done / p.total);
}
