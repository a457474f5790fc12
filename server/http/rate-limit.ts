/**
 * Fixed one-minute windows per key (user, organisation token or IP), counted in shared memory:
 * every HTTP thread of the server (KONTOR_HTTP_THREADS, server/serve.ts) counts in the same
 * table, so a caller gets its limit once, whichever thread its connections land on.
 *
 * The table is a SharedArrayBuffer of slots, open addressing: a key is known by its 64-bit hash
 * (two different keys sharing one is not a practical concern), a slot whose window has ended
 * is free again. One lock word guards it; a hit holds it for a few memory operations only.
 */
/** `resetAt`: Unix epoch seconds when the window ends and the budget is full again (X-RateLimit-Reset, as GitHub's API says it). */
export type RateDecision = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number; resetAt: number };

const SLOTS = 1 << 14; // callers with a window open at once before the oldest are forgotten
const PROBES = 32;
// per slot: hash high, hash low, count (Int32); window start in ms (Float64)
const INTS_PER_SLOT = 3;

/** The shared counters: make one per server and hand it to every thread's createRateLimiter. */
export function createRateLimitMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * 2 + SLOTS * INTS_PER_SLOT * 4 + SLOTS * 8);
}

export function createRateLimiter(limitPerMinute: number, memory: SharedArrayBuffer = createRateLimitMemory(), windowMs = 60_000) {
  const lock = new Int32Array(memory, 0, 2);
  const ints = new Int32Array(memory, 8, SLOTS * INTS_PER_SLOT);
  const starts = new Float64Array(memory, 8 + SLOTS * INTS_PER_SLOT * 4, SLOTS);

  /**
   * The slot of `key`'s current window: its own (started afresh if its window has passed), else
   * a free one, else the one whose window began first.
   */
  const slotOf = (high: number, low: number, now: number): number => {
    const home = (low >>> 0) & (SLOTS - 1);
    let oldest = home;
    for (let i = 0; i < PROBES; i++) {
      const slot = (home + i) & (SLOTS - 1);
      const at = slot * INTS_PER_SLOT;
      if (ints[at] === high && ints[at + 1] === low && starts[slot]! !== 0) {
        return now - starts[slot]! >= windowMs ? claim(slot, high, low, now) : slot;
      }
      if (starts[slot]! < starts[oldest]!) oldest = slot;
    }
    for (let i = 0; i < PROBES; i++) {
      const slot = (home + i) & (SLOTS - 1);
      if (now - starts[slot]! >= windowMs) return claim(slot, high, low, now);
    }
    return claim(oldest, high, low, now);
  };
  const claim = (slot: number, high: number, low: number, now: number): number => {
    const at = slot * INTS_PER_SLOT;
    ints[at] = high;
    ints[at + 1] = low;
    ints[at + 2] = 0;
    starts[slot] = now;
    return slot;
  };

  return function hit(key: string, now = Date.now()): RateDecision {
    const hash = BigInt.asUintN(64, BigInt(Bun.hash(key)));
    const high = Number(hash >> 32n) | 0;
    const low = Number(hash & 0xffffffffn) | 0;
    while (Atomics.compareExchange(lock, 0, 0, 1) !== 0); // spin: the holder is a few instructions from done
    let count: number;
    let start: number;
    try {
      const slot = slotOf(high, low, now);
      const at = slot * INTS_PER_SLOT;
      count = ++ints[at + 2]!;
      start = starts[slot]!;
    } finally {
      Atomics.store(lock, 0, 0);
    }
    return {
      allowed: count <= limitPerMinute,
      limit: limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
      resetAt: Math.ceil((start + windowMs) / 1000),
    };
  };
}
