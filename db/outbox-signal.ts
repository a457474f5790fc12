/**
 * The outbox's wake-up: a counter in shared memory that a connection moves once a transaction
 * that queued webhook deliveries has committed, and that the webhook worker waits on. The HTTP
 * threads of one server share the counter with the worker's thread (`share`), so a change
 * answered by any thread wakes the worker at once instead of at its next tick.
 *
 * Across processes (several servers on one PostgreSQL database) the engine carries it: a unit that
 * queued deliveries announces it (`announce`: PostgreSQL's NOTIFY, sent with the commit), and a
 * process whose worker subscribes listens (`listen`: LISTEN on one connection of its own) and
 * moves its counter. A notification only wakes: the worker's claim stays the truth, and its tick
 * each second is the fallback.
 */
export type OutboxAcrossProcesses = {
  /** called in the unit that queued deliveries: tells other processes once it commits */
  announce(): void;
  /** starts waking this process's counter on other processes' announcements; resolves to how to stop */
  listen(wake: () => void): Promise<() => Promise<void>>;
};

export class OutboxSignal {
  #counter = new Int32Array(new SharedArrayBuffer(4));
  #pending = false;
  readonly #whenCommitted: (effect: () => void) => void;
  readonly #acrossProcesses: OutboxAcrossProcesses | null;
  #listening: Promise<() => Promise<void>> | null = null;
  /** how the last LISTEN went: a failure is kept for `listening()` to tell, while the tick keeps the worker going */
  #listened: Promise<unknown> = Promise.resolve();
  #subscribers = 0;

  /** `whenCommitted`: runs an effect once the connection's open unit of work has committed. */
  constructor(whenCommitted: (effect: () => void) => void, acrossProcesses: OutboxAcrossProcesses | null = null) {
    this.#whenCommitted = whenCommitted;
    this.#acrossProcesses = acrossProcesses;
  }

  /** Resolves once this process listens for other processes' announcements (at once when it does not). */
  async listening(): Promise<void> {
    await this.#listened;
  }

  /** Moves the counter: what waits on it (a worker of any thread sharing it) looks for work. */
  wake(): void {
    Atomics.add(this.#counter, 0, 1);
    Atomics.notify(this.#counter, 0);
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
    this.#acrossProcesses?.announce();
    if (this.#pending) return;
    this.#pending = true;
    this.#whenCommitted(() => {
      this.#pending = false;
      this.wake();
    });
  }

  /** Calls `listener` after every `queued()` of any thread sharing the counter, until the returned stop. */
  subscribe(listener: () => void): () => void {
    if (this.#acrossProcesses && this.#subscribers++ === 0) {
      const listened = this.#acrossProcesses.listen(() => this.wake());
      this.#listened = listened;
      this.#listening = listened.catch(() => async () => {});
    }
    let counter = this.#counter;
    let stopped = false;
    let seen = Atomics.load(counter, 0);
    // the listener once per move of the counter
    const look = (): void => {
      if (stopped) return;
      const now = Atomics.load(counter, 0);
      if (now !== seen) {
        seen = now;
        listener();
      }
    };
    const wait = (): void => {
      if (stopped) return;
      // the counter shared since (share() after subscribe) is the one to wait on
      if (counter !== this.#counter) {
        counter = this.#counter;
        seen = Atomics.load(counter, 0);
      }
      const waiting = Atomics.waitAsync(counter, 0, seen);
      const woken = () => {
        look();
        if (!stopped) wait();
      };
      if (waiting.async) void waiting.value.then(woken);
      else woken();
    };
    wait();
    return () => {
      if (stopped) return;
      if (this.#acrossProcesses && --this.#subscribers === 0) {
        const listening = this.#listening;
        this.#listening = null;
        void listening?.then((stop) => stop());
      }
      stopped = true;
      // releases the pending wait (other subscribers see no change and wait again)
      Atomics.notify(counter, 0);
    };
  }
}
