/**
 * The outbox's wake-up: a counter in shared memory that a connection moves once a transaction
 * that queued webhook deliveries has committed, and that the webhook worker waits on. The HTTP
 * threads of one server share the counter with the worker's thread (`share`), so a change
 * answered by any thread wakes the worker at once instead of at its next tick.
 */
export class OutboxSignal {
  #counter = new Int32Array(new SharedArrayBuffer(4));
  #pending = false;
  readonly #whenCommitted: (effect: () => void) => void;

  /** `whenCommitted`: runs an effect once the connection's open unit of work has committed. */
  constructor(whenCommitted: (effect: () => void) => void) {
    this.#whenCommitted = whenCommitted;
  }

  /** Moves the counter of `memory` (4 bytes) from now on: that of the server's other threads. */
  share(memory: SharedArrayBuffer): void {
    this.#counter = new Int32Array(memory, 0, 1);
  }

  /**
   * Deliveries were queued in the current unit of work: tell the worker once it has committed
   * (woken before, a worker on another thread would find nothing yet and wait for its next tick).
   * After a rollback the worker is woken all the same and finds nothing new: harmless.
   */
  queued(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#whenCommitted(() => {
      this.#pending = false;
      Atomics.add(this.#counter, 0, 1);
      Atomics.notify(this.#counter, 0);
    });
  }

  /** Calls `listener` after every `queued()` of any thread sharing the counter, until the returned stop. */
  subscribe(listener: () => void): () => void {
    let counter = this.#counter;
    let stopped = false;
    let seen = Atomics.load(counter, 0);
    const wait = (): void => {
      if (stopped) return;
      // the counter shared since (share() after subscribe) is the one to wait on
      if (counter !== this.#counter) {
        counter = this.#counter;
        seen = Atomics.load(counter, 0);
      }
      const waiting = Atomics.waitAsync(counter, 0, seen);
      const woken = () => {
        if (stopped) return;
        const now = Atomics.load(counter, 0);
        if (now !== seen) {
          seen = now;
          listener();
        }
        wait();
      };
      if (waiting.async) void waiting.value.then(woken);
      else woken();
    };
    wait();
    return () => {
      stopped = true;
      // releases the pending wait (other subscribers see no change and wait again)
      Atomics.notify(counter, 0);
    };
  }
}
