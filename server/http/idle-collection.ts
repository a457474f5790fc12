/**
 * A thread gives back what a burst of requests left once it is quiet: when a whole second went
 * by with no request answered (and some were since the last collection), one full garbage
 * collection. JavaScriptCore collects during a burst only as its heap grows, and memory freed
 * late stays with the process; a server that answered a storm of requests would otherwise start
 * the next one from the storm's high-water mark (docs/performance.md#memory). Never during a
 * burst: a full collection stops the thread for milliseconds.
 */
export const IDLE_COLLECTION_EVERY_MS = 1000;

/**
 * The decision, one tick at a time: `tick()` collects when no request was answered since the
 * previous tick and some were since the last collection. `answered`: how many requests this
 * thread has answered so far.
 */
export function idleCollector(answered: () => number, collect: () => void = () => Bun.gc(true)): { tick: () => void } {
  let seen = answered();
  let collectedAt = seen;
  return {
    tick() {
      const now = answered();
      if (now === seen && now !== collectedAt) {
        collect();
        collectedAt = now;
      }
      seen = now;
    },
  };
}

/** Ticks every `everyMs` in the background; returns the stop. */
export function collectWhenIdle(answered: () => number, everyMs = IDLE_COLLECTION_EVERY_MS): () => void {
  const collector = idleCollector(answered);
  const timer = setInterval(collector.tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
