/**
 * What one thread of Kontor runs with, built once per thread (server/serve.ts for the first
 * HTTP thread and the webhook worker, server/http-thread.ts for the others, the CLI, tests) and
 * handed down to the app (`createApp(runtime)`), whose kernel hands the request's part of it to
 * handlers as `scope`. Nothing of it lives in module globals or side tables:
 *
 * - `db`: the thread's connection; its own state hangs on `db.connection` (change clock,
 *   statement cache, transactions and write turns, commit memory, outbox signal: db/).
 * - `config`, `secrets` (the key that seals webhook secrets), `log` (server/log.ts).
 * - what the server's threads share, in shared memory (`SharedState`): the rate-limit counters,
 *   the write turns and the outbox signal, so that a change answered by any thread wakes the
 *   worker at once.
 *
 * What a thread that serves HTTP counts for /metrics is not here: the app holds it
 * (`createApp(runtime, metrics)`, server/metrics/thread.ts). A CLI command or the worker builds a
 * runtime, serves nothing, and so loads no metrics library.
 */
import { openDatabase, PAGE_CACHE_KIB, type Db } from "../db/client.ts";
import type { openPostgres as OpenPostgres } from "../db/postgres/connection.ts";
import type { Config } from "./config.ts";
import { RenderTurns } from "./lib/render-turns.ts";
import { createImportSlotMemory, ImportSlots } from "./lib/import-slots.ts";
import { createRateLimitMemory } from "./http/rate-limit.ts";
import { loadSecretBox, SecretBox } from "./lib/secret-box.ts";
import { loggerFor, type Logger } from "./log.ts";

export type Runtime = {
  readonly db: Db;
  readonly config: Config;
  readonly secrets: SecretBox;
  /** PDFs are rendered one at a time on this thread (server/documents/render-turns.ts) */
  readonly renderTurns: RenderTurns;
  /** uploaded files parsed at once, on every thread of the server together (server/lib/import-slots.ts) */
  readonly importSlots: ImportSlots;
  readonly shared: SharedState;
  readonly log: Logger;
};

/** Made by the first thread of a server and sent to the others (structured clone keeps the memory shared). */
export type SharedState = {
  rateLimit: SharedArrayBuffer;
  writeTurns: SharedArrayBuffer;
  outbox: SharedArrayBuffer;
  /** uploaded files being parsed, on all threads */
  importSlots: SharedArrayBuffer;
  secretKey: Uint8Array;
  /** KiB of SQLite page cache for each thread's connection */
  cacheKiB: number;
};

/** The database the configuration names: PostgreSQL at KONTOR_DATABASE_URL, or else the SQLite file at KONTOR_DB. */
export function openConfiguredDatabase(config: Config, cacheKiB = PAGE_CACHE_KIB): Db {
  if (config.databaseUrl === null) return openDatabase(config.dbPath, { cacheKiB });
  // loaded only for PostgreSQL: a SQLite server does not carry its driver (a few MB per thread)
  const { openPostgres } = require("../db/postgres/connection.ts") as { openPostgres: typeof OpenPostgres };
  return openPostgres(config.databaseUrl);
}

export function createSharedState(config: Config, secrets: SecretBox): SharedState {
  return {
    rateLimit: createRateLimitMemory(),
    writeTurns: new SharedArrayBuffer(4),
    outbox: new SharedArrayBuffer(4),
    importSlots: createImportSlotMemory(),
    secretKey: secrets.key,
    cacheKiB: PAGE_CACHE_KIB / config.httpThreads,
  };
}

/**
 * A runtime on `db` (default: a new connection to `config.dbPath`), sharing `shared` (default:
 * new): the connection's writes take turns with those of every runtime sharing it, and the
 * deliveries it queues wake the worker that waits on its outbox signal, on whichever thread.
 */
export function createRuntime(
  config: Config,
  options: { db?: Db; shared?: SharedState; secrets?: SecretBox; log?: Logger } = {},
): Runtime {
  const secrets = options.secrets ?? (options.shared ? new SecretBox(options.shared.secretKey) : loadSecretBox(config));
  const shared = options.shared ?? createSharedState(config, secrets);
  // a connection opened elsewhere gets this thread's share of the page cache; one opened here has it already
  const db = options.db ?? openConfiguredDatabase(config, shared.cacheKiB);
  if (options.db && db.connection.engine === "sqlite") db.$client.exec(`PRAGMA cache_size = -${Math.floor(shared.cacheKiB)}`);
  db.connection.transactions.shareWriteTurns(shared.writeTurns);
  db.connection.outbox.share(shared.outbox);
  return {
    db,
    config,
    secrets,
    renderTurns: new RenderTurns(),
    importSlots: new ImportSlots(shared.importSlots, config.importConcurrency),
    shared,
    log: options.log ?? loggerFor(config),
  };
}
