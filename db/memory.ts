/**
 * What a connection remembers from the database until anything commits (its ChangeClock):
 * values (exact list counts, what a search looked up) and places (where a page read starts).
 * Bounded in entries and in text, so a connection's memory cannot grow without end.
 */
import type { ChangeClock } from "./clock.ts";

type Clock = Pick<ChangeClock, "mark">;

const MAX_REMEMBERED = 10_000;
/**
 * Text remembered at most (the ids a broad search matched can run to a megabyte); past it the
 * memory starts afresh, and a single text over a sixteenth of it is computed every time instead.
 */
const MAX_REMEMBERED_TEXT = 8 * 1024 * 1024;

export class CommitMemory<Place = unknown> {
  readonly #clock: Clock;
  #mark = "";
  #values = new Map<string, unknown>();
  #textLength = 0;
  #places = new Map<string, Place>();

  /** false: remember nothing (PostgreSQL: concurrent units on other connections read other snapshots, and another server's commit moves no mark) */
  readonly #enabled: boolean;

  constructor(clock: Clock, { enabled = true }: { enabled?: boolean } = {}) {
    this.#clock = clock;
    this.#enabled = enabled;
  }

  /** Forgets everything once anything has committed; call before using the memory. */
  refresh(): this {
    const mark = this.#clock.mark();
    if (mark !== this.#mark) {
      this.#mark = mark;
      this.#values = new Map();
      this.#textLength = 0;
      this.#places = new Map();
    }
    return this;
  }

  remember<T>(key: string, compute: () => T): T {
    if (!this.#enabled) return compute();
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = compute();
    const length = key.length + (typeof value === "string" ? value.length : 0);
    if (length > MAX_REMEMBERED_TEXT / 16) return value;
    if (this.#values.size >= MAX_REMEMBERED || this.#textLength + length > MAX_REMEMBERED_TEXT) {
      this.#values.clear();
      this.#textLength = 0;
    }
    this.#values.set(key, value);
    this.#textLength += length;
    return value;
  }

  /**
   * `remember` for what is read by awaiting: the value is kept once it has resolved (measured
   * like any other), a refusal is not kept, and nothing read before the memory started afresh is
   * kept after it.
   */
  async rememberAsync<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (!this.#enabled) return compute();
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const mark = this.#mark;
    const value = await compute();
    if (this.#mark !== mark) return value;
    return this.remember(key, () => value);
  }

  place(key: string): Place | undefined {
    return this.#places.get(key);
  }

  rememberPlace(key: string, place: Place): void {
    if (!this.#enabled) return;
    if (this.#places.size >= MAX_REMEMBERED) this.#places.clear();
    this.#places.set(key, place);
  }
}
