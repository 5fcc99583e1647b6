// The recorder's pure parts (media/recorder.js), with no page around them, so Node tests them
// (Tests/JS/recorder.test.mjs): the queue that sends a take's chunks in order until each is
// acknowledged, and the on-air indicator's time.

const RETRY_FIRST = 500; // ms, doubled up to RETRY_MOST
const RETRY_MOST = 8000;

/** `m:ss` (or `h:mm:ss`) of a number of seconds. */
export function elapsedText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? h + ':' + String(m).padStart(2, '0') + ':' + rest : m + ':' + rest;
}

/**
 * Chunks of one take sent in order, each until the server acknowledged it. `put(n, blob)`
 * resolves when taken and rejects with the ApiError otherwise; a network failure or a 5xx is
 * tried again (after RETRY_FIRST ms, doubling), a `chunk_out_of_order` naming a later chunk skips
 * what the server has already, anything else stops the queue (`onFatal`).
 */
export class ChunkQueue {
  constructor(put, { onFatal = () => {}, onChange = () => {}, wait = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
    this.put = put;
    this.onFatal = onFatal;
    this.onChange = onChange;
    this.wait = wait;
    this.pending = []; // {n, blob}
    this.next = 0;
    this.running = null;
    this.failed = null;
    this.wake = null;
  }

  push(blob) {
    if (this.failed) return;
    this.pending.push({ n: this.next, blob });
    this.next += 1;
    this.onChange();
    this.pump();
  }

  /** Resolves once every chunk pushed so far is acknowledged (or the queue failed). */
  drained() {
    return this.pump();
  }

  /** Tries again now (the browser came back online). */
  retryNow() {
    if (this.wake) this.wake();
  }

  pump() {
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  async run() {
    let delay = RETRY_FIRST;
    while (this.pending.length && !this.failed) {
      const chunk = this.pending[0];
      try {
        await this.put(chunk.n, chunk.blob);
        this.pending.shift();
        delay = RETRY_FIRST;
        this.onChange();
      } catch (error) {
        const expected = error && error.detail && error.detail.expected;
        if (error && error.code === 'chunk_out_of_order' && typeof expected === 'number' && expected > chunk.n) {
          this.pending.shift(); // the server has it already (its answer was lost)
          this.onChange();
          continue;
        }
        const transient = !error || error.status === 0 || error.status >= 500 || error.status === 429 || error.status === 408;
        if (!transient) {
          this.failed = error;
          this.onFatal(error);
          return;
        }
        await Promise.race([this.wait(delay), new Promise((resolve) => { this.wake = resolve; })]);
        this.wake = null;
        delay = Math.min(delay * 2, RETRY_MOST);
      }
    }
  }
}
