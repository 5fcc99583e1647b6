// The big screen of a session: /s/{code}/screen (big-screen.js). What the console opens on the
// projector ("Big screen"): content only, the slide best fit; the join code and QR code until
// the presenter first moves (nothing shown yet), and whenever they present the join info.
// Not counted as a viewer; the presenter's own browser needs no passcode.

import { t, errorText } from '../core/i18n.js';
import { cleanCode } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { mountBigScreen } from '../stage/big-screen.js';

const code = cleanCode(addressPart()).code;

startPage(() => mountBigScreen({
  code,
  storageKey: 'podium.screen.' + code,
  texts: {
    gateButton: t('live.screen.show-the-session'),
    passcodePrompt: t('live.screen.passcode'),
    notFound: t('live.screen.no-session', { code }),
    documentTitle: (title) => t('live.screen.document-title', { title }),
    errorText,
  },
  audience: (info) => info.joinUrl,
  // Before the presenter's first move (no event yet), or with nothing to show: how to join.
  isIdle: (live) => !live.lastSeq || (!live.state.playback && !(live.session && live.session.pageCount)),
  // A room's code: its big screen is the room's projector.
  onInfo: (info) => {
    if (info.kind !== 'room') return true;
    location.replace('/r/' + encodeURIComponent(code) + '/projector');
    return false;
  },
}));
