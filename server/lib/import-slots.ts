/**
 * At most `KONTOR_IMPORT_CONCURRENCY` (default 2) uploaded files parsed at once per server, on all
 * its HTTP threads together: an XML or PDF parse holds several times the file's size in memory
 * while it runs (docs/payables.md#size-memory-and-concurrency), so the number of parses, not of requests, is what
 * bounds the server's memory. The count lives in shared memory (one Int32 of SharedState), taken
 * with compare-and-swap; a further upload waits for a free slot up to `waitMs` (10 s), then is
 * answered 503 with `Retry-After`, rather than queueing without bound.
 */
import { ServiceUnavailable } from "./errors.ts";

/** How long an upload waits for a parse slot before its 503. */
export const IMPORT_WAIT_MS = 10_000;
/** What the 503 asks a client to wait before trying again, in seconds. */
export const IMPORT_RETRY_AFTER_SECONDS = 5;

export function createImportSlotMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

export class ImportSlots {
  readonly #taken: Int32Array;

  constructor(
    memory: SharedArrayBuffer,
    readonly limit: number,
    readonly waitMs = IMPORT_WAIT_MS,
  ) {
    this.#taken = new Int32Array(memory);
  }

  /** Runs `work` once a slot is free (the slot held until it settles); 503 when none frees within waitMs. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    await this.#take();
    try {
      return await work();
    } finally {
      // a parse leaves tens of MB of garbage on this thread's heap: collected before the slot frees,
      // so that the next parse (on any thread) does not stack its peak on this one's leftovers
      Bun.gc(true);
      Atomics.sub(this.#taken, 0, 1);
      Atomics.notify(this.#taken, 0, 1);
    }
  }

  async #take(): Promise<void> {
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      const taken = Atomics.load(this.#taken, 0);
      if (taken < this.limit) {
        if (Atomics.compareExchange(this.#taken, 0, taken, taken + 1) === taken) return;
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new ServiceUnavailable(
          `The server is parsing ${this.limit} uploaded files already (KONTOR_IMPORT_CONCURRENCY) and none finished within ${this.waitMs / 1000} s; try again in a few seconds.`,
          IMPORT_RETRY_AFTER_SECONDS,
        );
      }
      // woken by a release on any thread; the timeout also covers a release between the load and the wait
      const waiting = Atomics.waitAsync(this.#taken, 0, taken, Math.min(left, 250));
      if (waiting.async) await waiting.value;
    }
  }
}
