/** Configuration from the environment (contract section 1); CLI flags override some fields. */
import { availableParallelism } from "node:os";

export type Config = {
  dbPath: string;
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
};

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

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const kontorEnv = (env.KONTOR_ENV || "production") as Config["env"];
  if (!["production", "development", "test"].includes(kontorEnv)) {
    throw new Error(`KONTOR_ENV must be production, development or test (got "${kontorEnv}")`);
  }
  const relaxed = kontorEnv !== "production";
  return {
    dbPath: env.KONTOR_DB ?? "./data/kontor.db",
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
    secretKeyFile: env.KONTOR_SECRET_KEY_FILE || null,
  };
}
