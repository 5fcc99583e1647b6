// The pure part of captions (captions.js): reading a clip's subtitle renditions from its HLS
// master playlist, WebVTT cues, a cue's text without markup, and which track shows first. No DOM:
// node tests it (Tests/JS/captions.test.mjs).

/** The subtitle renditions of a master playlist: [{language, name, uri}] (uri as written). */
export function subtitleRenditions(master) {
  const found = [];
  for (const line of String(master).split(/\r?\n/)) {
    if (!line.startsWith('#EXT-X-MEDIA:')) continue;
    const attributes = parseAttributes(line.slice('#EXT-X-MEDIA:'.length));
    if (attributes.TYPE !== 'SUBTITLES' || !attributes.URI) continue;
    found.push({ language: attributes.LANGUAGE || '', name: attributes.NAME || attributes.LANGUAGE || '', uri: attributes.URI });
  }
  return found;
}

/** `A=1,B="x,y"` → {A: '1', B: 'x,y'}. */
export function parseAttributes(text) {
  const result = {};
  const pattern = /([A-Z0-9-]+)=("([^"]*)"|[^,]*)/g;
  let match;
  while ((match = pattern.exec(text))) result[match[1]] = match[3] !== undefined ? match[3] : match[2];
  return result;
}

/** The first media URI of a media playlist. */
export function firstSegment(playlist) {
  return String(playlist).split(/\r?\n/).map((l) => l.trim()).find((l) => l && !l.startsWith('#')) || null;
}

function seconds(text) {
  const match = /^(?:(\d+):)?(\d{2}):(\d{2})[.,](\d{1,3})$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1] || 0) * 3600 + Number(match[2]) * 60 + Number(match[3]) + Number(match[4].padEnd(3, '0')) / 1000;
}

/** The cues of a WebVTT file: [{start, end, text}] (text in WebVTT markup). */
export function parseWebVTT(text) {
  const cues = [];
  const blocks = String(text).replace(/\r\n?/g, '\n').split(/\n{2,}/);
  for (const block of blocks) {
    const lines = block.split('\n').filter((l) => l.length);
    const timing = lines.findIndex((l) => l.includes('-->'));
    if (timing < 0 || timing > 1) continue;
    const [from, rest] = lines[timing].split('-->');
    const start = seconds(from);
    const end = seconds(rest.trim().split(/\s+/)[0]);
    if (start === null || end === null) continue;
    cues.push({ start, end, text: lines.slice(timing + 1).join('\n') });
  }
  return cues;
}

/** A cue's text without markup, for textContent: tags dropped, the entities WebVTT has decoded. */
export function plainText(text) {
  return String(text).replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&nbsp;/g, '\u00a0').replace(/&amp;/g, '&');
}

/** The language to show among `tracks`: the one chosen before, else the page's, else the first; null: off. */
export function preferredTrack(tracks, choice, pageLanguage) {
  if (!tracks.length || choice === 'off') return null;
  const primary = (tag) => String(tag || '').toLowerCase().split('-')[0];
  return tracks.find((tr) => tr.language === choice)
    || tracks.find((tr) => tr.language === pageLanguage)
    || tracks.find((tr) => primary(tr.language) === primary(pageLanguage))
    || tracks[0];
}
