// The browser client's scripts (Public/app/**/*.js) are ES modules, but Node takes a `.js` file
// outside a `"type": "module"` package for CommonJS. This hook, registered by support.mjs, loads
// them as the browser does, so the tests import the very files the server serves.
const APP = new URL('../../Public/app/', import.meta.url).href;

export async function load(url, context, nextLoad) {
  if (url.startsWith(APP) && url.endsWith('.js')) return nextLoad(url, { ...context, format: 'module' });
  return nextLoad(url, context);
}
