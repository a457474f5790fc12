/**
 * Transactions of a connection, and the turns its writes take with the other HTTP threads'.
 */
import type { Database } from "bun:sqlite";

type Runner = (work: () => unknown) => unknown;

export class Transactions {
  readonly #client: Database;
  readonly #deferred: Runner;
  readonly #immediate: Runner;
  #turn: Int32Array | null = null;

  constructor(client: Database) {
    this.#client = client;
    // bun:sqlite's own wrapper: its BEGIN and COMMIT are prepared once per connection, where
    // drizzle's `transaction` compiles them on every call (a sizeable share of a small read)
    const wrapped = client.transaction((run: () => unknown) => run());
    this.#deferred = wrapped.deferred;
    this.#immediate = wrapped.immediate;
  }

  /**
   * Makes the connection's write transactions take turns with those of the other connections
   * given the same `memory` (a SharedArrayBuffer of 4 bytes): the HTTP threads of one server.
   * A thread waiting for SQLite's write lock sleeps in SQLite's busy handler, 1 to 100 ms at a
   * time, and its whole event loop with it; waiting here, it is woken the moment the other
   * commits. Other processes (the CLI, a separate worker) still meet at SQLite's lock.
   */
  shareWriteTurns(memory: SharedArrayBuffer): void {
    this.#turn = new Int32Array(memory, 0, 1);
  }

  /** Runs `work` in one transaction (a savepoint when one is open already). */
  run<T>(behavior: "deferred" | "immediate", work: () => T): T {
    const turn = behavior === "immediate" && !this.#client.inTransaction ? this.#turn : null;
    if (!turn) return (behavior === "deferred" ? this.#deferred : this.#immediate)(work) as T;
    while (Atomics.compareExchange(turn, 0, 0, 1) !== 0) Atomics.wait(turn, 0, 1, 100);
    try {
      return this.#immediate(work) as T;
    } finally {
      Atomics.store(turn, 0, 0);
      Atomics.notify(turn, 0, 1);
    }
  }
}
