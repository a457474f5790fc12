/**
 * Reads an issued document (an invoice or a credit note) into the model of ./model.ts, the one
 * input of the UBL and PDF renderers: the seller (the organisation), the buyer (the customer),
 * the payee account, the lines with their VAT categories, the VAT breakdown and the totals.
 * Everything is read in the caller's transaction, so the document is one consistent snapshot
 * (`loadDocument` opens one).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { bankAccounts, customers, invoiceLines, invoices, organizations, vatRates } from "../../db/schema.ts";
import { NotFound } from "../lib/errors.ts";
import { findInOrg, inOrg, snapshot } from "../lib/scope.ts";
import {
  DOCUMENT_LANGUAGES,
  VAT_CATEGORIES,
  type DocumentLanguage,
  type IssuedParties,
  VATEX_REASONS,
  type DocumentLine,
  type DocumentParty,
  type DocumentVatGroup,
  type IssuedDocument,
  type VatCategory,
} from "./model.ts";

/**
 * The VATEX code a category needs when its rate has none of its own (seeded rates all have
 * one; see server/vat-rates/seed.ts). S and Z take no exemption reason (EN 16931 BR-S-10, BR-Z-10).
 */
const DEFAULT_EXEMPTION: Partial<Record<VatCategory, string>> = {
  AE: "VATEX-EU-AE",
  K: "VATEX-EU-IC",
  G: "VATEX-EU-G",
  E: "VATEX-EU-132",
  O: "VATEX-EU-O",
};

const isLanguage = (value: string | null | undefined): value is DocumentLanguage =>
  value !== null && value !== undefined && (DOCUMENT_LANGUAGES as readonly string[]).includes(value);

/** The columns an organisation and a customer share with a document's party, by the same names. */
type PartyFields = Omit<DocumentParty, "companyNumber">;

function party(row: PartyFields, companyNumber: string | null): DocumentParty {
  const { name, address, city, postalCode, country, vatNumber, email, phone, peppolId } = row;
  return { name, address, city, postalCode, country, vatNumber, companyNumber, email, phone, peppolId };
}

/**
 * The account a credit transfer goes to: the organisation's default bank account while it is
 * active, else its first active one (oldest first), else none. Kontor keeps no BIC (an IBAN is
 * enough for SEPA), and the account is the organisation's, so its name is the organisation's.
 */
function payeeOf(tx: Tx, orgId: string, defaultId: string | null, holder: string): IssuedDocument["payee"] {
  const active = tx
    .select()
    .from(bankAccounts)
    .where(inOrg(bankAccounts, orgId, eq(bankAccounts.isActive, true)))
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id))
    .all();
  const account = active.find((a) => a.id === defaultId) ?? active[0];
  return account ? { iban: account.iban, bic: null, accountName: holder } : null;
}

/** The VAT breakdown: one group per (category, rate), in the order of VAT_CATEGORIES, higher rates first. */
function vatGroupsOf(lines: DocumentLine[], exemptionOf: Map<string, string | null>): DocumentVatGroup[] {
  const groups = new Map<string, DocumentVatGroup>();
  for (const line of lines) {
    const key = `${line.vatCategory}\u0000${line.vatRateBp}`;
    let group = groups.get(key);
    if (!group) {
      const code = exemptionOf.get(key) ?? DEFAULT_EXEMPTION[line.vatCategory] ?? null;
      group = {
        category: line.vatCategory,
        rateBp: line.vatRateBp,
        taxableCents: 0,
        vatCents: 0,
        exemptionReasonCode: code,
        exemptionReason: code ? (VATEX_REASONS[code] ?? null) : null,
      };
      groups.set(key, group);
    }
    group.taxableCents += line.amountCents;
    // Σ of the lines' VAT, each rounded half-up (contract section 3), so the breakdown adds up
    // to the invoice's vat_amount exactly
    group.vatCents += line.vatCents;
  }
  const order = (c: VatCategory) => VAT_CATEGORIES.indexOf(c);
  return [...groups.values()].sort((a, b) => order(a.category) - order(b.category) || b.rateBp - a.rateBp);
}

