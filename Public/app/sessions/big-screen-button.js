// The console's big screen: the "Big screen" button that opens the session's screen
// (/s/{code}/screen, screen.js) for the projector, and "Present join info" (J), which
// shows the join code and QR code on every big screen and over the console's stage.
//
//   const bigScreen = mountBigScreenButton({ code, button, presentJoin, joinScreen, send });
//   bigScreen.attach(live, info);   // once the socket and the session's REST info exist
//
// Opening: where the browser can place windows (the Window Management API, Chromium's
// `getScreenDetails()`, with a second display attached), the window opens on the other display,
// filling it; elsewhere a plain new window. Either way a hint says what to do by hand (drag it to
// the projector, press F for full screen), or, when pop-ups are blocked, gives the link.
//
// Join info is session state (`showJoinInfo` / the `joinInfo` event, docs/protocol.md): the
// screens learn it from the socket, a screen opened later from its snapshot.
//
// A big screen opened in this browser (the usual case: a window on the laptop's second display)
// says so on a BroadcastChannel (big-screen.js); the console's video goes quiet while it is open,
// so the sound comes from one place only.
//
// State for tests: #big-screen[data-opened] (how the last window opened: placed, window, blocked),
// #big-screen-hint (the hint, hidden when closed), #present-join[aria-pressed].

import { t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { mountVideo } from '../media/video-stage.js';

/** Where the other display is, when the browser can tell (and may be asked); null otherwise. */
export async function otherScreen(win = window) {
  if (typeof win.getScreenDetails !== 'function') return null;
  // One display only: nothing to place the window on (and no permission prompt for nothing).
  if (win.screen && win.screen.isExtended === false) return null;
  try {
    const details = await win.getScreenDetails();
    const other = details.screens.find((screen) => screen !== details.currentScreen && !screen.isPrimary)
      || details.screens.find((screen) => screen !== details.currentScreen);
    return other || null;
  } catch (_) {
    return null; // refused, or not allowed here
  }
}

/** Opens the big screen: on the other display when it can, else a plain new window. */
export async function openBigScreen(url, name, win = window) {
  const other = await otherScreen(win);
  if (other) {
    const features = `popup,left=${other.availLeft},top=${other.availTop},width=${other.availWidth},height=${other.availHeight}`;
    const opened = win.open(url, name, features);
    if (opened) return { how: 'placed', window: opened };
  }
  const opened = win.open(url, name, 'popup,width=1280,height=720');
  return { how: opened ? 'window' : 'blocked', window: opened };
}

export function mountBigScreenButton({ code, button, presentJoin, joinScreen, send }) {
  let live = null;
  // Opened on this console's own address, so the presenter's cookie comes along (no passcode);
  // the server's public link is what the hint offers for another machine.
  const url = '/s/' + encodeURIComponent(code) + '/screen';
  let link = location.origin + url;
  let localJoin = false; // before the socket is up, the console's overlay alone

  const hint = el('div', { class: 'big-screen-hint', attrs: { id: 'big-screen-hint', role: 'status', 'aria-live': 'polite' } });
  hint.hidden = true;
  document.body.append(hint);

  function closeHint() {
    hint.hidden = true;
  }

  function showHint(how) {
    const close = el('button', {
      class: 'btn btn-sm btn-icon big-screen-hint-close',
      attrs: { type: 'button', 'aria-label': t('common.close'), title: t('common.close') },
    }, [icon('x', 16)]);
    close.addEventListener('click', closeHint);
    const parts = [el('strong', { text: t('live.screen.hint-title') })];
    if (how === 'blocked') {
      parts.push(el('p', { text: t('live.screen.blocked') }));
      parts.push(el('a', { text: link.replace(/^https?:\/\//, ''), attrs: { href: url, target: '_blank', rel: 'noopener', 'data-role': 'screen-link' } }));
    } else {
      parts.push(el('p', { text: how === 'placed' ? t('live.screen.placed') : t('live.screen.by-hand') }));
    }
    hint.replaceChildren(close, ...parts);
    // Under the button, inside the window.
    const box = button.getBoundingClientRect();
    hint.style.top = Math.round(box.bottom + 8) + 'px';
    hint.hidden = false;
  }

  button.addEventListener('click', async () => {
    const result = await openBigScreen(url, 'podium-screen-' + code);
    button.dataset.opened = result.how;
    showHint(result.how);
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !hint.hidden) closeHint();
  });
  document.addEventListener('pointerdown', (event) => {
    if (!hint.hidden && !hint.contains(event.target) && !button.contains(event.target)) closeHint();
  });

  // ---- Present join info: on the screens and over the console's stage ----

  function joinShown() {
    if (!live || live.lastSeq === null) return localJoin;
    return Boolean(live.state.joinInfo) && !live.state.ended;
  }

  function render() {
    const shown = joinShown();
    joinScreen.hidden = !shown;
    presentJoin.setAttribute('aria-pressed', String(shown));
  }

  function setJoin(on) {
    if (!live || live.lastSeq === null) {
      localJoin = on;
      render();
      return;
    }
    send({ type: 'showJoinInfo', on });
  }

  presentJoin.addEventListener('click', () => setJoin(!joinShown()));
  joinScreen.addEventListener('click', () => setJoin(false));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && joinShown()) setJoin(false);
  });

  // ---- one sound: a screen open in this browser plays it, the console is quiet meanwhile ----

  let quietened = false;
  function listenForScreens() {
    let channel;
    try {
      channel = new BroadcastChannel('podium.screen.' + code);
    } catch (_) {
      return; // no BroadcastChannel: the console keeps its sound
    }
    // The video screen the stage driver put over the stage (the join overlay's container).
    const video = () => mountVideo({ container: joinScreen.parentElement });
    channel.onmessage = (event) => {
      const type = event.data && event.data.type;
      if (type === 'screen-open' && !quietened && video().wantsSound) {
        quietened = true;
        video().setSound(false);
      } else if (type === 'screen-closed' && quietened) {
        quietened = false;
        video().setSound(true);
      }
    };
    channel.postMessage({ type: 'who' });
  }

  return {
    /** Follows the session's socket; `info` (its REST answer) has the screen's link. */
    attach(socket, info) {
      live = socket;
      if (info && info.screenUrl) link = info.screenUrl;
      for (const type of ['welcome', 'change', 'sync']) live.addEventListener(type, render);
      render();
      listenForScreens();
    },
  };
}
