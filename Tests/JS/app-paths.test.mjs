// Every address of the browser client that something names is there: the modules and stylesheets
// each module of Public/app names (relative, or absolute under /app/), the scripts, stylesheets
// and icon each page (Public/*.html) links, and the /app/ addresses the server writes into the
// pages it makes itself (the channel's share pages). A file moved without everything that names
// it following shows here, by name, rather than as a blank page in a browser.
import assert from 'node:assert/strict';
import test from 'node:test';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PUBLIC = join(REPO, 'Public');

/** The files below `dir` whose names end in `ending`. */
function filesBelow(dir, ending) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(path, ending);
    return entry.isFile() && entry.name.endsWith(ending) ? [path] : [];
  });
}

/** Where an /app/… address is on disk. */
const served = (address) => join(PUBLIC, address.split(/[?#]/)[0]);

/** "file: address" for each address `text` names that is not there. */
function missing(file, addresses, locate) {
  return addresses.filter((address) => !existsSync(locate(address))).map((address) => `${relative(REPO, file)}: ${address}`);
}

test('every module and stylesheet a module of the browser client names is there', () => {
  const modules = filesBelow(join(PUBLIC, 'app'), '.js');
  assert.ok(modules.length > 50, `only ${modules.length} modules found`);
  const absent = modules.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    // import … from '…', import '…', import('…') (in code and in the JSDoc types).
    const imports = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm)]
      .map((match) => match[2])
      .filter((spec) => (spec.startsWith('.') || spec.startsWith('/app/')) && !spec.endsWith('/'));
    const named = [...text.matchAll(/(['"])(\/app\/[^'"]+\.(?:js|css|svg))\1/g)].map((match) => match[2]);
    return missing(file, [...imports, ...named], (spec) => (spec.startsWith('/app/') ? served(spec) : resolve(dirname(file), spec)));
  });
  assert.deepEqual(absent, []);
});

test('every script, stylesheet and icon a page links is there', () => {
  const pages = filesBelow(PUBLIC, '.html');
  assert.ok(pages.length > 10, `only ${pages.length} pages found`);
  const absent = pages.flatMap((file) => {
    const links = [...readFileSync(file, 'utf8').matchAll(/\b(?:src|href)="(\/app\/[^"]+)"/g)].map((match) => match[1]);
    return missing(file, links, served);
  });
  assert.deepEqual(absent, []);
});

test('the /app/ addresses the server writes into its own pages are there', () => {
  const sources = filesBelow(join(REPO, 'Sources'), '.swift');
  const absent = sources.flatMap((file) => {
    const links = [...readFileSync(file, 'utf8').matchAll(/\b(?:src|href)=\\?"(\/app\/[^"\\]+)\\?"/g)].map((match) => match[1]);
    return missing(file, links, served);
  });
  assert.deepEqual(absent, []);
});
