/**
 * The Peppol channel (docs/sending.md#peppol-through-an-access-point): the delivery worker hands it an `Outgoing` (../channel.ts), the
 * UBL and the two participant ids; it sends through the organisation's access point and says
 * what happened. Like every channel it writes nothing: the worker records the attempt.
 */
import type { Db } from "../../../db/client.ts";
import { SecretUnreadable, type SecretBox } from "../../lib/secret-box.ts";
import type { ChannelResult, Outgoing } from "../channel.ts";
import type { PeppolDocumentType, PeppolProfile } from "./access-point.ts";
import { NO_ACCESS_POINT } from "../../invoices/deliveries.ts";
import { accessPointFor } from "./settings.ts";

export type PeppolDeps = { db: Db; secrets: SecretBox; timeoutMs?: number };

export type PeppolOutgoing = Outgoing & {
  /** the UBL as issued: Peppol BIS Billing 3.0, or XRechnung for a customer whose profile it is */
  ubl: string;
  profile: PeppolProfile;
  /** the buyer as issued: its frozen peppol_id */
  recipientPeppolId: string;
  /** the organisation's own peppol_id */
  senderPeppolId: string;
};

/** An invoice's type as Peppol carries it: an interest note is an invoice (BT-3 380). */
const PEPPOL_TYPES: Record<string, PeppolDocumentType> = { invoice: "invoice", interest_note: "invoice", credit_note: "credit_note" };

/** Sends one document over Peppol; `failed` at once when there is no access point to send through. */
export async function sendOverPeppol(deps: PeppolDeps, outgoing: PeppolOutgoing): Promise<ChannelResult> {
  const documentType = PEPPOL_TYPES[outgoing.documentType];
  if (outgoing.subject !== "invoice" || documentType === undefined) {
    return { outcome: "failed", detail: `A ${outgoing.documentType.replace("_", " ")} does not travel over Peppol (Peppol BIS Billing 3.0 carries invoices and credit notes).` };
  }
  let accessPoint;
  try {
    accessPoint = await accessPointFor(deps.db, deps.secrets, outgoing.organizationId, { timeoutMs: deps.timeoutMs });
  } catch (error) {
    if (error instanceof SecretUnreadable) return { outcome: "failed", detail: `The organisation's Peppol credentials cannot be read: ${error.message}.` };
    throw error;
  }
  if (!accessPoint) return { outcome: "failed", detail: NO_ACCESS_POINT };
  return accessPoint.send({ sender: outgoing.senderPeppolId, recipient: outgoing.recipientPeppolId, documentType, profile: outgoing.profile, ubl: outgoing.ubl });
}
