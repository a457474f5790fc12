/**
 * One delivery attempt (api-spec 6.3 and 6.5, contract 7.4 to 7.6): resolve and check the
 * destination, sign with the secret given, POST the frozen payload, and describe what happened.
 * It never throws: every failure is an attempt result, recorded by the worker.
 */
import { DestinationRefused, pinnedRequest, resolveDestination } from "./ssrf.ts";
import { signatureHeaders } from "./signing.ts";

export const USER_AGENT = "Kontor-Webhook/1.0";
/** How much of the receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 1024;
const ERROR_LIMIT = 500;

export type AttemptRequest = { deliveryId: string; event: string; payload: string; url: string; secret: string };

export type AttemptOptions = {
  /** the whole attempt, DNS included, ends by then (10 s by default, KONTOR_WEBHOOK_TIMEOUT_MS) */
  timeoutMs: number;
  allowPrivate: boolean;
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
    const target = pinnedRequest(url, await resolveDestination(url.hostname, options.allowPrivate, signal));
    const headers = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      host: target.host,
      "x-webhook-event": request.event,
      "x-webhook-id": request.deliveryId,
      ...signatureHeaders(request.secret, request.deliveryId, request.payload, Math.floor(Date.now() / 1000)),
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
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

function describeError(error: unknown): string {
  if (error instanceof DestinationRefused) return error.message;
  if (!(error instanceof Error)) return String(error).slice(0, ERROR_LIMIT);
  const code = (error as NodeJS.ErrnoException).code;
  const text = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return text.slice(0, ERROR_LIMIT);
}
