// The browser's resumable uploads (Public/app/media/resumable.js, issue #41): the tus metadata,
// the fingerprint a file is remembered by, the back-off after a lost connection, the headers read,
// and the upload itself against a fake tus server (PATCHes from the server's offset, a connection
// cut mid-body, a page load that resumes, a refusal, a lost last answer).
import assert from 'node:assert/strict';
import test from 'node:test';
import { app } from './support.mjs';

const {
  backoffSchedule, encodeMetadata, decodeMetadata, parseOffset, parseExpires, uploadURL, fingerprint,
  rememberedUploads, rememberedEntries, remember, forget, forgetExpired, pruneUploads, resultBody, resumableUpload, STORE_KEY,
} = await app('media/resumable.js');

test('metadata is tus syntax: key and base64 of the UTF-8 value, empty values left out', () => {
  const header = encodeMetadata({ target: 'video', filename: 'Vortrag über Äpfel 日本.mp4', folderId: null, title: '', session: undefined });
  assert.equal(header.split(',').length, 2);
  assert.equal(header.split(',')[0], 'target dmlkZW8=');
  assert.match(header, /^target [A-Za-z0-9+/=]+,filename [A-Za-z0-9+/=]+$/);
  assert.equal(Buffer.from(header.split(',')[1].split(' ')[1], 'base64').toString('utf8'), 'Vortrag über Äpfel 日本.mp4');
  assert.deepEqual(decodeMetadata(header), { target: 'video', filename: 'Vortrag über Äpfel 日本.mp4' });
  assert.deepEqual(decodeMetadata('session QUJDRA==,as cHJlc2VudGVy,flag'), { session: 'ABCD', as: 'presenter', flag: '' });
});

test('a file has one fingerprint per place it goes to', () => {
  const file = { target: 'deck', name: 'talk.pdf', size: 1234, lastModified: 1700000000000 };
  assert.equal(fingerprint(file), fingerprint({ ...file }));
  const others = [
    { ...file, target: 'video' }, { ...file, name: 'talk2.pdf' }, { ...file, size: 1235 },
    { ...file, lastModified: 1700000000001 }, { ...file, folderId: 'f1' }, { ...file, session: 'ABCD' },
    { ...file, session: 'ABCD', as: 'presenter' },
  ];
  const prints = new Set([fingerprint(file), ...others.map(fingerprint)]);
  assert.equal(prints.size, others.length + 1);
});

test('the back-off waits 1, 2, 4, 8 s, then 8 s, for about a minute', () => {
  const schedule = backoffSchedule();
  assert.deepEqual(schedule.slice(0, 5), [1000, 2000, 4000, 8000, 8000]);
  assert.ok(schedule.every((ms) => ms <= 8000));
  const total = schedule.reduce((a, b) => a + b, 0);
  assert.ok(total >= 60_000 && total < 70_000, String(total));
  assert.deepEqual(backoffSchedule(7000), [1000, 2000, 4000]);
});

test('headers: offsets are plain integers, dates RFC 9110, Location a path of this origin', () => {
  assert.equal(parseOffset('0'), 0);
  assert.equal(parseOffset(' 8388608 '), 8388608);
  for (const bad of [null, undefined, '', '-1', '1.5', '1e3', 'abc', '12 34', '99999999999999999']) assert.equal(parseOffset(bad), null, String(bad));
  assert.equal(parseExpires('Mon, 30 Nov 2026 16:00:00 GMT').toISOString(), '2026-11-30T16:00:00.000Z');
  assert.equal(parseExpires('never'), null);
  assert.equal(uploadURL('/api/v1/uploads/u0123', 'http://127.0.0.1:8080'), '/api/v1/uploads/u0123');
  assert.equal(uploadURL('http://127.0.0.1:8080/api/v1/uploads/u0123', 'http://127.0.0.1:8080'), '/api/v1/uploads/u0123');
  assert.equal(uploadURL('https://elsewhere.example/api/v1/uploads/u1', 'http://127.0.0.1:8080'), null);
  assert.equal(uploadURL(null, 'http://127.0.0.1:8080'), null);
});

