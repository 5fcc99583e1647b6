// The browser's side of captions (Public/app/media/caption-text.js): the subtitle renditions read
// from a clip's master playlist, the WebVTT cues, their text without markup (shown with
// textContent) and which track shows first.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app } from './support.mjs';

const { subtitleRenditions, firstSegment, parseWebVTT, plainText, preferredTrack } = await app('media/caption-text.js');

test('the master playlist names its subtitle renditions', () => {
  const master = [
    '#EXTM3U',
    '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="audio",URI="a.m3u8"',
    '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English, UK",LANGUAGE="en-GB",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="captions-en-GB.m3u8"',
    '#EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="subs"',
    'v.m3u8',
  ].join('\n');
  assert.deepEqual(subtitleRenditions(master), [{ language: 'en-GB', name: 'English, UK', uri: 'captions-en-GB.m3u8' }]);
  assert.equal(firstSegment('#EXTM3U\n#EXTINF:2.000,\ncaptions-en.vtt\n#EXT-X-ENDLIST\n'), 'captions-en.vtt');
});

test('WebVTT cues are read with their times, and their text loses its markup', () => {
  const cues = parseWebVTT('WEBVTT\n\n1\n00:00:00.200 --> 00:00:01.500\n<i>Hello</i> &amp; &lt;welcome&gt;\nroom\n\n01:02.5 --> 01:03.000 align:start\nBye\n');
  assert.deepEqual(cues, [
    { start: 0.2, end: 1.5, text: '<i>Hello</i> &amp; &lt;welcome&gt;\nroom' },
    { start: 62.5, end: 63, text: 'Bye' },
  ]);
  assert.equal(plainText(cues[0].text), 'Hello & <welcome>\nroom');
});

test('the track shown first: the one chosen before, else the page language, else the first; none when turned off', () => {
  const tracks = [{ language: 'de' }, { language: 'en-GB' }, { language: 'fr' }];
  assert.equal(preferredTrack(tracks, 'fr', 'en').language, 'fr');
  assert.equal(preferredTrack(tracks, null, 'en').language, 'en-GB');
  assert.equal(preferredTrack(tracks, null, 'cs').language, 'de');
  assert.equal(preferredTrack(tracks, 'off', 'en'), null);
  assert.equal(preferredTrack([], null, 'en'), null);
});