/**
 * Seller, buyer, payee and language of an invoice as the organisation and the customer are now:
 * what a draft shows, and what finalize freezes (`invoices.issued_parties`).
 */
export function currentParties(tx: Tx, orgId: string, customerId: string): IssuedParties {
  const org = tx.select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw new NotFound();
  const customer = findInOrg(tx, customers, orgId, customerId);
  return {
    language: isLanguage(customer.language) ? customer.language : isLanguage(org.language) ? org.language : "en",
    seller: party(org, org.companyNumber),
    buyer: party(customer, null),
    payee: payeeOf(tx, orgId, org.defaultBankAccountId, org.name),
  };
}

/**
 * The document of this invoice or credit note of the organisation (404 when there is none), read
 * in `tx`. An issued one shows its parties as they were at finalize; one finalized before they
 * were frozen (migration 0015), as they are now.
 */
export function readDocument(tx: Tx, orgId: string, invoiceId: string): IssuedDocument {
  const invoice = findInOrg(tx, invoices, orgId, invoiceId);
  const parties = invoice.issuedParties ?? currentParties(tx, orgId, invoice.customerId);
  const lineRows = tx
    .select()
    .from(invoiceLines)
    .where(inOrg(invoiceLines, orgId, eq(invoiceLines.invoiceId, invoice.id)))
    .orderBy(asc(invoiceLines.sortOrder), asc(invoiceLines.id))
    .all();
  const rateIds = [...new Set(lineRows.map((l) => l.vatRateId).filter((id): id is string => id !== null))];
  const rates = new Map(
    (rateIds.length === 0 ? [] : tx.select().from(vatRates).where(and(inOrg(vatRates, orgId), inArray(vatRates.id, rateIds))).all()).map((r) => [r.id, r]),
  );

  const exemptionOf = new Map<string, string | null>();
  const lines: DocumentLine[] = lineRows.map((l, i) => {
    const rate = l.vatRateId ? rates.get(l.vatRateId) : undefined;
    // EN 16931 needs a VAT category on every line (BR-CO-04). A line without a VAT rate has no
    // VAT (contract section 3): it is shown as zero rated, Z at 0 %, the category of a taxable
    // supply at 0 % that needs no exemption reason. (O, "not subject to VAT", would forbid
    // every other category on the document and the seller's VAT number, BR-O-*.)
    const category: VatCategory = rate?.category ?? "Z";
    const key = `${category}\u0000${l.vatRateBp}`;
    if (!exemptionOf.has(key) && rate?.exemptionReasonCode) exemptionOf.set(key, rate.exemptionReasonCode);
    return {
      position: i + 1,
      description: l.description,
      quantityCents: l.quantityCents,
      unitCode: l.unitCode,
      unitPriceCents: l.unitPriceCents,
      amountCents: l.amountCents,
      vatCategory: category,
      vatRateBp: l.vatRateBp,
      vatCents: l.vatCents,
    };
  });

  const related = invoice.type === "credit_note" && invoice.relatedInvoiceId ? tx.select().from(invoices).where(inOrg(invoices, orgId, eq(invoices.id, invoice.relatedInvoiceId))).get() : undefined;

  return {
    type: invoice.type,
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    issueDate: invoice.issueDate,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    language: parties.language,
    buyerReference: invoice.buyerReference,
    orderReference: invoice.orderReference,
    paymentReference: invoice.paymentReference,
    credited: related ? { number: related.number, issueDate: related.issueDate } : null,
    notes: invoice.notes,
    paymentTerms: invoice.paymentTerms,
    seller: parties.seller,
    buyer: parties.buyer,
    payee: parties.payee,
    lines,
    vatGroups: vatGroupsOf(lines, exemptionOf),
    subtotalCents: invoice.subtotalCents,
    vatCents: invoice.vatCents,
    totalCents: invoice.totalCents,
    paidCents: invoice.paidCents,
    dueCents: invoice.totalCents - invoice.paidCents,
  };
}

/** readDocument in a read transaction of its own: one consistent snapshot of the document. */
export function loadDocument(db: Db, orgId: string, invoiceId: string): IssuedDocument {
  return snapshot(db, (tx) => readDocument(tx, orgId, invoiceId));
}
