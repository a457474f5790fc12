/**
 * The invoices' read side for their documents: an invoice, credit note or interest note read into
 * the document model of server/documents/model.ts, the one input of the UBL, CII and PDF renderers
 * and of the e-mail that carries the document: the seller (the organisation), the buyer (the
 * customer), the payee account, the lines with their VAT categories, the VAT breakdown
 * (server/documents/vat-breakdown.ts) and the totals. Everything is read in the
 * caller's transaction, so the document is one consistent snapshot (`loadDocument` opens one).
 *
 * The documents import no feature: this module hands them the data, and `documentService` gives
 * them this read as their loader.
 */
import { asc, eq, sql } from "drizzle-orm";
import { firstRow, preparedRows, type Db, type Tx } from "../../db/client.ts";
import { bankAccounts, customers, invoiceAllowanceCharges, invoiceLines, invoices, organizations, vatRates } from "../../db/schema.ts";
import {
  DOCUMENT_LANGUAGES,
  type DocumentAllowanceCharge,
  type DocumentLanguage,
  type DocumentLine,
  type DocumentParty,
  type IssuedDocument,
  type IssuedParties,
  type VatCategory,
} from "../documents/model.ts";
import { documentServiceOf } from "../documents/service.ts";
import { documentVatGroups } from "../documents/vat-breakdown.ts";
import { legalOf, supplyDateOf } from "../documents/legal-mentions.ts";
import { linePrice } from "./checks.ts";
import { priceInvoice } from "./totals.ts";
import { NotFound } from "../lib/errors.ts";
import { findInOrg, inOrg, snapshot } from "../lib/scope.ts";
import { invoiceBalanceCents } from "../settlement/due.ts";

const isLanguage = (value: string | null | undefined): value is DocumentLanguage =>
  value !== null && value !== undefined && (DOCUMENT_LANGUAGES as readonly string[]).includes(value);

/** The columns an organisation and a customer share with a document's party, by the same names. */
type PartyFields = Omit<DocumentParty, "companyNumber" | "contactName">;

function party(row: PartyFields, companyNumber: string | null, contactName: string | null = null): DocumentParty {
  const { name, address, city, postalCode, country, vatNumber, email, phone, peppolId } = row;
  // the seller's contact (BT-41) is frozen with it at finalize, as the rest of the party
  return { name, address, city, postalCode, country, vatNumber, companyNumber, email, phone, peppolId, ...(contactName ? { contactName } : {}) };
}

/**
 * The account a credit transfer goes to: the organisation's default bank account while it is
 * active, else its first active one (oldest first), else none, with its BIC when one was given
 * (optional within SEPA). The account is the organisation's, so its name is the organisation's.
 */
async function payeeOf(tx: Tx, orgId: string, defaultId: string | null, holder: string): Promise<IssuedDocument["payee"]> {
  const active = await preparedRows(tx, "document: active bank accounts", bankAccounts, (tx) =>
    tx
      .select()
      .from(bankAccounts)
      .where(inOrg(bankAccounts, sql.placeholder("orgId"), eq(bankAccounts.isActive, true)))
      .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id)),
  ).all({ orgId });
  const account = active.find((a) => a.id === defaultId) ?? active[0];
  return account ? { iban: account.iban, bic: account.bic, accountName: holder } : null;
}

/**
 * Seller, buyer, payee and language of an invoice as the organisation and the customer are now:
 * what a draft shows, and what finalize freezes (`invoices.issued_parties`).
 */
export async function currentParties(tx: Tx, orgId: string, customerId: string): Promise<IssuedParties> {
  const org = await preparedRows(tx, "document: organisation", organizations, (tx) => tx.select().from(organizations).where(eq(organizations.id, sql.placeholder("orgId")))).get({ orgId });
  if (!org) throw new NotFound();
  const customer = await findInOrg(tx, customers, orgId, customerId);
  return {
    language: isLanguage(customer.language) ? customer.language : isLanguage(org.language) ? org.language : "en",
    // its legal mentions are frozen with it (docs/invoicing.md#legal-mentions)
    seller: { ...party(org, org.companyNumber, org.contactName), legal: legalOf(org) },
    buyer: party(customer, customer.companyNumber),
    payee: await payeeOf(tx, orgId, org.defaultBankAccountId, org.name),
  };
}

