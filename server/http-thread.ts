/**
 * An HTTP thread of `kontor serve` (server/serve.ts): the same app on a Runtime of its own,
 * sharing the server's SharedState, listening on the server's port beside the others.
 */
import "./http/elysia-production.ts";
import { createApp } from "./app.ts";
import { collectWhenIdle } from "./http/idle-collection.ts";
import { createThreadMetrics } from "./metrics/thread.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import { listen, type ThreadCommand, type ThreadMessage } from "./serve.ts";

declare const self: Worker;

let stop: (() => Promise<void>) | null = null;
let runtime: Runtime | null = null;
/** this thread's request counters, which the main thread's /metrics adds up */
const requests = createThreadMetrics();
const answer = (message: ThreadMessage) => self.postMessage(message);

self.addEventListener("message", async (event: MessageEvent<ThreadCommand>) => {
  if (event.data.type === "metrics") {
    // this thread's request counters, for the main thread's /metrics to add up
    answer({ type: "metrics", id: event.data.id, metrics: runtime ? requests.snapshot() : [] });
  } else if (event.data.type === "start") {
    const { config, shared } = event.data.setup;
    try {
      runtime = createRuntime(config, { shared });
      const server = listen(createApp(runtime, requests), config);
      const { db } = runtime;
      const stopCollecting = collectWhenIdle(requests.answered);
      stop = async () => {
        stopCollecting();
        await server.stop();
        await db.connection.close();
      };
      answer({ type: "listening" });
    } catch (error) {
      await runtime?.db.connection.close();
      answer({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  } else {
    await stop?.();
    answer({ type: "stopped" });
  }
});
