/**
 * The units of work of one connection: every read and write of the connection runs in one, and
 * they take turns, one at a time (docs/architecture.md#units-of-work).
 *
 * bun:sqlite answers synchronously, but a unit's work is async (so the same command runs on an
 * engine whose client is not): between two of its awaits, other requests of the same thread
 * may run. On one SQLite connection, they would run inside the open transaction (reading what
 * it has not committed, committing or rolling back with it). So a unit waits until the
 * connection is free, and holds it until its COMMIT or ROLLBACK; a unit started inside another
 * (the same async context, known by AsyncLocalStorage) is a savepoint of it instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database, Statement } from "bun:sqlite";
import type { Tx, UnitKind, UnitRunner } from "./types.ts";

export type { UnitKind } from "./types.ts";

/** The unit the running code belongs to: a token per unit, so that a callback it left behind (a timer, a promise it did not await) is not taken for part of it once it has ended. */
const current = new AsyncLocalStorage<object>();

export class Transactions implements UnitRunner {
  readonly #client: Database;
  /** what a unit's work is handed: the connection's database itself (every query of the connection is in its transaction) */
  #tx: Tx | null = null;
  readonly #begin: Record<UnitKind, Statement>;
  readonly #commit: Statement;
  readonly #rollback: Statement;
  #turn: Int32Array | null = null;
  /** a unit holds the connection */
  #held = false;
  /** units waiting for it, first come first served */
  readonly #waiting: (() => void)[] = [];
  /** the token of the unit holding the connection */
  #active: object | null = null;
  /** what waits for the open unit's end (a wake-up of the outbox worker) */
  #afterCommit: (() => void)[] = [];
  #savepoints = 0;

  constructor(client: Database) {
    this.#client = client;
    // compiled once per connection (drizzle's own `transaction` compiles BEGIN and COMMIT on every
    // call); by `query`, whose statements the connection finalizes when it closes (a `prepare`d
    // one would keep it open, and its -shm file with it)
    this.#begin = { deferred: client.query("BEGIN DEFERRED"), immediate: client.query("BEGIN IMMEDIATE") };
    this.#commit = client.query("COMMIT");
    this.#rollback = client.query("ROLLBACK");
  }

  attach(tx: Tx): void {
    this.#tx = tx;
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

  /**
   * Runs `effect` once the open unit has ended: after its COMMIT (or its ROLLBACK: an effect
   * such as a wake-up must not be lost, and one after a rollback finds nothing new), or, outside
   * a unit, in a microtask.
   */
  afterCommit(effect: () => void): void {
    if (this.#active !== null) this.#afterCommit.push(effect);
    else queueMicrotask(effect);
  }

  /** Whether the caller runs inside a unit of this connection. */
  get inUnit(): boolean {
    return this.#active !== null && current.getStore() === this.#active;
  }

  /**
   * Runs `work` as one unit: one transaction, which commits when `work` resolves and rolls back
   * when it throws; inside a unit of this connection, a savepoint of it.
   */
  async run<T>(kind: UnitKind, work: (tx: Tx) => T | Promise<T>): Promise<T> {
    if (this.inUnit) return this.#savepoint(() => work(this.#tx!));
    if (this.#held) await new Promise<void>((resume) => this.#waiting.push(resume));
    else this.#held = true;
    // the connection is ours (handed over by the previous unit without being freed in between)
    const turn = kind === "immediate" ? this.#turn : null;
    try {
      if (turn) while (Atomics.compareExchange(turn, 0, 0, 1) !== 0) Atomics.wait(turn, 0, 1, 100);
      try {
        if (this.#client.inTransaction) throw new Error("a transaction was opened on this connection outside a unit of work");
        this.#begin[kind].run();
        const token = {};
        this.#active = token;
        try {
          const result = await current.run(token, () => work(this.#tx!));
          this.#commit.run();
          return result;
        } catch (error) {
          // a refused unit, or a COMMIT that failed
          if (this.#client.inTransaction) this.#rollback.run();
          throw error;
        } finally {
          this.#active = null;
          this.#runAfterCommit();
        }
      } finally {
        if (turn) {
          Atomics.store(turn, 0, 0);
          Atomics.notify(turn, 0, 1);
        }
      }
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#held = false;
    }
  }

  /**
   * Runs `work` in one write transaction: for migrations at start, before the connection serves
   * anything (no unit can be open then).
   */
  async runAtStart<T>(work: (tx: Tx) => T | Promise<T>): Promise<T> {
    if (this.#held) throw new Error("runAtStart while a unit of work holds the connection");
    this.#begin.immediate.run();
    try {
      const result = await work(this.#tx!);
      this.#commit.run();
      return result;
    } catch (error) {
      if (this.#client.inTransaction) this.#rollback.run();
      throw error;
    }
  }

  #runAfterCommit(): void {
    const effects = this.#afterCommit;
    this.#afterCommit = [];
    for (const effect of effects) effect();
  }

  async #savepoint<T>(work: () => T | Promise<T>): Promise<T> {
    const name = `unit_${++this.#savepoints}`;
    this.#client.run(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      this.#client.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.#client.run(`ROLLBACK TO ${name}`);
      this.#client.run(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
    }
  }
}