test('the remembered uploads live under podium.uploads and go when forgotten', () => {
  const storage = memoryStorage();
  remember(storage, 'a', '/api/v1/uploads/u1', new Date(1700000000000));
  remember(storage, 'b', '/api/v1/uploads/u2');
  assert.deepEqual(JSON.parse(storage.getItem(STORE_KEY)), {
    a: { url: '/api/v1/uploads/u1', expires: 1700000000000 }, b: { url: '/api/v1/uploads/u2', expires: null },
  });
  forget(storage, 'a');
  assert.deepEqual(rememberedUploads(storage), { b: '/api/v1/uploads/u2' });
  forget(storage, 'b');
  assert.equal(storage.getItem(STORE_KEY), null);
  storage.setItem(STORE_KEY, 'not json');
  assert.deepEqual(rememberedUploads(storage), {});
  // An entry of the first format (the URL alone) reads with no known expiry.
  storage.setItem(STORE_KEY, JSON.stringify({ old: '/api/v1/uploads/u0', bad: 7 }));
  assert.deepEqual(rememberedEntries(storage), { old: { url: '/api/v1/uploads/u0', expires: null } });
});

test('an entry past the server\'s Upload-Expires is forgotten, one before it kept', () => {
  const storage = memoryStorage();
  remember(storage, 'past', '/api/v1/uploads/u1', 1000);
  remember(storage, 'edge', '/api/v1/uploads/u2', 2000);
  remember(storage, 'future', '/api/v1/uploads/u3', 2001);
  remember(storage, 'unknown', '/api/v1/uploads/u4');
  assert.deepEqual(forgetExpired(storage, 2000), ['past', 'edge']);
  assert.deepEqual(Object.keys(rememberedUploads(storage)).sort(), ['future', 'unknown']);
  assert.deepEqual(forgetExpired(storage, 2000), []);
});

test("a finished upload's body is the one-shot route's", () => {
  assert.deepEqual(resultBody({ item: { id: 'd1', status: 'processing' }, jobId: 'j1' }), { id: 'd1', status: 'processing', jobId: 'j1' });
  assert.deepEqual(resultBody({ id: 'd1', jobId: 'j1' }), { id: 'd1', jobId: 'j1' });
  assert.deepEqual(resultBody({ deckId: 'd2', title: 'T', status: 'processing' }), { deckId: 'd2', title: 'T', status: 'processing' });
});

// ---- the upload against a fake server ----

function memoryStorage() {
  const map = new Map();
  return { getItem: (k) => (map.has(k) ? map.get(k) : null), setItem: (k, v) => map.set(k, String(v)), removeItem: (k) => map.delete(k) };
}

/** A tus server in memory: uploads by id, every request logged; `cut` makes the next PATCH drop after n bytes. */
function fakeServer({ finish = (upload) => ({ status: 200, body: { item: { id: 'd1', title: upload.metadata.title || upload.metadata.filename }, jobId: 'j1' } }) } = {}) {
  const server = { uploads: new Map(), log: [], received: 0, cut: null, down: 0, next: 1, loseLastAnswer: false };
  const answer = (status, headers = {}, body = null) => ({
    status, body: body === null ? '' : JSON.stringify(body),
    header: (name) => headers[Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase())] ?? null,
  });
  server.request = async (method, url, { headers = {}, body = null, onProgress } = {}) => {
    server.log.push(method + ' ' + url + (headers['Upload-Offset'] !== undefined ? ' @' + headers['Upload-Offset'] : ''));
    assert.equal(headers['Tus-Resumable'], '1.0.0');
    if (server.down > 0) {
      server.down -= 1;
      throw Object.assign(new Error('network'), { code: 'network' });
    }
    const id = url.split('/').pop();
    const upload = server.uploads.get(id);
    if (method === 'POST') {
      const newId = 'u' + String(server.next++).padStart(32, '0');
      server.uploads.set(newId, { length: Number(headers['Upload-Length']), offset: 0, metadata: decodeMetadata(headers['Upload-Metadata']), result: null });
      return answer(201, { Location: '/api/v1/uploads/' + newId, 'Upload-Offset': '0' }, { id: newId, offset: 0 });
    }
    if (!upload) return answer(404);
    if (method === 'HEAD') return answer(200, { 'Upload-Offset': String(upload.offset), 'Upload-Length': String(upload.length) });
    if (method === 'GET') return answer(200, {}, { id, state: upload.result ? 'done' : 'receiving', offset: upload.offset, result: upload.result });
    assert.equal(method, 'PATCH');
    assert.equal(headers['Content-Type'], 'application/offset+octet-stream');
    if (Number(headers['Upload-Offset']) !== upload.offset) return answer(409, { 'Upload-Offset': String(upload.offset) }, { error: { code: 'offset_mismatch' } });
    let bytes = body.size;
    if (server.cut !== null) {
      bytes = Math.min(bytes, server.cut);
      server.cut = null;
      upload.offset += bytes;
      server.received += bytes;
      if (onProgress) onProgress(bytes);
      throw Object.assign(new Error('network'), { code: 'network' });
    }
    if (onProgress) onProgress(bytes);
    upload.offset += bytes;
    server.received += bytes;
    if (upload.offset < upload.length) return answer(204, { 'Upload-Offset': String(upload.offset) });
    const done = finish(upload);
    if (done.status !== 200) {
      server.uploads.delete(id);
      return answer(done.status, {}, done.body);
    }
    upload.result = done.body;
    if (server.loseLastAnswer) {
      server.loseLastAnswer = false;
      throw Object.assign(new Error('network'), { code: 'network' });
    }
    return answer(200, { 'Upload-Offset': String(upload.offset) }, done.body);
  };
  return server;
}

