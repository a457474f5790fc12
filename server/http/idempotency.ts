/**
 * `Idempotency-Key` on every POST of the API (contract section 5), one mechanism hooked into
 * the kernel's ability macro, so a POST route gets it by existing:
 *
 * - The key is reserved (a row with `status_code` null) before the handler runs. A second
 *   request with the same token and key waits for the first to settle and replays its
 *   response; after `waitMs` it gets a 409 instead. So parallel retries do the work once.
 * - A settled key replays the stored status, body and Location for 24 h; the work is not
 *   done again. The same key with another method, path or body is a 422 keyed
 *   `Idempotency-Key`. Keys are per token.
 * - A 5xx, 401, 403 or 429 is not stored: the reservation is released, and a retry does the work.
 * - A reservation left by a process that died mid-request (never settled) is taken over
 *   after `STALE_RESERVATION_MS`, instead of answering 409 for 24 h. Whether the dead
 *   request's work committed cannot be known here, so such a retry does the work again.
 * - Requests that fail before the handler (401, 403, 429, schema 422) reserve nothing.
 *
 * The stored body is sealed (AES-256-GCM) with a key derived from the caller's own token
 * string, which the database does not hold: `POST /tokens` answers with a plain token, and
 * the contract stores only hashes of token secrets. Only the same token can replay it.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { Conflict, ValidationFailed } from "../lib/errors.ts";
import { transaction } from "../lib/scope.ts";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Set on a replayed response, as Stripe does. */
export const REPLAYED_HEADER = "Idempotent-Replayed";
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
const POLL_MS = 20;
/** No live request holds its key this long (handlers are synchronous SQLite work on ≤ 1 MiB). */
export const STALE_RESERVATION_MS = 60 * 1000;
/** Expired keys are swept at most this often (besides the lazy check of the key in hand). */
const SWEEP_EVERY_MS = 60 * 1000;
/** Refusals of the caller, not outcomes of the request: released like a 5xx, never replayed. */
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
    "(status, body, Location; header `Idempotent-Replayed: true`) without doing the work again. The same key " +
    "with another body is a 422; a key whose first request is still running is a 409 after a few seconds. " +
    "Keys are per token; 5xx responses are not stored.",
  schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH },
};

type KeyRow = typeof idempotencyKeys.$inferSelect;

/** A reservation held by a request until its response is known. */
type Claim = { tokenId: string; key: string; sealKey: Buffer; settled: boolean };

export type Idempotency = ReturnType<typeof createIdempotency>;

