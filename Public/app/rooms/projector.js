// The projector of a room: /r/{code}/projector, the room's big screen (big-screen.js). Content
// only: the slide on the stage, best fit and centred, margins in the room's background colour;
// while no deck is on the stage (or the moderator shows the join info), a big QR code, the join
// code and the audience link. Not counted as a viewer; the moderator's own browser needs no passcode.

import { t } from '../core/i18n.js';
import { cleanCode } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { stageDeck, roomLinks, errorText } from './common.js';
import { mountBigScreen } from '../stage/big-screen.js';
import './timer-overlay.js'; // the talk's countdown, when the chair shows it

const code = cleanCode(addressPart()).code;

startPage(() => mountBigScreen({
  code,
  storageKey: 'podium.projector.' + code,
  texts: {
    gateButton: t('rooms.show-the-room'),
    passcodePrompt: t('rooms.projector-passcode'),
    notFound: t('rooms.no-room-with-code', { code }),
    documentTitle: (title) => t('rooms.projector-document-title', { title }),
    errorText,
  },
  audience: (info) => roomLinks(info).audience,
  isIdle: (live) => !stageDeck(live.state),
  // The margins around a slide of another shape: the room's colour.
  background: (state) => (state.room && state.room.background) || '#000000',
}));
