/**
 * A Peppol access point, as Kontor uses one (docs/sending.md#why-an-access-point). Kontor cannot join the Peppol network
 * itself (an access point is certified by OpenPEPPOL), so it hands its UBL to a provider's API
 * and reads what arrived for the organisation from it. One provider is one adapter implementing
 * `AccessPoint` (recommand.ts); `accessPointFor` (settings.ts) picks it from the organisation's
 * configuration.
 *
 * Failures are classified once, here, as every channel's are (../channel.ts): a network error,
 * a timeout, HTTP 429 and 5xx are worth another try (`retry`); any other 4xx is the provider
 * refusing the request for good (`failed`), with its message as the detail.
 */
import type { PeppolProvider } from "../../../db/values.ts";
import type { ChannelResult } from "../channel.ts";
import { MAX_DOCUMENT_BYTES } from "../../inbound/decode.ts";
import { readAtMost } from "../../lib/bounded-read.ts";

/** The Peppol BIS Billing 3.0 document type identifiers (the "busdox-docid-qns" scheme's values). */
export const PEPPOL_DOCUMENT_TYPES = {
  invoice:
    "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
  credit_note:
    "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
} as const;
/** The Peppol BIS Billing 3.0 process identifier. */
export const PEPPOL_BILLING_PROCESS = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

/**
 * XRechnung 3.0 UBL over Peppol: the same syntax under XRechnung's customization, so a receiver
 * registered for XRechnung only takes it (the identifier is the UBL root's namespace and name,
 * then its CustomizationID and the syntax version).
 */
export const XRECHNUNG_DOCUMENT_TYPES = {
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1",
  credit_note: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1",
} as const;

export type PeppolDocumentType = keyof typeof PEPPOL_DOCUMENT_TYPES;

/** Which specification the UBL follows: Peppol BIS Billing 3.0, or XRechnung for a customer whose profile it is. */
export type PeppolProfile = "peppol" | "xrechnung";

/** The document type identifier a UBL document travels under. */
export const documentTypeId = (type: PeppolDocumentType, profile: PeppolProfile = "peppol"): string =>
  (profile === "xrechnung" ? XRECHNUNG_DOCUMENT_TYPES : PEPPOL_DOCUMENT_TYPES)[type];

/** A UBL document on its way: participant ids are `<scheme>:<id>`, e.g. "0208:0123456749". */
export type PeppolSubmission = { sender: string; recipient: string; documentType: PeppolDocumentType; profile?: PeppolProfile; ubl: string };

/**
 * What became of a sent document: `delivered`: the receiving access point acknowledged it;
 * `pending`: the provider holds it, not yet delivered; `failed`: it will not be delivered.
 */
export type SentDocumentStatus = { state: "delivered" | "pending" | "failed"; detail: string | null };

/** A document received for the organisation and not yet acknowledged. */
export type ReceivedDocumentRef = { id: string; sender: string; documentTypeId: string; receivedAt: string };

export interface AccessPoint {
  readonly provider: PeppolProvider;
  /** Hands the UBL to the access point; `accepted` carries the provider's document id as providerReference. */
  send(submission: PeppolSubmission): Promise<ChannelResult>;
  /** The state of a document sent earlier, by the providerReference `send` answered. */
  status(providerReference: string): Promise<SentDocumentStatus>;
  /** Received documents not acknowledged yet. */
  inbox(): Promise<ReceivedDocumentRef[]>;
  /** A received document's UBL, byte for byte as the provider keeps it. */
  download(id: string): Promise<Uint8Array>;
  /** Marks a received document as taken: it leaves the inbox. */
  acknowledge(id: string): Promise<void>;
  /** Whether the participant is registered in the Peppol network for this document type. */
  canReceive(participant: string, documentType: PeppolDocumentType): Promise<boolean>;
}

/** A call that did not get its answer; `retry`: worth trying again later (network, timeout, 429, 5xx). */
export class AccessPointError extends Error {
  constructor(
    readonly retry: boolean,
    message: string,
  ) {
    super(message);
  }
}

/** Whether an HTTP status is a temporary refusal (429, 5xx) rather than a final one (other 4xx). */
export const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** An AccessPointError as a channel's answer. */
export function channelFailure(error: unknown): ChannelResult {
  if (error instanceof AccessPointError) return error.retry ? { outcome: "retry", detail: error.message } : { outcome: "failed", detail: error.message };
  throw error;
}

/** How long one call to an access point may take before it counts as a timeout (retried). */
export const ACCESS_POINT_TIMEOUT_MS = 30_000;

/**
 * The most an access point's answer may hold: the import's limit on one document (a received
 * document travels inside its answer). Larger answers are refused while they are read, so a
 * provider (or whoever answers in its place) cannot make Kontor hold more than this.
 */
export const MAX_ANSWER_BYTES = MAX_DOCUMENT_BYTES;

/** An answer larger than MAX_ANSWER_BYTES: not worth another try (the same answer would come again). */
export class AnswerTooLarge extends AccessPointError {
  constructor(what: string, limit: number) {
    super(false, `${what}: the answer is larger than ${limit} bytes (${limit / 1024 / 1024} MiB), the most Kontor reads`);
  }
}

/**
 * One HTTP call to a provider: its JSON answer on 2xx, else an AccessPointError classified by
 * status, with `describe(body)` (the provider's own message) as its text. A network error or a
 * timeout is `retry`; so is a 2xx whose body is not JSON (a proxy's error page, a cut answer).
 * The answer is read as a stream with a byte counter and the call aborted past `maxBytes`
 * (AnswerTooLarge), whatever Content-Length says.
 */
export async function callJson(
  url: string,
  init: RequestInit & { timeoutMs?: number; maxBytes?: number },
  describe: (body: unknown, status: number) => string,
): Promise<unknown> {
  const what = `${init.method ?? "GET"} ${new URL(url).pathname}`;
  const limit = init.maxBytes ?? MAX_ANSWER_BYTES;
  const abort = new AbortController();
  const timeout = AbortSignal.timeout(init.timeoutMs ?? ACCESS_POINT_TIMEOUT_MS);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.any([abort.signal, timeout]) });
    text = await readLimited(response, limit, () => abort.abort());
  } catch (error) {
    if (error instanceof TooLarge) throw new AnswerTooLarge(what, limit);
    const name = (error as Error).name;
    const reason = name === "TimeoutError" || name === "AbortError" ? "timed out" : `failed: ${(error as Error).message}`;
    throw new AccessPointError(true, `${what} ${reason}`);
  }
  let body: unknown = null;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    body = text.slice(0, 500);
  }
  if (!response.ok) throw new AccessPointError(retryableStatus(response.status), `${what}: HTTP ${response.status}: ${describe(body, response.status)}`);
  if (body === null || typeof body !== "object") throw new AccessPointError(true, `${what}: HTTP ${response.status} without a JSON answer`);
  return body;
}

class TooLarge extends Error {}

/** The body as UTF-8 text, read chunk by chunk; past `limit` bytes the request is aborted and TooLarge thrown. */
async function readLimited(response: Response, limit: number, abort: () => void): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    abort();
    throw new TooLarge();
  }
  const bytes = await readAtMost(response.body, limit);
  if (bytes === null) {
    abort();
    throw new TooLarge();
  }
  return new TextDecoder().decode(bytes);
}