const file = (size, name = 'talk.pdf') => new File([new Uint8Array(size).fill(7)], name, { lastModified: 1700000000000 });

function client(server, extra = {}) {
  const waits = [];
  const retries = [];
  const resumes = [];
  const progress = [];
  const o = {
    target: 'deck', metadata: { title: 'Talk' }, chunkBytes: 4, storage: extra.storage || memoryStorage(),
    request: server.request, sleep: async (ms) => { waits.push(ms); },
    onRetry: (s) => retries.push(s), onResume: (f) => resumes.push(f), onProgress: (f) => progress.push(f),
    ...extra,
  };
  return { o, waits, retries, resumes, progress };
}

test('a file goes in PATCHes of chunkBytes from the offset, and the last answer is the route\'s', async () => {
  const server = fakeServer();
  const { o, progress } = client(server);
  const result = await resumableUpload(file(10), o);
  assert.deepEqual(result, { id: 'd1', title: 'Talk', jobId: 'j1' });
  const id = [...server.uploads.keys()][0];
  assert.deepEqual(server.log, ['POST /api/v1/uploads', `PATCH /api/v1/uploads/${id} @0`, `PATCH /api/v1/uploads/${id} @4`, `PATCH /api/v1/uploads/${id} @8`]);
  assert.deepEqual(server.uploads.get(id).metadata, { target: 'deck', filename: 'talk.pdf', title: 'Talk' });
  assert.equal(progress.at(-1), 1);
  assert.deepEqual(rememberedUploads(o.storage), {}, 'forgotten once done');
});

test('a connection cut mid-PATCH: HEAD (again 1 s later when it fails too), then on from the bytes the server kept', async () => {
  const server = fakeServer();
  const { o, retries, waits } = client(server, { chunkBytes: 8 });
  server.cut = 3;
  let heads = 0;
  o.request = async (method, ...rest) => {
    if (method === 'HEAD' && heads++ === 0) server.down = 1; // the first HEAD fails too: 1 s, then 2 s
    return server.request(method, ...rest);
  };
  await resumableUpload(file(10), o);
  const id = [...server.uploads.keys()][0];
  assert.deepEqual(server.log.slice(1), [`PATCH /api/v1/uploads/${id} @0`, `HEAD /api/v1/uploads/${id}`, `HEAD /api/v1/uploads/${id}`, `PATCH /api/v1/uploads/${id} @3`]);
  assert.equal(server.received, 10, 'no byte sent twice');
  assert.deepEqual(retries, [1], 'the second HEAD after 1 s');
  assert.deepEqual(waits, [1000]);
});

test('the same file chosen after a reload continues at the server\'s offset, with the same upload', async () => {
  const server = fakeServer();
  const storage = memoryStorage();
  const first = client(server, { storage });
  server.cut = 6;
  // The page goes away while its first PATCH is on the way: every later request fails.
  const gone = resumableUpload(file(10), { ...first.o, chunkBytes: 10, backoff: [], request: async (...args) => {
    if (server.log.length >= 2) throw Object.assign(new Error('network'), { code: 'network' });
    return server.request(...args);
  } });
  await assert.rejects(gone, (error) => error.code === 'network');
  const id = [...server.uploads.keys()][0];
  assert.equal(server.uploads.get(id).offset, 6);
  assert.deepEqual(Object.values(rememberedUploads(storage)), ['/api/v1/uploads/' + id], 'remembered while not done');

  server.log.length = 0;
  const again = client(server, { storage, chunkBytes: 8 });
  const result = await resumableUpload(file(10), again.o);
  assert.equal(result.id, 'd1');
  assert.deepEqual(server.log, [`HEAD /api/v1/uploads/${id}`, `PATCH /api/v1/uploads/${id} @6`]);
  assert.deepEqual(again.resumes, [0.6]);
  assert.equal(server.received, 10);
  assert.deepEqual(rememberedUploads(storage), {});
});