export function createIdempotency(db: Db, { waitMs = 3000 }: { waitMs?: number } = {}) {
  const bodies = new WeakMap<Request, string>();
  const claims = new WeakMap<Request, Claim>();
  let lastSweep = 0;

  /** Reserves the key, or returns the row that already holds it (expired rows do not count). */
  function reserve(tokenId: string, key: string, requestHash: string): KeyRow | null {
    const now = Date.now();
    const cutoff = now - IDEMPOTENCY_RETENTION_MS;
    return transaction(db, (tx) => {
      if (now - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = now;
        tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff)).run();
      }
      const mine = and(eq(idempotencyKeys.tokenId, tokenId), eq(idempotencyKeys.key, key));
      const stale = and(isNull(idempotencyKeys.statusCode), lt(idempotencyKeys.createdAt, now - STALE_RESERVATION_MS));
      tx.delete(idempotencyKeys).where(and(mine, or(lt(idempotencyKeys.createdAt, cutoff), stale))).run();
      const inserted = tx
        .insert(idempotencyKeys)
        .values({ tokenId, key, requestHash, createdAt: now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key })
        .all();
      return inserted.length > 0 ? null : (tx.select().from(idempotencyKeys).where(mine).get() ?? null);
    });
  }

  // single statements, in a transaction of their own all the same: a write takes its turn with
  // the other HTTP threads' writes (db/client.ts shareWriteTurns) instead of sleeping in SQLite's
  // busy handler

  function release(claim: Claim) {
    transaction(db, (tx) =>
      tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.tokenId, claim.tokenId), eq(idempotencyKeys.key, claim.key))).run(),
    );
  }

  function store(claim: Claim, status: number, body: string | null, headers: Record<string, string>) {
    transaction(db, (tx) =>
      tx
        .update(idempotencyKeys)
        .set({ statusCode: status, responseBody: body === null ? null : seal(claim.sealKey, body), responseHeaders: headers })
        .where(and(eq(idempotencyKeys.tokenId, claim.tokenId), eq(idempotencyKeys.key, claim.key)))
        .run(),
    );
  }

  return {
    /** The kernel's body parser hands over the raw body: "the same body" means the same bytes. */
    rememberBody(request: Request, text: string): void {
      bodies.set(request, text);
    },

    /**
     * Before the handler of a POST: undefined when there is no key or it is now reserved for
     * this request (the handler runs), else the stored response to replay. Throws the 422 of a
     * reused key and the 409 of a key whose first request does not settle in time.
     */
    async begin(request: Request, tokenId: string): Promise<Response | undefined> {
      if (request.method !== "POST") return undefined;
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      if (key === null) return undefined;
      if (key.trim() === "" || key.length > MAX_KEY_LENGTH) {
        throw ValidationFailed.field(IDEMPOTENCY_HEADER, `The ${IDEMPOTENCY_HEADER} header must be 1 to ${MAX_KEY_LENGTH} characters.`);
      }
      const url = new URL(request.url);
      const requestHash = createHash("sha256")
        .update(`${request.method} ${url.pathname}${url.search}\n${bodies.get(request) ?? ""}`)
        .digest("hex");
      const sealKey = sealKeyFor(request, key);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const held = reserve(tokenId, key, requestHash);
        if (held === null) {
          claims.set(request, { tokenId, key, sealKey, settled: false });
          return undefined;
        }
        if (held.requestHash !== requestHash) {
          throw ValidationFailed.field(
            IDEMPOTENCY_HEADER,
            `This ${IDEMPOTENCY_HEADER} was already used for a different request (method, path or body); use a new key.`,
          );
        }
        if (held.statusCode !== null) return replay(held, sealKey);
        if (Date.now() >= deadline) {
          throw new Conflict(`A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry it later.`);
        }
        // the first request is in flight (this process or another): poll until it settles
        await Bun.sleep(POLL_MS);
      }
    },

    /** After the handler answered: stores the response under the request's key, if it holds one. */
    async settle(request: Request, status: number, response: unknown, headers: Record<string, unknown>): Promise<void> {
      const claim = claims.get(request);
      if (!claim || claim.settled) return;
      claim.settled = true;
      if (status >= 500) return release(claim);
      if (response instanceof Response) {
        const text = await response.clone().text();
        const stored = pickHeaders(Object.fromEntries(response.headers));
        return store(claim, response.status, text === "" ? null : text, { ...pickHeaders(headers), ...stored });
      }
      store(claim, status, response === undefined ? null : JSON.stringify(response), pickHeaders({ "content-type": "application/json", ...headers }));
    },

    /**
     * From the error handler: a 4xx answer is the request's outcome and is stored (but see
     * NOT_STORED); a 5xx
     * (also one raised after `settle`, e.g. a response failing its schema) releases the key.
     */
    settleError(request: Request, status: number, body: string, headers: Record<string, string>): void {
      const claim = claims.get(request);
      if (!claim) return;
      // like a 5xx, a refusal of who is asking (401, 403, 429) is not the request's outcome: a
      // retry once the caller may do it must do the work, wherever the refusal was raised
      if (status >= 500 || NOT_STORED.has(status)) {
        claim.settled = true;
        return release(claim);
      }
      if (claim.settled) return;
      claim.settled = true;
      store(claim, status, body, pickHeaders({ ...headers, "content-type": "application/json" }));
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
function sealKeyFor(request: Request, key: string): Buffer {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
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
