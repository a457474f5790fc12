/** Fixed one-minute windows per key (user, organisation token or IP), in memory. */
export type RateDecision = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number };

export function createRateLimiter(limitPerMinute: number, windowMs = 60_000) {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = Date.now();

  return function hit(key: string, now = Date.now()): RateDecision {
    if (now - lastSweep > windowMs) {
      // forget finished windows so memory stays bounded by active callers
      for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
      lastSweep = now;
    }
    let w = windows.get(key);
    if (!w || now - w.start >= windowMs) {
      w = { start: now, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    const allowed = w.count <= limitPerMinute;
    return {
      allowed,
      limit: limitPerMinute,
      remaining: Math.max(0, limitPerMinute - w.count),
      retryAfterSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)),
    };
  };
}
