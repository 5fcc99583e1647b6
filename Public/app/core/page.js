// How a page starts. A page's entry module (the one its Public/*.html names) wires the page's
// features together and ends with `startPage(start)`: the steps every page takes first are here,
// the page's own first steps (reading its address, signing in, loading) are its `start`.

import { currentUser, goToLogin } from './api.js';
import { hydrateIcons } from './ui.js';

/**
 * Starts the page: the icons its HTML names (`data-icon`) are drawn, then `start` runs (once the
 * entry module has set everything up, so `start` may use all of it). Returns what `start` returns.
 */
export function startPage(start) {
  hydrateIcons();
  return start();
}

/** The code or id in the page's address: /present/{code}, /r/{code}/…, /s/{code}, /decks/{id}. */
export function addressPart() {
  return decodeURIComponent(location.pathname.split('/')[2] || '');
}

/**
 * The signed-in account of a page that needs one, or null once the page has been dealt with:
 * nobody signed in goes to the sign-in page (and comes back here after); a server that cannot
 * be asked is the page's to say, by `unreachable(error)`.
 */
export async function signedInUser(unreachable) {
  let user;
  try {
    user = await currentUser();
  } catch (error) {
    unreachable(error);
    return null;
  }
  if (!user) goToLogin();
  return user;
}
