/**
 * Recommand (https://recommand.eu), an open-source Peppol access point, through its API v1.
 * Written against the routes of its source (recommand/recommand-peppol: api/send-document.ts,
 * api/documents/get-inbox.ts, get-document.ts, mark-as-read.ts, api/recipients/
 * verify-document.support.ts), whose hono-openapi descriptions make its published OpenAPI
 * document; tests/sending/recommand-api.json transcribes what this adapter relies on, and the
 * tests' fake provider checks every request against it.
 *
 * - Authentication: HTTP Basic with the API key and secret of the Recommand dashboard.
 * - A company (`companyId`) is the organisation as Recommand knows it; Recommand sends with the
 *   company's own Peppol identifier, so the sender of a submission is not part of the request.
 * - Every answer is `{success: true, …}` or `{success: false, errors: {field: [message]}}`.
 */
import type { ChannelResult } from "../channel.ts";
import {
  AccessPointError,
  callJson,
  channelFailure,
  documentTypeId,
  PEPPOL_DOCUMENT_TYPES,
  PEPPOL_BILLING_PROCESS,
  type AccessPoint,
  type PeppolDocumentType,
  type PeppolSubmission,
  type ReceivedDocumentRef,
  type SentDocumentStatus,
} from "./access-point.ts";

export const RECOMMAND_BASE_URL = "https://app.recommand.eu/api/v1";

export type RecommandCredentials = { apiKey: string; apiSecret: string; companyId: string; baseUrl: string };

type Json = Record<string, unknown>;

/** The provider's own words for a refusal: `errors` flattened ("field: message"), else the body as text. */
function describeFailure(body: unknown): string {
  if (body && typeof body === "object") {
    const errors = (body as Json).errors;
    if (errors && typeof errors === "object") {
      const parts = Object.entries(errors as Record<string, unknown>).map(([field, messages]) =>
        (field === "root" ? "" : `${field}: `) + (Array.isArray(messages) ? messages.join("; ") : String(messages)),
      );
      if (parts.length > 0) return parts.join("; ");
    }
    return JSON.stringify(body).slice(0, 500);
  }
  return body === null ? "(no body)" : String(body);
}

export class RecommandAccessPoint implements AccessPoint {
  readonly provider = "recommand" as const;
  readonly #authorization: string;

  constructor(
    readonly credentials: RecommandCredentials,
    readonly timeoutMs?: number,
  ) {
    this.#authorization = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiSecret}`).toString("base64")}`;
  }

  #url(path: string): string {
    return this.credentials.baseUrl.replace(/\/+$/, "") + path;
  }

  async #call(method: "GET" | "POST", path: string, body?: unknown): Promise<Json> {
    const headers: Record<string, string> = { authorization: this.#authorization, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const answer = (await callJson(
      this.#url(path),
      { method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: this.timeoutMs },
      describeFailure,
    )) as Json;
    // a 2xx that says it failed is the provider refusing (actionFailure with a success status)
    if (answer.success !== true) throw new AccessPointError(false, `${method} ${path}: ${describeFailure(answer)}`);
    return answer;
  }

  async send(submission: PeppolSubmission): Promise<ChannelResult> {
    try {
      // documentType "xml": the UBL as Kontor issued it, not rebuilt from Recommand's JSON model
      const answer = await this.#call("POST", `/${encodeURIComponent(this.credentials.companyId)}/send`, {
        recipient: submission.recipient,
        documentType: "xml",
        document: submission.ubl,
        doctypeId: documentTypeId(submission.documentType, submission.profile),
        processId: PEPPOL_BILLING_PROCESS,
      });
      if (typeof answer.id !== "string") throw new AccessPointError(true, "Recommand accepted the document without an id");
      // without an e-mail fallback, an answer that did not go over Peppol is a 422, so this is a receipt
      if (answer.sentOverPeppol !== true) return { outcome: "failed", detail: `Recommand did not send document ${answer.id} over Peppol` };
      const message = typeof answer.peppolMessageId === "string" ? `; Peppol message ${answer.peppolMessageId}` : "";
      return { outcome: "accepted", detail: `Recommand document ${answer.id}${message}`, providerReference: answer.id };
    } catch (error) {
      return channelFailure(error);
    }
  }

  async status(providerReference: string): Promise<SentDocumentStatus> {
    const answer = await this.#call("GET", `/documents/${encodeURIComponent(providerReference)}`);
    const document = answer.document as Json;
    // Recommand sends over AS4 while it answers the send: a document is either sent or not at all
    if (document.sentOverPeppol === true) {
      return { state: "delivered", detail: typeof document.peppolMessageId === "string" ? `Peppol message ${document.peppolMessageId}` : null };
    }
    return { state: "failed", detail: "Recommand did not send it over Peppol" };
  }

  async inbox(): Promise<ReceivedDocumentRef[]> {
    const answer = await this.#call("GET", `/inbox?companyId=${encodeURIComponent(this.credentials.companyId)}`);
    return (answer.documents as Json[])
      .filter((d) => d.direction === "incoming")
      .map((d) => ({ id: String(d.id), sender: String(d.senderId), documentTypeId: String(d.docTypeId), receivedAt: String(d.createdAt) }));
  }

  async download(id: string): Promise<Uint8Array> {
    const answer = await this.#call("GET", `/documents/${encodeURIComponent(id)}`);
    const xml = (answer.document as Json).xml;
    if (typeof xml !== "string") throw new AccessPointError(false, `Recommand holds no XML for document ${id}`);
    return new TextEncoder().encode(xml);
  }

  async acknowledge(id: string): Promise<void> {
    await this.#call("POST", `/documents/${encodeURIComponent(id)}/mark-as-read`, { read: true });
  }

  async canReceive(participant: string, documentType: PeppolDocumentType): Promise<boolean> {
    const answer = await this.#call("POST", "/verify-document-support", { peppolAddress: participant, documentType: PEPPOL_DOCUMENT_TYPES[documentType] });
    return answer.isValid === true;
  }
}
