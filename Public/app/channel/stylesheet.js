// A section's own stylesheet, added to the page once when the section is first shown (the
// channel's pages load only the shared styles up front).

/** Adds `<link rel=stylesheet href>` unless the page has it; resolves once it has loaded. */
export function useStylesheet(href) {
  const existing = document.querySelector(`link[rel="stylesheet"][href="${href}"]`);
  if (existing) return Promise.resolve();
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  const loaded = new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  });
  document.head.append(link);
  return loaded;
}
