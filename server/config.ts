/** Configuration from the environment (docs/operations.md#configuration); CLI flags override some fields. */
import { availableParallelism } from "node:os";
import { metadataHostRefusal } from "./lib/hosts.ts";

export type Config = {
  dbPath: string;
  /**
   * PostgreSQL instead of the SQLite file (KONTOR_DATABASE_URL, postgres://…); null: SQLite at
   * `dbPath` (docs/operations.md#running-on-postgresql)
   */
  databaseUrl: string | null;
  host: string;
  port: number;
  baseUrl: string | null;
  env: "production" | "development" | "test";
  rateLimitPerMinute: number;
  /** JavaScript threads serving HTTP, each with its own connection (server/serve.ts) */
  httpThreads: number;
  webhookAllowHttp: boolean;
  webhookAllowPrivate: boolean;
  /** Delays between attempts, in milliseconds. */
  webhookBackoffMs: number[];
  webhookMaxAttempts: number;
  webhookTimeoutMs: number;
  /**
   * The key file that encrypts webhook secrets at rest (KONTOR_SECRET_KEY_FILE); null: `kontor.key`
   * beside the database, or a random key held in memory for a `:memory:` database (server/lib/secret-box.ts)
   */
  secretKeyFile: string | null;
  /** one line per log entry: JSON for a log collector, or `pretty` for a person at a terminal (server/log.ts) */
  logFormat: "json" | "pretty";
  /** entries below this level are not written */
  logLevel: LogLevel;
  /**
   * The port of the separate listener that serves `/metrics` (KONTOR_METRICS_PORT); null: no
   * metrics. Never on the API's port: API tokens must not be what guards it (server/metrics/).
   */
  metricsPort: number | null;
  metricsHost: string;
  /** where `kontor serve` writes scheduled backups (KONTOR_BACKUP_DIR); null: none (db/backup.ts) */
  backupDir: string | null;
  backupEveryMs: number;
  /** scheduled backups kept; older ones are deleted after a new one is complete */
  backupKeep: number;
  /** days the events feed keeps an event (KONTOR_EVENT_RETENTION_DAYS, default 30); the webhook worker prunes older ones */
  eventRetentionDays: number;
  /**
   * The server's SMTP transport (KONTOR_SMTP_URL: `smtp://user:pass@host:587`, STARTTLS when
   * offered and required when the URL has credentials; `smtps://` for implicit TLS); null: no
   * e-mail unless an organisation has its own (server/sending/email.ts)
   */
  smtpUrl: string | null;
  /** the From address of e-mails sent through the server's transport (KONTOR_MAIL_FROM) */
  mailFrom: string | null;
  /** document deliveries: delays between attempts, attempts in all, one attempt's limit */
  deliveryBackoffMs: number[];
  deliveryMaxAttempts: number;
  deliveryTimeoutMs: number;
  /** uploaded XML / PDF files parsed at once by the server, all HTTP threads together (KONTOR_IMPORT_CONCURRENCY); a further upload waits up to 10 s, then 503 */
  importConcurrency: number;
};

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Threads when KONTOR_HTTP_THREADS is unset: one per core, up to this many (each has its own heap and SQLite connection). */
const MAX_DEFAULT_HTTP_THREADS = 4;

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  return ["1", "true", "yes", "on"].includes(value.toLowerCase());
}

/** "30s,5m,1h" → [30000, 300000, 3600000]; bare numbers are milliseconds. */
export function parseDurations(spec: string): number[] {
  return spec.split(",").map((part) => {
    const ms = parseDuration(part.trim());
    if (ms === null) throw new Error(`invalid duration "${part}" (use e.g. 500ms, 30s, 5m, 1h)`);
    return ms;
  });
}

export function parseDuration(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "ms"]!;
  return n * unit;
}

/** A whole number within bounds, or a clear start-up error naming the variable. */
function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  return n;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === "") return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}

/** An `smtp:` or `smtps:` URL with a host that is no cloud metadata service (server/lib/hosts.ts), or a clear start-up error naming the variable. */
export function smtpUrl(name: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${name} must be a URL such as smtp://user:password@mail.example.com:587 or smtps://mail.example.com:465`);
  }
  if ((url.protocol !== "smtp:" && url.protocol !== "smtps:") || url.hostname === "") {
    throw new Error(`${name} must be an smtp:// or smtps:// URL with a host (got the scheme "${url.protocol}")`);
  }
  const metadata = metadataHostRefusal(name, url.hostname);
  if (metadata) throw new Error(metadata);
  return url.toString();
}

/**
 * A postgres:// URL, or a clear start-up error naming the variable. Every server on one database
 * seals webhook secrets with the same key, so the key file must be given, not made beside a
 * database file there is none of.
 */
function databaseUrl(value: string | undefined, secretKeyFile: string | null): string | null {
  if (value === undefined || value.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error("KONTOR_DATABASE_URL must be a URL such as postgres://kontor:password@db.example.com:5432/kontor");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(`KONTOR_DATABASE_URL must be a postgres:// URL (got the scheme "${url.protocol}")`);
  }
  if (secretKeyFile === null) {
    throw new Error("KONTOR_DATABASE_URL needs KONTOR_SECRET_KEY_FILE: the key that seals webhook secrets, the same file on every server of the database (docs/operations.md#running-on-postgresql)");
  }
  return value.trim();
}

