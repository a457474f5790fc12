/**
 * Starts the HTTP server (and, unless told not to, the in-process webhook worker).
 *
 * bun:sqlite is synchronous: while one request waits for SQLite, nothing else on its thread
 * runs. So the server listens on `config.httpThreads` JavaScript threads, this one and
 * workers (server/http-thread.ts), each with its own connection and the same port
 * (SO_REUSEPORT: the kernel spreads connections over them), each with a Runtime of its own
 * (server/runtime.ts). What they share lives in the database or in shared memory (SharedState):
 * the rate-limit counters, the turns their write transactions take before SQLite's lock, and
 * the outbox signal that wakes the webhook worker. The worker, the statistics upkeep, the
 * scheduled backups and the /metrics listener stay on this thread; a scrape asks every other
 * thread for its request counters (a `metrics` message) and adds them up.
 */
import { createApp } from "./app.ts";
import type { Config } from "./config.ts";
import { listeningOrigin } from "./http/kernel.ts";
import { startBackupSchedule, type BackupSchedule } from "./backup/schedule.ts";
import type { MetricsListener } from "./metrics/server.ts";
import { collectWhenIdle } from "./http/idle-collection.ts";
import { createThreadMetrics, type ThreadMetrics } from "./metrics/thread.ts";
import type { Runtime, SharedState } from "./runtime.ts";
import { sealPlaintextSecrets } from "./webhooks/service.ts";
import type { Background } from "./background.ts";

/** `metricsUrl`: where /metrics is served (null: KONTOR_METRICS_PORT unset) */
export type Running = { url: string; metricsUrl: string | null; stop: () => Promise<void> };

/** What a thread needs to serve: the port is the one the first thread was given. */
export type ThreadSetup = { config: Config; shared: SharedState };
export type ThreadMessage =
  | { type: "listening" }
  | { type: "stopped" }
  | { type: "failed"; message: string }
  | { type: "metrics"; id: number; metrics: MetricsSnapshot };
/** What the main thread sends a thread: start, stop, or "your request counters, please" (answered with the same id). */
export type ThreadCommand = { type: "start"; setup: ThreadSetup } | { type: "stop" } | { type: "metrics"; id: number };
/** A thread's counters as prom-client's getMetricsAsJSON gives them (structured-cloneable). */
export type MetricsSnapshot = ReturnType<ThreadMetrics["snapshot"]>;

/** Another process listens on the port `kontor serve` was given. */
export class PortTaken extends Error {}

/**
 * Refuses a port another process listens on, Kontor or not. The HTTP threads bind with
 * SO_REUSEPORT so that they share the port, and the kernel would share it just as silently with
 * a second `kontor serve` (spreading connections between two servers, perhaps on two
 * databases): so the port is first bound alone, without it, which any listener already there
 * refuses; then let go for the threads to bind. Port 0 (a free port picked) needs no check.
 */
export function refuseTakenPort(host: string, port: number): void {
  if (port === 0) return;
  let probe: { stop: (closeActive?: boolean) => void };
  try {
    probe = Bun.listen({ hostname: host, port, socket: { data() {} } });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new PortTaken(
      `Port ${port} on ${host} is already in use by another process (another kontor serve or any other server): kontor serve does not share its port. ` +
        "Stop that process, or choose another port (--port, KONTOR_PORT).",
    );
  }
  probe.stop(true);
}

/** Listens with `app` on the config's host and port; every thread shares the port. */
export function listen(app: ReturnType<typeof createApp>, config: Config) {
  // Bun's own body limit is set high so that Kontor answers oversize bodies with its JSON 413
  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: 64 * 1024 * 1024, reusePort: config.httpThreads > 1 });
  return app.server!;
}

/**
 * `onListening` runs as soon as the port is bound, before this thread can answer a request
 * (nothing runs until it returns) and before the other threads start: what it prints (the first
 * start's token) is out before `/health` answers anyone.
 */
