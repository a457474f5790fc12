/**
 * Documents received over Peppol (docs/payables.md#documents-received-over-peppol): for each
 * organisation with an access point, what its inbox holds goes through the same import as `POST /api/v1/expenses/import` (a supplier's
 * invoice becomes a pending expense with its original kept, a zero-total one a received
 * document), then is acknowledged at the access point, which takes it out of the inbox.
 *
 * Idempotent through the import's own duplicate detection (the same supplier's document of the
 * same type and number is imported once, a 409): a document imported but not acknowledged (the
 * process stopped in between, the acknowledgement failed) is found again at the next poll, refused
 * as a duplicate, and acknowledged then. No provider document id is remembered.
 *
 * A document the import refuses (not a UBL invoice or credit note, totals that do not add up, a
 * text longer than the API takes, more than the import's 10 MiB) is left in the inbox,
 * unacknowledged, and reported with the reason at every poll until someone deals with it at the
 * access point: acknowledging it would lose it without anyone having booked it.
 */
import type { Db } from "../../../db/client.ts";
import { importSupplierDocument } from "../../expenses/import.ts";
import { InboundDocumentError } from "../../inbound/errors.ts";
import { ApiError, Conflict } from "../../lib/errors.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import type { Logger } from "../../log.ts";
import { findOrganization } from "../../orgs/service.ts";
import { AccessPointError, AnswerTooLarge } from "./access-point.ts";
import { accessPointFor, organizationsWithAccessPoint } from "./settings.ts";

export type InboxDeps = { db: Db; secrets: SecretBox; log?: Logger; timeoutMs?: number };

/** What one received document became. */
export type PolledDocument = {
  organization_id: string;
  provider_document_id: string;
  /** imported: a new expense or received document; duplicate: imported before (acknowledged now); refused: the import's 422, left in the inbox; error: the access point did not answer */
  outcome: "imported" | "duplicate" | "refused" | "error";
  /** the expense's or received document's id, when imported */
  id: string | null;
  kind: "expense" | "received_document" | null;
  detail: string | null;
};

export type PollResult = { organizations: number; documents: PolledDocument[]; errors: { organization_id: string; detail: string }[] };

/** Polls the inboxes of every organisation with an access point, or of `orgId` only. */
export async function pollPeppolInbox(deps: InboxDeps, orgId?: string): Promise<PollResult> {
  const orgIds = orgId === undefined ? await organizationsWithAccessPoint(deps.db) : [orgId];
  const result: PollResult = { organizations: 0, documents: [], errors: [] };
  for (const id of orgIds) {
    try {
      await pollOrganization(deps, id, result);
    } catch (error) {
      // one organisation's access point (or its unreadable credentials) does not stop the others'
      const detail = (error as Error).message;
      result.errors.push({ organization_id: id, detail });
      deps.log?.warn("peppol inbox poll failed", { organization_id: id, error: detail });
    }
  }
  return result;
}

async function pollOrganization(deps: InboxDeps, orgId: string, result: PollResult): Promise<void> {
  const accessPoint = await accessPointFor(deps.db, deps.secrets, orgId, { timeoutMs: deps.timeoutMs });
  if (!accessPoint) return;
  result.organizations++;
  // what the access point received is imported by the worker (or kontor peppol poll): a system change
  const scope = { db: deps.db, org: await findOrganization(deps.db, orgId), actor: { type: "system" as const, id: null, ip: null, requestId: null } };
  for (const received of await accessPoint.inbox()) {
    const entry: PolledDocument = { organization_id: orgId, provider_document_id: received.id, outcome: "error", id: null, kind: null, detail: null };
    result.documents.push(entry);
    try {
      let bytes: Uint8Array;
      try {
        bytes = await accessPoint.download(received.id);
      } catch (error) {
        // larger than the import takes: refused like a document the import refuses, and left in the inbox
        if (!(error instanceof AnswerTooLarge)) throw error;
        Object.assign(entry, { outcome: "refused", detail: error.message });
        deps.log?.warn("peppol document refused: too large; left in the inbox", { organization_id: orgId, provider_document_id: received.id, error: error.message });
        continue;
      }
      try {
        const imported = await importSupplierDocument(scope, { bytes, mediaType: "application/xml", charset: null }, {});
        Object.assign(entry, { outcome: "imported", id: imported.data.id, kind: imported.kind });
      } catch (error) {
        if (error instanceof Conflict) Object.assign(entry, { outcome: "duplicate", detail: error.message });
        else if (error instanceof ApiError && error.status === 422) {
          // the reason names where: the element's path (and its business term in the message)
          const detail = error instanceof InboundDocumentError ? `${error.path}: ${error.message}` : error.message;
          Object.assign(entry, { outcome: "refused", detail });
          deps.log?.warn("peppol document refused by the import; left in the inbox", { organization_id: orgId, provider_document_id: received.id, error: detail });
          continue;
        } else throw error;
      }
      await accessPoint.acknowledge(received.id);
    } catch (error) {
      if (!(error instanceof AccessPointError)) throw error;
      entry.detail = error.message;
      deps.log?.warn("peppol inbox document not taken", { organization_id: orgId, provider_document_id: received.id, error: error.message });
    }
  }
}
