/**
 * `Idempotency-Key` on every POST of the API (docs/api.md#retries-idempotency-key), as one step: the kernel hands
 * each handler `once(work)` (server/http/kernel.ts), and a POST handler's work runs inside it.
 *
 * `once` looks the key up, runs the work and stores its answer in ONE write transaction, the
 * work's own transaction becoming a savepoint of it. So the answer is stored if and only if the
 * work committed: a crash at any point leaves either both or neither, and a retry replays the
 * answer or does the work, never twice. A second request with the same key waits for the write
 * lock (another thread's write turn, another process's busy timeout) and then replays.
 *
 * - A stored answer is replayed for 24 h (status, body, Location, Cache-Control, and
 *   `Idempotent-Replayed: true`); the work is not done again. The same key with another method,
 *   path or body is a 422 keyed `Idempotency-Key`. Keys are per token.
 * - A 4xx of the work is its outcome, stored and replayed (its changes roll back with its
 *   savepoint). A 5xx is not stored, and neither is a refusal of the caller (401, 403, 429): a
 *   retry once the caller may do it does the work.
 * - Requests refused before the handler (401, 403, 429, a schema 422) never reach `once`.
 *
 * The stored body is sealed (AES-256-GCM) with a key derived from the caller's own token
 * string, which the database does not hold: `POST /tokens` answers with a plain token, and
 * Kontor stores only hashes of token secrets. Only the same token can replay it.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { ApiError, ValidationFailed } from "../lib/errors.ts";
import { unitOfWork } from "../lib/scope.ts";
import { firstRow } from "../../db/client.ts";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Set on a replayed response, as Stripe does. */
export const REPLAYED_HEADER = "Idempotent-Replayed";
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
/** Expired keys are swept at most this often (besides the lazy check of the key in hand). */
const SWEEP_EVERY_MS = 60 * 1000;
/** Refusals of the caller, not outcomes of the request: never stored, never replayed. */
const NOT_STORED = new Set([401, 403, 429]);
/** Response headers a replay repeats (a replayed new token or secret must not be cached either). */
const REPLAYED_HEADERS = ["location", "content-type", "cache-control"];

/** The header parameter every POST operation documents (server/docs/openapi.ts). */
export const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: "header",
  required: false,
  description:
    "Makes the POST safe to retry: the same key with the same body within 24 h returns the first response " +
    "(status, body, Location; header `Idempotent-Replayed: true`) without doing the work again, also after a crash. " +
    "The same key with another body is a 422; a retry while the first request runs waits for it. " +
    "Keys are per token; 5xx responses are not stored.",
  schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH },
};

type KeyRow = typeof idempotencyKeys.$inferSelect;

/** What `once` needs of the request: read by the kernel before the handler runs. */
export type KeyedRequest = {
  method: string;
  url: string;
  headers: Headers;
  /** the body as sent: "the same body" means the same bytes */
  rawBody: string;
  tokenId: string;
};

/** Elysia's `set` of the request: the status and headers the handler's answer goes out with. */
export type AnswerSet = { status?: number | string; headers: Record<string, string | number> };

export type Idempotency = ReturnType<typeof createIdempotency>;

export function createIdempotency(db: Db) {
  let lastSweep = 0;

  return {
    /**
     * Runs `work` once per key: its result, or the Response replaying the first answer. Without a
     * key (or for another method than POST) it simply runs `work`.
     */
    async once<T>(request: KeyedRequest, set: AnswerSet, work: () => T | Promise<T>): Promise<T | Response> {
      const key = request.method === "POST" ? request.headers.get(IDEMPOTENCY_HEADER) : null;
      if (key === null) return await work();
      if (key.trim() === "" || key.length > MAX_KEY_LENGTH) {
        throw ValidationFailed.field(IDEMPOTENCY_HEADER, `The ${IDEMPOTENCY_HEADER} header must be 1 to ${MAX_KEY_LENGTH} characters.`);
      }
      const url = new URL(request.url);
      const requestHash = createHash("sha256").update(`${request.method} ${url.pathname}${url.search}\n${request.rawBody}`).digest("hex");
      const sealKey = sealKeyFor(request.headers, key);
      const mine = and(eq(idempotencyKeys.tokenId, request.tokenId), eq(idempotencyKeys.key, key));

      const outcome = await unitOfWork(db, async (tx): Promise<{ value: T } | { replay: Response } | { refusal: unknown }> => {
        const now = Date.now();
        const cutoff = now - IDEMPOTENCY_RETENTION_MS;
        if (now - lastSweep > SWEEP_EVERY_MS) {
          lastSweep = now;
          await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff));
        }
        const held = await firstRow(tx.select().from(idempotencyKeys).where(mine));
        // an expired key, or a reservation an older Kontor left without an answer, is no answer
        if (held && (held.createdAt < cutoff || held.statusCode === null)) await tx.delete(idempotencyKeys).where(mine);
        else if (held) {
          if (held.requestHash !== requestHash) {
            throw ValidationFailed.field(IDEMPOTENCY_HEADER, `This ${IDEMPOTENCY_HEADER} was already used for a different request (method, path or body); use a new key.`);
          }
          return { replay: replay(held, sealKey) };
        }

        const store = async (status: number, body: string | null, headers: Record<string, unknown>) =>
          await tx
            .insert(idempotencyKeys)
            .values({
              tokenId: request.tokenId,
              key,
              requestHash,
              statusCode: status,
              responseBody: body === null ? null : seal(sealKey, body),
              responseHeaders: pickHeaders(headers),
              createdAt: now,
            });
        try {
          // a savepoint: a refused work's changes roll back, the stored refusal stays
          const value = await unitOfWork(db, work);
          const status = typeof set.status === "number" ? set.status : 200;
          if (value instanceof Response) {
            if (value.body !== null) throw new Error("once(): a Response with a body cannot be stored; return the value instead");
            await store(value.status, null, Object.fromEntries(value.headers));
          } else {
            await store(status, value === undefined ? null : JSON.stringify(value), { "content-type": "application/json", ...set.headers });
          }
          return { value };
        } catch (error) {
          if (!(error instanceof ApiError) || error.status >= 500 || NOT_STORED.has(error.status)) throw error;
          await store(error.status, JSON.stringify(error.toJSON()), { ...error.headers, "content-type": "application/json" });
          return { refusal: error };
        }
      });
      if ("refusal" in outcome) throw outcome.refusal;
      return "replay" in outcome ? outcome.replay : outcome.value;
    },
  };
}

function replay(row: KeyRow, sealKey: Buffer): Response {
  const headers = new Headers(row.responseHeaders ?? {});
  headers.set(REPLAYED_HEADER, "true");
  const body = row.responseBody === null ? null : unseal(sealKey, row.responseBody);
  return new Response(body, { status: row.statusCode!, headers });
}

function pickHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (REPLAYED_HEADERS.includes(lower) && value !== undefined && value !== null) out[lower] = String(value);
  }
  return out;
}

/** 32 bytes from the caller's token string (`<id>|<secret>`, authenticated already) and the key. */
function sealKeyFor(headers: Headers, key: string): Buffer {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1] ?? "";
  return createHmac("sha256", token).update(`kontor idempotency\n${key}`).digest();
}

/** base64(iv ‖ tag ‖ ciphertext) */
function seal(sealKey: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
  const encrypted = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString("base64");
}

function unseal(sealKey: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", sealKey, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
