/** The columns customers and suppliers share (server/contacts/party-service.ts writes both through them). */
import { text } from "drizzle-orm/sqlite-core";
import { DOCUMENT_LANGUAGES, EINVOICE_PROFILES, SEND_CHANNELS } from "../values.ts";
import { bool, createdAt, externalId, id, metadata, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";

/** Customers and suppliers share their columns and rules. */
export const partyColumns = () => ({
  id: id(),
  organizationId: orgId(),
  name: text("name").notNull(),
  email: text("email"),
  phone: text("phone"),
  address: text("address"),
  city: text("city"),
  postalCode: text("postal_code"),
  country: text("country"),
  vatNumber: text("vat_number"),
  currency: text("currency"),
  paymentTerms: text("payment_terms"),
  /** the legal registration (EN 16931 BT-30 seller, BT-47 buyer), e.g. a Belgian enterprise number */
  companyNumber: text("company_number"),
  /** `<EAS scheme>:<id>`: where e-invoices reach the party over Peppol */
  peppolId: text("peppol_id"),
  /** the language of the documents it receives; null: the organisation's */
  language: text("language", { enum: DOCUMENT_LANGUAGES }),
  // customers only (suppliers carry the columns unused; their API never shows them):
  /** how its documents are sent when a send asks for `preferred`; null: peppol when it has a peppol_id, else email */
  preferredChannel: text("preferred_channel", { enum: SEND_CHANNELS }),
  /** the default buyer reference (BT-10) of its new invoices, e.g. a German public buyer's Leitweg-ID */
  buyerReference: text("buyer_reference"),
  /** the e-invoice it receives; null: peppol */
  einvoiceProfile: text("einvoice_profile", { enum: EINVOICE_PROFILES }),
  /** no reminder run reminds it of any invoice, and why */
  remindersPaused: bool("reminders_paused").notNull().default(false),
  remindersPausedReason: text("reminders_paused_reason"),
  externalId: externalId(),
  metadata: metadata(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