export async function startServer(
  runtime: Runtime,
  { worker = true, onListening }: { worker?: boolean; onListening?: (url: string) => void } = {},
): Promise<Running> {
  const { db, config, secrets } = runtime;
  // what runs beside the API (and its mail, PDF and e-invoice code) is loaded only by the thread
  // that runs it: the HTTP threads import this file for listen(). Loaded before the port is bound,
  // so that the worker still starts as soon as this thread answers.
  const { startBackground } = worker ? await import("./background.ts") : { startBackground: null };
  // prom-client and the server's gauges: this thread's alone, which answers /metrics
  const { createServerMetrics, scrape, startMetricsListener } = await import("./metrics/server.ts");
  await sealPlaintextSecrets(db, secrets);
  // this thread's request counters: a scrape adds the other threads' to them
  const requests = createThreadMetrics();
  const app = createApp(runtime, requests);
  // before any thread binds with SO_REUSEPORT: a listener already there is another process
  refuseTakenPort(config.host, config.port);
  const server = listen(app, config);
  const url = listeningOrigin(server.hostname!, server.port!);
  onListening?.(url);
  const serverMetrics = config.metricsPort !== null ? createServerMetrics(db, config) : null;
  // The worker starts as soon as this thread answers requests, not once the other threads have
  // started (seconds on a busy machine): a change answered meanwhile would wait for it.
  const background: Background | null = startBackground ? await startBackground(runtime, { onWebhookAttempt: serverMetrics?.deliveryAttempt }) : null;
  // port 0 picks a free port: the other threads join the one picked
  const setup: ThreadSetup = { config: { ...config, port: server.port! }, shared: runtime.shared };
  const starting = await Promise.allSettled(Array.from({ length: config.httpThreads - 1 }, () => startThread(setup)));
  const threads = starting.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = starting.find((s) => s.status === "rejected");
  if (failed) {
    // all threads or none: a server short of some would not be the one configured
    await Promise.allSettled([background?.stop(), server.stop(true), ...threads.map((t) => t.stop())]);
    throw failed.reason;
  }
  let metrics: MetricsListener | null = null;
  if (serverMetrics) {
    const others = async () => (await Promise.all(threads.map((t) => t.metrics()))).filter((m) => m !== null);
    metrics = startMetricsListener(config, () => scrape(requests, others, serverMetrics), runtime.log);
  }
  // on PostgreSQL, backups are the database's own (docs/operations.md#running-on-postgresql)
  const backups: BackupSchedule | null = config.backupDir && config.databaseUrl === null ? startBackupSchedule(config, runtime.log) : null;
  const stopCollecting = collectWhenIdle(requests.answered);
  return {
    url,
    metricsUrl: metrics?.url ?? null,
    async stop() {
      // The worker stops claiming first (synchronously, inside its stop()), so it sends nothing
      // new while the HTTP side drains; deliveries queued by requests still in flight wait in
      // the outbox for the next worker. All then drain side by side.
      stopCollecting();
      const draining = await Promise.allSettled([
        background?.stop(),
        server.stop(),
        ...threads.map((t) => t.stop()),
        metrics?.stop(),
        backups?.stop(),
      ]);
      for (const result of draining) if (result.status === "rejected") throw result.reason;
    },
  };
}

/** null: the thread did not answer within SCRAPE_WAIT_MS */
type HttpThread = { stop: () => Promise<void>; metrics: () => Promise<MetricsSnapshot | null> };
/** How long a scrape waits for each HTTP thread's counters. */
const SCRAPE_WAIT_MS = 2000;

/**
 * The thread's entry point: beside this file when run from source; in the binary, where
 * `bun build --compile` embeds it as an entry point of its own (package.json "build"), by its
 * path from the project root.
 */
const THREAD_ENTRY = import.meta.url.includes("$bunfs") ? "./server/http-thread.ts" : new URL("./http-thread.ts", import.meta.url).href;

/** A worker thread serving HTTP; resolves once it listens, rejects if it could not. */
function startThread(setup: ThreadSetup): Promise<HttpThread> {
  const thread = new Worker(THREAD_ENTRY, { smol: true });
  const command = (message: ThreadCommand) => thread.postMessage(message);
  let onStopped: (() => void) | null = null;
  const scrapes = new Map<number, (snapshot: MetricsSnapshot) => void>();
  let nextScrape = 0;
  return new Promise((resolve, reject) => {
    thread.addEventListener("error", (event) => {
      const message = `an HTTP thread failed: ${event.message}`;
      reject(new Error(message));
      console.error(message);
    });
    thread.addEventListener("message", (event: MessageEvent<ThreadMessage>) => {
      const message = event.data;
      if (message.type === "failed") reject(new Error(`an HTTP thread could not start: ${message.message}`));
      else if (message.type === "stopped") onStopped?.();
      else if (message.type === "metrics") {
        scrapes.get(message.id)?.(message.metrics);
        scrapes.delete(message.id);
      } else
        resolve({
          stop: () =>
            new Promise<void>((stopped) => {
              onStopped = () => {
                thread.terminate();
                stopped();
              };
              command({ type: "stop" });
            }),
          // a thread busy for longer (a large import) or gone is left out of this scrape, not waited for
          metrics: () =>
            new Promise<MetricsSnapshot | null>((answered) => {
              const id = nextScrape++;
              const late = setTimeout(() => {
                scrapes.delete(id);
                answered(null);
              }, SCRAPE_WAIT_MS);
              scrapes.set(id, (snapshot) => {
                clearTimeout(late);
                answered(snapshot);
              });
              command({ type: "metrics", id });
            }),
        });
    });
    command({ type: "start", setup });
  });
}
