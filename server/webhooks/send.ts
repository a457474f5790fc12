/**
 * One delivery attempt (docs/webhooks.md#retries): check the scheme, open the
 * webhook's secret, resolve and check the destination, sign, POST the frozen payload, and
 * describe what happened. The scheme and the destination are checked at every attempt, against
 * the configuration of now. It never throws: every failure is an attempt result, recorded by
 * the worker.
 */
import { SecretUnreadable, type SecretBox } from "../lib/secret-box.ts";
import { DestinationRefused, pinnedRequest, REFUSED_DESTINATION, resolveDestination } from "./ssrf.ts";
import { signatureHeaders } from "./signing.ts";

export const USER_AGENT = "Kontor-Webhook/1.0";
/** How much of the receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 1024;
const ERROR_LIMIT = 500;

export const PLAIN_HTTP_REFUSED = "Plain HTTP is not allowed (KONTOR_WEBHOOK_ALLOW_HTTP is off): change the webhook's url to HTTPS.";
export const SECRET_UNREADABLE =
  "The webhook's secret cannot be decrypted with this server's key (KONTOR_SECRET_KEY_FILE): restore the key file that belongs to this database, or regenerate the secret.";

/**
 * `secret` as stored: sealed with the webhook id (server/lib/secret-box.ts). `eventId`: the
 * event's id, null for a delivery queued before events had per-organisation ids.
 */
export type AttemptRequest = { deliveryId: string; eventId: number | null; webhookId: string; event: string; payload: string; url: string; secret: string };

export type AttemptOptions = {
  /** the whole attempt, DNS included, ends by then (10 s by default, KONTOR_WEBHOOK_TIMEOUT_MS) */
  timeoutMs: number;
  allowPrivate: boolean;
  allowHttp: boolean;
  /** opens the stored secret */
  secrets: SecretBox;
  /** aborted when the worker shuts down */
  shutdown: AbortSignal;
};

export type AttemptResult = {
  /** the receiver answered 2xx */
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** the first 1 KiB of the answer; null when there was no answer */
  responseBody: string | null;
  /** cut short by the worker's shutdown: not counted as an attempt */
  interrupted: boolean;
  /** for the server log only, never recorded with the attempt (e.g. the address a refused name resolved to) */
  logDetail?: string;
};

export async function sendAttempt(request: AttemptRequest, options: AttemptOptions): Promise<AttemptResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, options.shutdown]);
  const result = (fields: Partial<AttemptResult>): AttemptResult => ({
    ok: false,
    statusCode: null,
    error: null,
    responseBody: null,
    interrupted: false,
    ...fields,
    durationMs: Math.round(performance.now() - started),
  });

  let response: Response;
  try {
    const url = new URL(request.url);
    // the URL was checked when it was saved, under the configuration of then
    if (url.protocol !== "https:" && !(url.protocol === "http:" && options.allowHttp)) return result({ error: PLAIN_HTTP_REFUSED });
    let secret: string;
    try {
      secret = options.secrets.open(request.secret, request.webhookId);
    } catch (error) {
      if (!(error instanceof SecretUnreadable)) throw error;
      return result({ error: SECRET_UNREADABLE, logDetail: error.message });
    }
    const target = pinnedRequest(url, await resolveDestination(url.hostname, options.allowPrivate, signal));
    // webhook-id names the event (the same on every attempt, replay and webhook: what a receiver
    // de-duplicates on), X-Webhook-Id the delivery (docs/webhooks.md#which-id-to-de-duplicate-on)
    const messageId = request.eventId === null ? request.deliveryId : String(request.eventId);
    const headers = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      host: target.host,
      "x-webhook-event": request.event,
      "x-webhook-id": request.deliveryId,
      ...signatureHeaders(secret, messageId, request.payload, Math.floor(Date.now() / 1000)),
    };
    response = await fetch(target.url, {
      method: "POST",
      headers,
      body: request.payload,
      redirect: "manual", // a redirect is a failure: following it could lead anywhere, unchecked
      signal,
      ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
    });
  } catch (error) {
    if (options.shutdown.aborted) return result({ interrupted: true, error: "Interrupted by worker shutdown." });
    if (timeout.aborted) return result({ error: `Timed out after ${options.timeoutMs} ms.` });
    if (error instanceof DestinationRefused) return result({ error: REFUSED_DESTINATION, logDetail: error.message });
    return result({ error: describeError(error) });
  }

  // the status decides; the body is kept for the log only, so failing to read it changes nothing
  const responseBody = await readPrefix(response, RESPONSE_BODY_LIMIT).catch(() => "");
  const status = response.status;
  if (status >= 200 && status < 300) return result({ ok: true, statusCode: status, responseBody });
  const error = status >= 300 && status < 400 ? `Redirect to ${response.headers.get("location") ?? "(no Location)"} not followed.` : null;
  return result({ statusCode: status, responseBody, error });
}

/** The first `limit` bytes of the body as text (a multi-byte character cut in two becomes U+FFFD). */
async function readPrefix(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, ERROR_LIMIT);
  const code = (error as NodeJS.ErrnoException).code;
  const text = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return text.slice(0, ERROR_LIMIT);
}