const bySortOrder = (a: { sortOrder: number; id: string }, b: { sortOrder: number; id: string }) =>
  a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The document of this invoice or credit note of the organisation (404 when there is none), read
 * in `tx`. An issued one shows its parties as they were at finalize; one finalized before they
 * were frozen (migration 0015), as they are now.
 */
export async function readDocument(tx: Tx, orgId: string, invoiceId: string): Promise<IssuedDocument> {
  const invoice = await findInOrg(tx, invoices, orgId, invoiceId);
  const parties = invoice.issuedParties ?? await currentParties(tx, orgId, invoice.customerId);
  const lineRows = (await preparedRows(tx, "document: lines", invoiceLines, (tx) =>
    tx
      .select()
      .from(invoiceLines)
      .where(inOrg(invoiceLines, sql.placeholder("orgId"), eq(invoiceLines.invoiceId, sql.placeholder("invoiceId")))),
  )
    .all({ orgId, invoiceId: invoice.id }))
    // in sort order, ids breaking ties: sorted here, as an ORDER BY on the id would sort in a temporary b-tree
    // (a draft's GET reads its document for its readiness; tests/invoices/invoices.test.ts checks the query plans)
    .sort(bySortOrder);
  const acRows = (await preparedRows(tx, "document: allowances and charges", invoiceAllowanceCharges, (tx) =>
    tx
      .select()
      .from(invoiceAllowanceCharges)
      .where(inOrg(invoiceAllowanceCharges, sql.placeholder("orgId"), eq(invoiceAllowanceCharges.invoiceId, sql.placeholder("invoiceId")))),
  )
    .all({ orgId, invoiceId: invoice.id }))
    .sort(bySortOrder);
  const rateIds = [...new Set([...lineRows, ...acRows].map((l) => l.vatRateId).filter((id): id is string => id !== null))];
  const rates = new Map(
    // the organisation's rates are few: all of them, by one prepared statement, rather than a statement per set of ids
    (rateIds.length === 0
      ? []
      : await preparedRows(tx, "document: VAT rates", vatRates, (tx) => tx.select().from(vatRates).where(inOrg(vatRates, sql.placeholder("orgId")))).all({ orgId })
    ).map((r) => [r.id, r]),
  );

  const exemptionCodes: (string | null)[] = [];
  const lines: DocumentLine[] = lineRows.map((l, i) => {
    const rate = l.vatRateId ? rates.get(l.vatRateId) : undefined;
    // EN 16931 needs a VAT category on every line (BR-CO-04). A line without a VAT rate has no
    // VAT: it is shown as zero rated, Z at 0 %, the category of a taxable
    // supply at 0 % that needs no exemption reason. (O, "not subject to VAT", would forbid
    // every other category on the document and the seller's VAT number, BR-O-*.) The ledger's
    // invoice posting reads the same (server/ledger/rules.ts).
    // An interest note's lines (interest and compensation) are outside the scope of VAT: O.
    const category: VatCategory = rate?.category ?? (invoice.type === "interest_note" ? "O" : "Z");
    exemptionCodes.push(rate?.exemptionReasonCode ?? null);
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
      discount: l.discountCents > 0 ? { cents: l.discountCents, percentBp: l.discountPercentBp, reason: l.discountReason } : null,
      supplyType: l.supplyType,
    };
  });
  // net and VAT of each allowance and charge, priced again as the invoice's totals were (totals.ts)
  const pricedAcs = acRows.length === 0 ? [] : priceInvoice(invoice.pricesIncludeVat, lineRows.map(linePrice), acRows).allowanceCharges;
  const allowanceCharges: DocumentAllowanceCharge[] = pricedAcs.map((ac) => {
    const rate = ac.vatRateId ? rates.get(ac.vatRateId) : undefined;
    exemptionCodes.push(rate?.exemptionReasonCode ?? null);
    return {
      isCharge: ac.isCharge,
      amountCents: ac.amountCents,
      netCents: ac.netCents,
      vatCents: ac.vatCents,
      percentBp: ac.percentBp,
      baseCents: ac.baseCents,
      reason: ac.reason,
      reasonCode: ac.reasonCode,
      // as a line without a VAT rate (above)
      vatCategory: rate?.category ?? "Z",
      vatRateBp: ac.vatRateBp,
    };
  });
  // the breakdown's items: the lines, the charges, and the allowances negative (BR-S-08: taxable = lines − allowances + charges)
  const breakdownItems = [
    ...lines,
    ...allowanceCharges.map((ac) => ({
      vatCategory: ac.vatCategory,
      vatRateBp: ac.vatRateBp,
      amountCents: ac.isCharge ? ac.netCents : -ac.netCents,
      vatCents: ac.isCharge ? ac.vatCents : -ac.vatCents,
    })),
  ];

  const servicePeriod = invoice.servicePeriodStart && invoice.servicePeriodEnd ? { start: invoice.servicePeriodStart, end: invoice.servicePeriodEnd } : null;
  const deliveryDate = invoice.status === "draft" ? supplyDateOf({ ...invoice, servicePeriod }, parties.seller.country) : invoice.deliveryDate;
  const related = invoice.type !== "invoice" && invoice.relatedInvoiceId ? (await firstRow(tx.select().from(invoices).where(inOrg(invoices, orgId, eq(invoices.id, invoice.relatedInvoiceId))))) : undefined;

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
    servicePeriod,
    // a draft shows the date of supply finalize will store (a German seller's issue date without a
    // period); absent when none, so a document issued before it existed hashes as it did
    ...(deliveryDate ? { deliveryDate } : {}),
    paymentReference: invoice.paymentReference,
    credited: related ? { number: related.number, issueDate: related.issueDate } : null,
    notes: invoice.notes,
    paymentTerms: invoice.paymentTerms,
    seller: parties.seller,
    buyer: parties.buyer,
    payee: parties.payee,
    lines,
    // each group's exemption reason: the first of its lines' rates that names one, else the category's
    pricesIncludeVat: invoice.pricesIncludeVat,
    allowanceCharges,
    lineTotalCents: invoice.subtotalCents + invoice.allowanceCents - invoice.chargeCents,
    allowanceCents: invoice.allowanceCents,
    chargeCents: invoice.chargeCents,
    vatGroups: documentVatGroups(breakdownItems.map((item, i) => ({ ...item, exemptionReasonCode: exemptionCodes[i] }))),
    subtotalCents: invoice.subtotalCents,
    vatCents: invoice.vatCents,
    totalCents: invoice.totalCents,
    paidCents: invoice.paidCents,
    // what the document asked: a cancelled one's PDF says nothing is due, its e-invoice keeps its figures
    dueCents: invoiceBalanceCents(invoice),
  };
}

/**
 * The document as it was issued, for a send or a resend: the payments recorded since, and the
 * credit notes issued since, left out (a credit note keeps what settled its invoice at its own
 * finalize), so every send carries the same PDF and e-invoice, with no copy stamp.
 */
export function asIssued(doc: IssuedDocument): IssuedDocument {
  if (doc.status === "draft" || doc.status === "cancelled") return doc;
  const settledAtFinalize = doc.type === "credit_note" ? doc.totalCents - doc.paidCents - doc.dueCents : 0;
  return { ...doc, paidCents: 0, dueCents: doc.totalCents - settledAtFinalize };
}

/** readDocument in a read transaction of its own: one consistent snapshot of the document. */
export async function loadDocument(db: Db, orgId: string, invoiceId: string): Promise<IssuedDocument> {
  return await snapshot(db, (tx) => readDocument(tx, orgId, invoiceId));
}

/** An invoice's UBL file and PDF (the API's /ubl and /pdf), from its document read by loadDocument. */
export const documentService = documentServiceOf((scope, invoiceId) => loadDocument(scope.db, scope.org.id, invoiceId));
