// What the pure-module tests share: the browser client's modules loaded from Public/app (as ES
// modules, see esm-loader.mjs), the fixtures the Swift tests write (Tests/Fixtures, read as they
// are on disk), and the comparison the browser tests used (json_difference of
// Tests/Browser/run_browser_tests.py).
import { readFileSync } from 'node:fs';
import { register } from 'node:module';

const REPO = new URL('../../', import.meta.url);

register('./esm-loader.mjs', import.meta.url);

// What a page gives these modules and Node 18 (Debian 12's) lacks or has only in a browser: the
// page's address (live.js makes its socket's URL from it) and CustomEvent (Node 19 made it global).
globalThis.location ??= new URL('http://127.0.0.1:8080/');
globalThis.CustomEvent ??= class CustomEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.detail = init.detail ?? null;
  }
};

/** A module of the browser client, by its path under Public/app (e.g. `live/live.js`). */
export const app = (path) => import(new URL('Public/app/' + path, REPO).href);

/** A fixture of Tests/Fixtures, parsed. */
export const fixture = (name) => JSON.parse(readFileSync(new URL('Tests/Fixtures/' + name, REPO), 'utf8'));

/** A value as a page hands it back to a test: JSON (undefined members gone, a fresh copy). */
export const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

const dump = (value) => String(JSON.stringify(value)).slice(0, 200);
const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first place where two JSON values differ, or null. */
export function jsonDifference(expected, actual, path = 'value') {
  if (isRecord(expected) && isRecord(actual)) {
    for (const key of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
      if (!(key in actual)) return `${path}.${key}: missing in the browser (server: ${dump(expected[key])})`;
      if (!(key in expected)) return `${path}.${key}: only in the browser (${dump(actual[key])})`;
      const found = jsonDifference(expected[key], actual[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return `${path}: ${expected.length} items on the server, ${actual.length} in the browser`;
    for (let index = 0; index < expected.length; index += 1) {
      const found = jsonDifference(expected[index], actual[index], `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if ((typeof expected === 'boolean') !== (typeof actual === 'boolean') || expected !== actual) {
    return `${path}: server ${JSON.stringify(expected)}, browser ${JSON.stringify(actual)}`;
  }
  return null;
}