test('a remembered upload the server no longer has starts again', async () => {
  const server = fakeServer();
  const storage = memoryStorage();
  remember(storage, fingerprint({ target: 'deck', name: 'talk.pdf', size: 10, lastModified: 1700000000000 }), '/api/v1/uploads/uexpired');
  const { o, resumes } = client(server, { storage, chunkBytes: 16 });
  await resumableUpload(file(10), o);
  assert.deepEqual(server.log.map((line) => line.split(' ')[0]), ['HEAD', 'POST', 'PATCH']);
  assert.deepEqual(resumes, []);
});

test('a refused file fails with the server\'s code and is forgotten', async () => {
  const server = fakeServer({ finish: () => ({ status: 415, body: { error: { code: 'unsupported_type', message: 'Not a deck.' } } }) });
  const { o } = client(server, { chunkBytes: 16 });
  await assert.rejects(resumableUpload(file(10), o), (error) => error.status === 415 && error.code === 'unsupported_type' && error.message === 'Not a deck.');
  assert.deepEqual(rememberedUploads(o.storage), {});
  const tooLarge = fakeServer();
  const refusing = async (method, ...rest) => (method === 'POST'
    ? { status: 413, header: () => null, body: '{"error":{"code":"too_large","message":"Too large."}}' }
    : tooLarge.request(method, ...rest));
  await assert.rejects(resumableUpload(file(10), client(tooLarge, { request: refusing }).o), (error) => error.code === 'too_large');
});

test('lost for good after about a minute of tries: fails with network, the upload still remembered', async () => {
  const server = fakeServer();
  const { o, waits, retries } = client(server, { chunkBytes: 4 });
  let calls = 0;
  o.request = async (...args) => {
    calls += 1;
    if (calls > 2) throw Object.assign(new Error('network'), { code: 'network' });
    return server.request(...args);
  };
  await assert.rejects(resumableUpload(file(10), o), (error) => error.code === 'network');
  assert.equal(waits.reduce((a, b) => a + b, 0), backoffSchedule().reduce((a, b) => a + b, 0));
  assert.deepEqual(retries.slice(0, 8), [1, 2, 1, 4, 3, 2, 1, 8]);
  assert.equal(Object.keys(rememberedUploads(o.storage)).length, 1);
});

test('the last answer lost: GET gives the result the upload kept', async () => {
  const server = fakeServer();
  server.loseLastAnswer = true;
  const { o } = client(server, { chunkBytes: 16 });
  const result = await resumableUpload(file(10), o);
  assert.deepEqual(result, { id: 'd1', title: 'Talk', jobId: 'j1' });
  assert.deepEqual(server.log.map((line) => line.split(' ')[0]), ['POST', 'PATCH', 'HEAD', 'GET']);
});

test('an offset mismatch goes on from the offset the 409 gives', async () => {
  const server = fakeServer();
  const { o } = client(server, { chunkBytes: 4 });
  let first = true;
  o.request = async (method, url, options) => {
    if (method === 'PATCH' && first) {
      first = false;
      const upload = server.uploads.get(url.split('/').pop());
      upload.offset = 4; // another tab's PATCH got there first
      server.received += 4;
    }
    return server.request(method, url, options);
  };
  await resumableUpload(file(10), o);
  assert.deepEqual(server.log.slice(1).map((line) => line.split(' @')[1]), ['0', '4', '8']);
  assert.equal(server.received, 10);
});

test('a 409 that moves nothing (the server still reads a cut-off request) waits, asks, and goes on', async () => {
  const server = fakeServer();
  const { o, waits, retries } = client(server, { chunkBytes: 4 });
  let busy = 2;
  o.request = async (method, url, options) => {
    if (method === 'PATCH' && busy > 0) {
      busy -= 1;
      const upload = server.uploads.get(url.split('/').pop());
      server.log.push('PATCH (busy)');
      return { status: 409, header: (name) => (name.toLowerCase() === 'upload-offset' ? String(upload.offset) : null), body: '{"error":{"code":"offset_mismatch"}}' };
    }
    return server.request(method, url, options);
  };
  const result = await resumableUpload(file(10), o);
  assert.equal(result.id, 'd1');
  assert.deepEqual(server.log.slice(1).map((line) => line.split(' ')[0]), ['PATCH', 'HEAD', 'PATCH', 'HEAD', 'PATCH', 'PATCH', 'PATCH']);
  assert.deepEqual(retries, [1, 2, 1]);
  assert.deepEqual(waits, [1000, 1000, 1000]);
  assert.equal(server.received, 10);
});

