/**
 * What a delivery channel is handed and what it answers (docs/sending.md#what-a-deliverys-status-means). The delivery worker
 * (worker.ts) claims a queued delivery, renders what it carries and gives it to its channel:
 * e-mail (email.ts, SMTP through nodemailer) or Peppol (peppol/, through the organisation's
 * access point). A channel never touches the database: it sends and says what happened.
 */
import type { DeliverySubject, DocumentLanguage, EinvoiceProfile } from "../../db/values.ts";

/** A rendered file the channel sends or attaches. */
export type OutgoingFile = { filename: string; contentType: string; content: Uint8Array };

/** One document on its way, rendered. */
export type Outgoing = {
  organizationId: string;
  deliveryId: string;
  subject: DeliverySubject;
  /** "invoice" | "credit_note" | "interest_note" for an invoice; "reminder" for a reminder */
  documentType: string;
  /** the document's number (a reminder's: the invoice's it reminds of first) */
  number: string;
  language: DocumentLanguage;
  /** the PDF, always */
  pdf: OutgoingFile;
  /** the e-invoice (UBL, or the customer's profile), when the document is issued as one */
  einvoice: OutgoingFile | null;
  /** the customer's einvoice_profile, which says which e-invoice it is (null: Peppol BIS when there is one) */
  einvoiceProfile?: EinvoiceProfile | null;
  /** further files an e-mail carries with it: a reminder's interest note (its PDF, and its e-invoice) */
  attachments?: OutgoingFile[];
};

/**
 * A channel's answer. `accepted`: the document is with the channel (SMTP 250, the access
 * point's receipt); `retry`: a temporary refusal (SMTP 4xx, connection refused, a timeout, HTTP
 * 429/5xx), tried again with backoff; `failed`: a permanent refusal (SMTP 5xx, HTTP 4xx), final.
 * `detail` is the other side's answer as given, kept in the attempt.
 */
export type ChannelResult =
  | { outcome: "accepted"; detail: string | null; providerReference: string | null }
  | { outcome: "retry"; detail: string }
  | { outcome: "failed"; detail: string };
