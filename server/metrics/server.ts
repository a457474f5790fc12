/**
 * `GET /metrics` in the Prometheus text format, on a listener of its own (KONTOR_METRICS_PORT,
 * on KONTOR_METRICS_HOST, default 127.0.0.1), served by the first thread of `kontor serve`.
 * Not on the API's port: whoever can reach the API holds or can try API tokens, and those must
 * not be what guards the server's internals. The port is for the scraper (firewall it, or
 * keep the loopback default and scrape through the host).
 *
 * A scrape adds up every HTTP thread's counters (server/metrics/thread.ts: each thread answers
 * with its registry's JSON, prom-client's AggregatorRegistry sums them) and reads, at that
 * moment, what the database says: the outbox's depth and the age of its oldest due row, the
 * database and WAL sizes, and the newest scheduled backup.
 */
import { existsSync, statSync } from "node:fs";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import { newestBackup } from "../../db/backup.ts";
import { listeningOrigin } from "../http/kernel.ts";
import { preparedSql, snapshot, type Db, type Tx } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { MetricJson, ThreadMetrics } from "./thread.ts";

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

/** What the first thread counts and reads beside the requests: the worker's attempts and the database. */
export type ServerMetrics = {
  readonly registry: Registry;
  /** one delivery attempt's outcome: delivered (2xx), failed (an error or another status), interrupted (by shutdown) */
  deliveryAttempt(outcome: "delivered" | "failed" | "interrupted"): void;
};

export function createServerMetrics(db: Db, config: Config): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "kontor_process_" });
  const attempts = new Counter({
    name: "kontor_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts made by this server's worker, by outcome",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  for (const outcome of ["delivered", "failed", "interrupted"]) attempts.inc({ outcome }, 0);
  const outbox = (tx: Tx) =>
    preparedSql<{ depth: number; oldest_due: number | null }, [number]>(
      tx,
      "metrics: outbox",
      `SELECT count(*) AS depth, min(CASE WHEN next_attempt_at <= ?1 THEN next_attempt_at END) AS oldest_due
         FROM webhook_deliveries WHERE status = 'pending'`,
    );
  let read: { depth: number; oldest_due: number | null; at: number } | null = null;
  // both gauges come from one query, made once per scrape (the first gauge collected makes it)
  const outboxNow = async () => {
    const now = Date.now();
    if (!read || now - read.at > 500) read = { ...(await snapshot(db, (tx) => outbox(tx).get(now)))!, at: now };
    return read;
  };
  new Gauge({
    name: "kontor_outbox_depth",
    help: "Webhook deliveries waiting to be sent (pending: due, waiting for a retry, or parked on an inactive webhook)",
    registers: [registry],
    async collect() {
      this.set((await outboxNow()).depth);
    },
  });
  new Gauge({
    name: "kontor_outbox_oldest_due_age_seconds",
    help: "How long the oldest due delivery has been due (0 when none is)",
    registers: [registry],
    async collect() {
      const { oldest_due, at } = await outboxNow();
      this.set(oldest_due === null ? 0 : Math.max(0, (at - oldest_due) / 1000));
    },
  });
  const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  new Gauge({
    name: "kontor_sqlite_database_bytes",
    help: "Size of the SQLite database file",
    registers: [registry],
    collect() {
      this.set(size(config.dbPath));
    },
  });
  new Gauge({
    name: "kontor_sqlite_wal_bytes",
    help: "Size of the SQLite write-ahead log (-wal file)",
    registers: [registry],
    collect() {
      this.set(size(`${config.dbPath}-wal`));
    },
  });
  new Gauge({
    name: "kontor_last_backup_timestamp_seconds",
    help: "When the newest complete backup in KONTOR_BACKUP_DIR was written (Unix time; 0: none, or no KONTOR_BACKUP_DIR)",
    registers: [registry],
    collect() {
      const newest = config.backupDir ? newestBackup(config.backupDir) : null;
      this.set(newest ? newest.mtimeMs / 1000 : 0);
    },
  });
  return { registry, deliveryAttempt: (outcome) => attempts.inc({ outcome }) };
}

/** The text of a scrape: every thread's counters added up, then the server's own gauges. */
export async function scrape(local: ThreadMetrics, others: () => Promise<MetricJson[][]>, server: ServerMetrics): Promise<string> {
  // the JSON prom-client's own registries write, which its aggregator reads (it never calls `collect` on them)
  const snapshots = [local.snapshot(), ...(await others())] as unknown as Snapshot[];
  const requests = AggregatorRegistry.aggregate(snapshots);
  return `${await requests.metrics()}\n${await server.registry.metrics()}`;
}

export type MetricsListener = { url: string; stop: () => Promise<void> };

export function startMetricsListener(config: Config, render: () => Promise<string>, log: Logger): MetricsListener {
  const server = Bun.serve({
    hostname: config.metricsHost,
    port: config.metricsPort ?? 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path !== "/metrics") return new Response("Not found.\n", { status: 404 });
      if (request.method !== "GET" && request.method !== "HEAD") return new Response("Method not allowed.\n", { status: 405, headers: { allow: "GET, HEAD" } });
      try {
        return new Response(await render(), { headers: { "content-type": Registry.PROMETHEUS_CONTENT_TYPE } });
      } catch (error) {
        log.error("metrics scrape failed", { error: (error as Error)?.stack ?? String(error) });
        return new Response("Scrape failed.\n", { status: 500 });
      }
    },
  });
  return { url: listeningOrigin(server.hostname!, server.port!), stop: () => server.stop() };
}
