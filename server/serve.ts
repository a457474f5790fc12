/** Starts the HTTP server (and, unless told not to, the in-process webhook worker). */
import type { Db } from "../db/client.ts";
import { createApp } from "./app.ts";
import type { Config } from "./config.ts";
import { startWorker, type Worker } from "./webhooks/worker.ts";

export type Running = { url: string; stop: () => Promise<void> };

export function startServer(db: Db, config: Config, { worker = true }: { worker?: boolean } = {}): Running {
  const app = createApp({ db, config });
  // Bun's own body limit is set high so that Kontor answers oversize bodies with its JSON 413
  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: 64 * 1024 * 1024 });
  const server = app.server!;
  const background: Worker | null = worker ? startWorker(db, config) : null;
  const url = `http://${server.hostname === "0.0.0.0" ? "127.0.0.1" : server.hostname}:${server.port}`;
  return {
    url,
    async stop() {
      // The worker stops claiming first (synchronously, inside its stop()), so it sends nothing
      // new while the HTTP side drains; deliveries queued by requests still in flight wait in
      // the outbox for the next worker. Both then drain side by side.
      const draining = await Promise.allSettled([background?.stop(), server.stop()]);
      for (const result of draining) if (result.status === "rejected") throw result.reason;
    },
  };
}