/** The database as an operator reads it in output: the SQLite file, or PostgreSQL's host and database (never its password). */
export function databaseName(config: Pick<Config, "dbPath" | "databaseUrl">): string {
  if (config.databaseUrl === null) return config.dbPath;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}

/** An e-mail address ("invoices@example.com"), or a clear start-up error naming the variable. */
function mailbox(name: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === "") return null;
  if (!/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(value.trim())) throw new Error(`${name} must be an e-mail address such as invoices@example.com (got "${value}")`);
  return value.trim();
}

/** A positive duration ("6h", "30m", "500ms"), or a clear start-up error naming the variable. */
function duration(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const ms = parseDuration(value.trim());
  if (ms === null || ms <= 0) throw new Error(`${name} must be a duration such as 30m, 6h or 1d (got "${value}")`);
  return ms;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const kontorEnv = (env.KONTOR_ENV || "production") as Config["env"];
  if (!["production", "development", "test"].includes(kontorEnv)) {
    throw new Error(`KONTOR_ENV must be production, development or test (got "${kontorEnv}")`);
  }
  const relaxed = kontorEnv !== "production";
  const secretKeyFile = env.KONTOR_SECRET_KEY_FILE || null;
  return {
    dbPath: env.KONTOR_DB ?? "./data/kontor.db",
    databaseUrl: databaseUrl(env.KONTOR_DATABASE_URL, secretKeyFile),
    host: env.KONTOR_HOST ?? "127.0.0.1",
    port: integer("KONTOR_PORT", env.KONTOR_PORT, 8080, 0, 65535),
    baseUrl: env.KONTOR_BASE_URL ? env.KONTOR_BASE_URL.replace(/\/+$/, "") : null,
    env: kontorEnv,
    rateLimitPerMinute: integer("KONTOR_RATE_LIMIT", env.KONTOR_RATE_LIMIT, 60, 1, 1_000_000_000),
    httpThreads: integer("KONTOR_HTTP_THREADS", env.KONTOR_HTTP_THREADS, Math.min(availableParallelism(), MAX_DEFAULT_HTTP_THREADS), 1, 64),
    webhookAllowHttp: bool(env.KONTOR_WEBHOOK_ALLOW_HTTP, relaxed),
    webhookAllowPrivate: bool(env.KONTOR_WEBHOOK_ALLOW_PRIVATE, false),
    webhookBackoffMs: parseDurations(env.KONTOR_WEBHOOK_BACKOFF ?? "30s,5m,1h"),
    webhookMaxAttempts: integer("KONTOR_WEBHOOK_MAX_ATTEMPTS", env.KONTOR_WEBHOOK_MAX_ATTEMPTS, 3, 1, 100),
    webhookTimeoutMs: integer("KONTOR_WEBHOOK_TIMEOUT_MS", env.KONTOR_WEBHOOK_TIMEOUT_MS, 10_000, 1, 600_000),
    secretKeyFile,
    logFormat: oneOf("KONTOR_LOG_FORMAT", env.KONTOR_LOG_FORMAT, ["json", "pretty"] as const, kontorEnv === "development" ? "pretty" : "json"),
    // tests start servers whose output nobody reads: request lines only when asked for
    logLevel: oneOf("KONTOR_LOG_LEVEL", env.KONTOR_LOG_LEVEL, LOG_LEVELS, kontorEnv === "test" ? "warn" : "info"),
    metricsPort: env.KONTOR_METRICS_PORT ? integer("KONTOR_METRICS_PORT", env.KONTOR_METRICS_PORT, 0, 0, 65535) : null,
    metricsHost: env.KONTOR_METRICS_HOST || "127.0.0.1",
    backupDir: env.KONTOR_BACKUP_DIR || null,
    backupEveryMs: duration("KONTOR_BACKUP_EVERY", env.KONTOR_BACKUP_EVERY, 24 * 3_600_000),
    backupKeep: integer("KONTOR_BACKUP_KEEP", env.KONTOR_BACKUP_KEEP, 7, 1, 10_000),
    eventRetentionDays: integer("KONTOR_EVENT_RETENTION_DAYS", env.KONTOR_EVENT_RETENTION_DAYS, 30, 1, 36_500),
    smtpUrl: smtpUrl("KONTOR_SMTP_URL", env.KONTOR_SMTP_URL),
    mailFrom: mailbox("KONTOR_MAIL_FROM", env.KONTOR_MAIL_FROM),
    deliveryBackoffMs: parseDurations(env.KONTOR_DELIVERY_BACKOFF ?? "1m,5m,30m,2h,6h,12h"),
    deliveryMaxAttempts: integer("KONTOR_DELIVERY_MAX_ATTEMPTS", env.KONTOR_DELIVERY_MAX_ATTEMPTS, 7, 1, 100),
    deliveryTimeoutMs: integer("KONTOR_DELIVERY_TIMEOUT_MS", env.KONTOR_DELIVERY_TIMEOUT_MS, 60_000, 1, 600_000),
    importConcurrency: integer("KONTOR_IMPORT_CONCURRENCY", env.KONTOR_IMPORT_CONCURRENCY, 2, 1, 64),
  };
}
