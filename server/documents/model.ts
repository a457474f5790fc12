/**
 * What an issued document says (an invoice, a credit note or an interest note): the one input of
 * every renderer, handed to them by the feature that issues it (read once from the database by
 * server/invoices/document.ts), with its VAT breakdown from vat-breakdown.ts. It is rendered as a
 * Peppol BIS Billing 3.0 or XRechnung UBL file (ubl.ts), a CII file (cii.ts), a PDF (pdf.ts) or a
 * Factur-X PDF (facturx.ts), and the e-mail that carries it quotes it (server/sending/messages.ts).
 * Renderers take this and nothing else: no database, no clock, so the same document renders to
 * the same bytes.
 *
 * Amounts are integer cents (quantities in hundredths, rates in hundredths of a percent), as
 * stored; renderers format them with server/lib/money.ts.
 */
import type { DocumentLanguage, DocumentParty, DocumentPayee, SupplyType, VatCategory } from "../../db/values.ts";
export { DOCUMENT_LANGUAGES, VAT_CATEGORIES, type DocumentLanguage, type DocumentParty, type DocumentPayee, type IssuedParties, type VatCategory } from "../../db/values.ts";

/** The VATEX codes Kontor seeds, with the reason in words (BT-120) as the code list states it. */
export const VATEX_REASONS: Record<string, string> = {
  "VATEX-EU-AE": "Reverse charge",
  "VATEX-EU-IC": "Intra-Community supply",
  "VATEX-EU-G": "Export outside the EU",
  "VATEX-EU-O": "Not subject to VAT",
  "VATEX-EU-132": "Exempt based on article 132 of Council Directive 2006/112/EC",
  "VATEX-EU-143": "Exempt based on article 143 of Council Directive 2006/112/EC",
  "VATEX-EU-148": "Exempt based on article 148 of Council Directive 2006/112/EC",
  "VATEX-EU-151": "Exempt based on article 151 of Council Directive 2006/112/EC",
  "VATEX-EU-309": "Exempt based on article 309 of Council Directive 2006/112/EC",
};



export type DocumentLine = {
  /** 1-based position */
  position: number;
  description: string;
  /** hundredths: 1.25 → 125 */
  quantityCents: number;
  /** UN/ECE Recommendation 20, e.g. "C62" (one), "HUR" (hour) */
  unitCode: string;
  unitPriceCents: number;
  /** quantity × unit price, rounded half-up */
  amountCents: number;
  vatCategory: VatCategory;
  /** hundredths of a percent: 21 % → 2100 */
  vatRateBp: number;
  vatCents: number;
  /**
   * Its discount (BG-27), in the terms of the document's prices (gross when `pricesIncludeVat`):
   * `cents` off quantity × unit price, given as a percentage (`percentBp`) or as an amount.
   */
  discount?: { cents: number; percentBp: number | null; reason: string | null } | null;
  /** what it supplies, as its `supply_type` says; null or absent for a line issued before Kontor recorded it */
  supplyType?: SupplyType | null;
};

/**
 * A document-level allowance (BG-20) or charge (BG-21): `amountCents` in the terms of the
 * document's prices, as given (gross when `pricesIncludeVat`); `netCents` (BT-92, BT-99) and
 * `vatCents` its net amount and VAT, both positive.
 */
export type DocumentAllowanceCharge = {
  isCharge: boolean;
  amountCents: number;
  netCents: number;
  vatCents: number;
  percentBp: number | null;
  baseCents: number | null;
  reason: string | null;
  /** UNCL5189 (allowances) or UNCL7161 (charges) */
  reasonCode: string | null;
  vatCategory: VatCategory;
  vatRateBp: number;
};

/** One row of the VAT breakdown: per category and rate. */
export type DocumentVatGroup = {
  category: VatCategory;
  rateBp: number;
  taxableCents: number;
  vatCents: number;
  /** VATEX code where the category needs an exemption reason (E, AE, K, G, O), e.g. "VATEX-EU-AE" */
  exemptionReasonCode: string | null;
  exemptionReason: string | null;
};

export type IssuedDocument = {
  type: "invoice" | "credit_note" | "interest_note";
  id: string;
  number: string;
  status: "draft" | "finalized" | "sent" | "partially_paid" | "paid" | "cancelled";
  issueDate: string;
  dueDate: string;
  currency: string;
  /** document language: the customer's, else the organisation's, else "en" */
  language: DocumentLanguage;
  buyerReference: string | null;
  orderReference: string | null;
  /** BG-14 invoicing period (BT-73, BT-74): the service billed, when the document names it */
  servicePeriod?: { start: string; end: string } | null;
  /** BT-72, the date of supply; a German seller's without a service period is its issue date (supplyDateOf in legal-mentions.ts) */
  deliveryDate?: string | null;
  /** BE structured communication "+++123/4567/89012+++" or an ISO 11649 "RF…" reference; null on a draft */
  paymentReference: string | null;
  /** the invoice a credit note credits, or an interest note charges interest on (its number and issue date; BillingReference in UBL) */
  credited: { number: string; issueDate: string } | null;
  notes: string | null;
  paymentTerms: string | null;
  seller: DocumentParty;
  buyer: DocumentParty;
  /** the seller's account for credit transfers, from the organisation's default bank account */
  payee: DocumentPayee | null;
  lines: DocumentLine[];
  /** unit prices and allowance and charge amounts include VAT; lines' amounts are their net shares */
  pricesIncludeVat?: boolean;
  allowanceCharges?: DocumentAllowanceCharge[];
  /** BT-106, BT-107, BT-108: absent, the lines' sum and none */
  lineTotalCents?: number;
  allowanceCents?: number;
  chargeCents?: number;
  vatGroups: DocumentVatGroup[];
  /** without VAT (BT-109): line total − allowances + charges */
  subtotalCents: number;
  vatCents: number;
  totalCents: number;
  paidCents: number;
  dueCents: number;
};
