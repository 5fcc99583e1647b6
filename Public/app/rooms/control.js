// Who holds a room's stage, read from a page's live client (docs/protocol.md, "Rooms"): the one
// reading of the room and its control that the moderator's page and the presenters' pages share.

/** The room in the live state, or null (before the welcome). */
export function roomOf(live) {
  return (live && live.state.room) || null;
}

/** The room's control (its presenters, the queue, who is active), empty before the welcome. */
export function controlOf(live) {
  const room = roomOf(live);
  return (room && room.control) || { presenters: [], queue: [] };
}

/** The moderator drives the stage while nobody holds control (and the room has not ended). */
export function moderatorDrives(live, ended) {
  return Boolean(roomOf(live)) && !controlOf(live).active && !ended;
}

/** A presenter drives the stage while they hold control (and the room has not ended). */
export function presenterDrives(live, presenterId, ended) {
  return Boolean(presenterId) && controlOf(live).active === presenterId && !ended;
}

/** Calls `onChange(ids)` (a Set of presenter ids) whenever the room says which presenters have a socket open. */
export function watchRoomPresence(live, onChange) {
  live.addEventListener('message', (event) => {
    if (event.detail.type === 'roomPresence') onChange(new Set(event.detail.connected || []));
  });
}
