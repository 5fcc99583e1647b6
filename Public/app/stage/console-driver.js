// The stage driver as the pages that present set it up (the presenter console, a room's
// moderator and presenter pages): their stage, controls, thumbnails and ink bar by their ids,
// commands sent through the page's senders (live/commands.js), errors as a toast.

import { StageDriver } from './driver.js';
import { toast } from '../core/ui.js';

/**
 * @param {object} o  StageDriver's options (driver.js) without the elements, `send`,
 *   `sendForResult` and `error`; and `commands`, the page's senders ({send, sendForResult}).
 */
export function consoleDriver({ commands, ...options }) {
  const $ = (id) => document.getElementById(id);
  return new StageDriver({
    stage: $('stage'),
    stageWrap: $('stage-wrap'),
    controls: $('controls'),
    thumbs: $('thumbs'),
    inkBar: $('ink-bar'),
    send: (command) => commands.send(command),
    sendForResult: (command) => commands.sendForResult(command),
    error: (text) => toast(text, { kind: 'error' }),
    ...options,
  });
}
