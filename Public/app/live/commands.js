// How a page that drives a live session sends its commands (the presenter console, a room's
// moderator and presenter pages): a command goes out on the page's live client, <body
// data-pending> counts what the server has not answered yet (tests wait for 0), and once the
// answer comes the page takes the server's state again (`reconcile`). What a refusal looks like
// is the page's: a toast, a line in a card, the ended overlay.

/** How many commands await the server's ack, on <body data-pending>. */
export function markPending(live) {
  document.body.dataset.pending = String(live ? live.pendingCount : 0);
}

/**
 * The page's senders.
 *
 * @param {object} o
 * @param {() => object|null} o.live       the page's live client (null before it connects)
 * @param {() => boolean} o.closed         nothing more is sent (the session ended)
 * @param {() => void} o.reconcile         takes the server's state (after every answer)
 * @param {(ack:object) => void} [o.accepted]   a command of `send` was accepted
 * @param {(error:object) => void} [o.refused]  a command of `send` was refused (not `ended` when o.ended is given)
 * @param {() => void} [o.ended]           the server says the session has ended (both senders)
 * @param {(error:object) => string} [o.errorText] words for an ink command's refusal (else the error as it came)
 * @returns {{send: (command:object) => Promise<object|null>, sendForResult: (command:object) => Promise<object>}}
 */
export function liveCommands({ live, closed, reconcile, accepted = () => {}, refused = () => {}, ended = null, errorText = null }) {
  const isEnded = (error) => Boolean(ended) && Boolean(error) && error.code === 'ended';
  return {
    /** Sends a command; resolves with its ack, or null when it was refused (or not sent). */
    send(command) {
      if (!live() || closed()) return Promise.resolve(null);
      const client = live();
      const sent = client.send(command);
      markPending(client);
      return sent.then((ack) => {
        accepted(ack);
        reconcile();
        return ack;
      }, (error) => {
        if (isEnded(error)) ended();
        else refused(error);
        reconcile();
        return null;
      });
    },
    /** Sends a command and hands its outcome back (ink keeps its strokes until they are answered). */
    sendForResult(command) {
      if (!live() || closed()) return Promise.reject({ code: 'ended', message: '' });
      const client = live();
      const sent = client.send(command);
      markPending(client);
      sent.then(reconcile, (error) => {
        if (isEnded(error)) ended();
        reconcile();
      });
      return errorText ? sent.catch((error) => Promise.reject({ code: error.code, message: errorText(error) })) : sent;
    },
  };
}