test('a server that stays busy for about a minute: fails with network, the upload still remembered', async () => {
  const server = fakeServer();
  const { o } = client(server, { chunkBytes: 4 });
  o.request = async (method, url, options) => (method === 'PATCH'
    ? { status: 409, header: (name) => (name.toLowerCase() === 'upload-offset' ? '0' : null), body: '' }
    : server.request(method, url, options));
  await assert.rejects(resumableUpload(file(10), o), (error) => error.code === 'network');
  assert.equal(Object.keys(rememberedUploads(o.storage)).length, 1);
});


test('the expiry the server gives is remembered, and an upload past it is not asked for again', async () => {
  const server = fakeServer();
  const expires = 'Mon, 30 Nov 2026 16:00:00 GMT';
  const withExpiry = async (...args) => {
    const response = await server.request(...args);
    return { ...response, header: (name) => (name.toLowerCase() === 'upload-expires' ? expires : response.header(name)) };
  };
  const storage = memoryStorage();
  const { o } = client(server, { storage, chunkBytes: 4, backoff: [] });
  let patches = 0;
  o.request = async (method, ...rest) => {
    if (patches > 0 || (method === 'PATCH' && ++patches > 1)) throw Object.assign(new Error('network'), { code: 'network' });
    return withExpiry(method, ...rest);
  };
  await assert.rejects(resumableUpload(file(10), o), (error) => error.code === 'network');
  const [entry] = Object.values(rememberedEntries(storage));
  assert.equal(entry.expires, Date.parse(expires));

  // The same file chosen the day after the server's expiry: a new upload, without asking for the old one.
  server.log.length = 0;
  const later = client(server, { storage, chunkBytes: 16, request: withExpiry, now: () => Date.parse(expires) + 1 });
  await resumableUpload(file(10), later.o);
  assert.deepEqual(server.log.map((line) => line.split(' ')[0]), ['POST', 'PATCH']);
  assert.deepEqual(rememberedUploads(storage), {}, 'forgotten once done');
});

test('pruning: expired entries go; unknown ones are asked: gone (404, 410) or finished go, others keep their expiry', async () => {
  const server = fakeServer();
  const storage = memoryStorage();
  const make = (offset, length) => {
    const id = 'u' + String(server.next++).padStart(32, '0');
    server.uploads.set(id, { length, offset, metadata: {}, result: null });
    return '/api/v1/uploads/' + id;
  };
  const receiving = make(4, 10);
  const finished = make(10, 10);
  remember(storage, 'expired', make(2, 10), 1000);
  remember(storage, 'future', make(3, 10), 5000);
  remember(storage, 'gone', '/api/v1/uploads/ugone');
  remember(storage, 'finished', finished);
  remember(storage, 'receiving', receiving);
  remember(storage, 'unreachable', '/api/v1/uploads/unreachable');
  storage.setItem(STORE_KEY, JSON.stringify({ ...JSON.parse(storage.getItem(STORE_KEY)), legacy: '/api/v1/uploads/ulegacy', gone410: { url: '/api/v1/uploads/u410', expires: null } }));
  const request = async (method, url, options) => {
    if (url.endsWith('/unreachable')) throw Object.assign(new Error('network'), { code: 'network' });
    if (url.endsWith('/u410')) return { status: 410, header: () => null, body: '' };
    const response = await server.request(method, url, options);
    return { ...response, header: (name) => (name.toLowerCase() === 'upload-expires' ? 'Mon, 30 Nov 2026 16:00:00 GMT' : response.header(name)) };
  };
  await pruneUploads({ storage, request, now: () => 2000 });
  const left = rememberedEntries(storage);
  assert.deepEqual(Object.keys(left).sort(), ['future', 'receiving', 'unreachable']);
  assert.equal(left.receiving.expires, Date.parse('Mon, 30 Nov 2026 16:00:00 GMT'));
  assert.equal(left.unreachable.expires, null);
  assert.equal(left.future.expires, 5000);
  // Only the entries without a known expiry were asked.
  assert.ok(!server.log.some((line) => line.includes(rememberedUploads(storage).future)));
});
