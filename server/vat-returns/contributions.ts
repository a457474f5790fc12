/**
 * What each document brings to a VAT return: the journal's VAT-tagged lines of invoices, credit
 * notes, expenses and bank lines booked with VAT, each put in its grid by ./grids.ts. The return is
 * the sum of these per grid (plus 71/72). Issued documents are reported as they were posted: the
 * buyer as issued on the invoice, the account the expense posted to; nothing is recomputed.
 *
 * A document is reported in the period of its date, unless that period was filed before the
 * document posted (its journal entry was created after the filing): then in the first period
 * after it that was not filed by then, and named in that return's warnings.
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { sqlRows, type Tx } from "../../db/client.ts";
import { bankTransactions, expenses, invoiceLines, invoices, suppliers, vatRates, vatReturns } from "../../db/schema.ts";
import type { SupplyType, VatCategory, VatRole, VatSide } from "../../db/values.ts";
import { divRoundHalfUp } from "../lib/money.ts";
import { nextVatPeriod, parseVatPeriod, vatPeriodOf, type VatPeriodName } from "../lib/vat-period.ts";
import { chartOf } from "../ledger/accounts.ts";
import { defaultSupplyType, purchaseGrids, regionOf, saleGrids } from "./grids.ts";

export type GridContribution = {
  side: "sales" | "purchases";
  sourceType: "invoice" | "expense" | "bank_transaction";
  sourceId: string;
  number: string | null;
  date: string;
  /** the period it is reported in */
  reportedIn: string;
  party: { id: string | null; name: string | null; country: string | null; vatNumber: string | null };
  /** "00".."88", two digits */
  grid: string;
  /** as the grid counts it: positive, but negative where it reduces the grid (a credit note received in 81–83, a cancellation) */
  cents: number;
  /** for 44, 46 and 48 rows: the intra-Community listing code */
  intraCode: "L" | "S" | "T" | null;
  /** the journal entry it comes from */
  entryId: string;
  /** the document is a credit note (issued or received) */
  creditNote: boolean;
};

/** A document in another currency: not reported (Kontor keeps no exchange rates), named so that what builds on the return can say so. */
export type ForeignDocument = { sourceType: GridContribution["sourceType"]; sourceId: string; label: string; currency: string; side: "sales" | "purchases"; categories: VatCategory[]; party: GridContribution["party"] };

export type PeriodContributions = { contributions: GridContribution[]; warnings: string[]; foreign: ForeignDocument[] };

type TaggedRow = {
  entryId: string;
  sourceType: "invoice" | "expense" | "bank_transaction";
  sourceId: string;
  date: string;
  createdAt: string;
  currency: string;
  side: VatSide;
  role: VatRole;
  category: VatCategory;
  rateBp: number;
  note: number;
  accountCode: string;
  accountType: string;
  accountRole: string | null;
  /** credits less debits */
  credit: number;
};

/** A filed return: its period (by its dates) and when it was filed. */
export type Filing = { period: VatPeriodName; filedAt: string };

/** The filings of the organisation, earliest period first. */
export async function filings(tx: Tx, orgId: string): Promise<Filing[]> {
  return (await tx
    .select({ period: vatReturns.period, from: vatReturns.periodFrom, to: vatReturns.periodTo, filedAt: vatReturns.filedAt })
    .from(vatReturns)
    .where(eq(vatReturns.organizationId, orgId))
    .orderBy(vatReturns.periodFrom))
    .map((r) => ({ period: { ...parseVatPeriod(r.period)!, from: r.from, to: r.to }, filedAt: r.filedAt }));
}

/** Whether two periods share a day (a quarter and a month of it do). */
export const overlaps = (a: { from: string; to: string }, b: { from: string; to: string }) => a.from <= b.to && b.from <= a.to;

/** The filing whose period overlaps `period`, if any. */
export const filingOver = (filed: readonly Filing[], period: { from: string; to: string }) => filed.find((f) => overlaps(f.period, period));

/**
 * The period a document dated `date` whose entry was created at `createdAt` is reported in. A
 * filing is found by its dates, not its name: a document a filing declared (dated in its period,
 * posted before it) stays in that filed period, whatever kind of period is asked now; one posted
 * after the filing of its period moves to the first period of `kind` that no filing made before
 * it overlaps.
 */
export function reportedPeriod(kind: VatPeriodName["kind"], date: string, createdAt: string, filed: readonly Filing[]): VatPeriodName {
  const holding = filed.find((f) => f.period.from <= date && date <= f.period.to);
  if (holding && !(holding.filedAt < createdAt)) return holding.period;
  let p = vatPeriodOf(kind, date);
  while (filed.some((f) => overlaps(f.period, p) && f.filedAt < createdAt)) p = nextVatPeriod(p);
  return p;
}

export async function periodContributions(tx: Tx, orgId: string, period: VatPeriodName): Promise<GridContribution[]> {
  return (await collectPeriod(tx, orgId, period)).contributions;
}

/** The contributions reported in `period`, and the warnings about them (a late document, a rule marked with a warning, another currency). */
export async function collectPeriod(tx: Tx, orgId: string, period: VatPeriodName): Promise<PeriodContributions> {
  const filed = await filings(tx, orgId);
  const dated = await taggedRows(tx, orgId, sql`e."date" BETWEEN ${period.from} AND ${period.to}`);
  // documents dated in an earlier, filed period and posted after its filing may land here: read
  // from each filing, by the entries of its period created after it
  const late = await taggedRows(
    tx,
    orgId,
    sql`e."date" < ${period.from} AND EXISTS (SELECT 1 FROM "vat_returns" r WHERE r."organization_id" = e."organization_id"
      AND e."date" BETWEEN r."period_from" AND r."period_to" AND e."created_at" > r."filed_at")`,
  );
  const rows = [...late, ...dated];
  const inPeriod = rows.filter((r) => reportedPeriod(period.kind, r.date, r.createdAt, filed).name === period.name);
  const filedName = (date: string) => (filed.find((f) => f.period.from <= date && date <= f.period.to)?.period ?? vatPeriodOf(period.kind, date)).name;
  return contributionsOf(tx, orgId, inPeriod, period.name, (r) => (r.date < period.from ? filedName(r.date) : null));
}

/** The contributions of the documents dated from `from` to `to` (the VAT report's Belgian grids): by date, whatever was filed. */
export async function rangeContributions(tx: Tx, orgId: string, from: string, to: string, label: string): Promise<PeriodContributions> {
  return await contributionsOf(tx, orgId, await taggedRows(tx, orgId, sql`e."date" BETWEEN ${from} AND ${to}`), label, () => null);
}

async function taggedRows(tx: Tx, orgId: string, which: SQL): Promise<TaggedRow[]> {
  return await sqlRows<TaggedRow>(tx, 
    sql`SELECT e."id" AS "entryId", e."source_type" AS "sourceType", e."source_id" AS "sourceId", e."date" AS "date", e."created_at" AS "createdAt",
        e."currency" AS "currency", l."vat_side" AS "side", l."vat_role" AS "role", l."vat_category" AS "category", l."vat_rate_bp" AS "rateBp",
        l."vat_note" AS "note", a."code" AS "accountCode", a."type" AS "accountType", a."system_account" AS "accountRole", sum(l."credit_cents" - l."debit_cents") AS "credit"
      FROM "journal_entries" e JOIN "journal_lines" l ON l."entry_id" = e."id" JOIN "accounts" a ON a."id" = l."account_id"
      WHERE e."organization_id" = ${orgId} AND e."source_type" IN ('invoice', 'expense', 'bank_transaction') AND l."vat_side" IS NOT NULL
        AND ${which}
      GROUP BY e."id", l."vat_side", l."vat_role", l."vat_category", l."vat_rate_bp", l."vat_note", l."account_id", a."id"
      ORDER BY e."date", e."id", l."vat_side", l."vat_role", l."vat_category", l."vat_rate_bp" DESC`,
  );
}

/** `lateFrom`: the filed period a row was dated in when it is reported later, else null. */
async function contributionsOf(tx: Tx, orgId: string, rows: readonly TaggedRow[], reportedIn: string, lateFrom: (r: TaggedRow) => string | null): Promise<PeriodContributions> {
  const warnings: string[] = [];
  const kept: TaggedRow[] = [];
  const warnedLate = new Set<string>();
  const foreignRows: TaggedRow[] = [];
  for (const r of rows) {
    if (r.currency !== "EUR") {
      foreignRows.push(r);
      continue;
    }
    kept.push(r);
  }
  const foreign = await foreignDocuments(tx, orgId, foreignRows);
  if (foreign.length > 0) warnings.push(`${foreign.length} document(s) of the period are not in EUR and are not reported: Kontor keeps no exchange rates; add them by hand.`);
  const byEntry = Map.groupBy(kept, (r) => r.entryId);
  const chart = await chartOf(tx, orgId);
  const docs = await readDocuments(tx, orgId, kept);
  const out: GridContribution[] = [];
  const warnOnce = new Set<string>();
  const warn = (text: string) => {
    if (!warnOnce.has(text)) warnings.push(text);
    warnOnce.add(text);
  };
  for (const [entryId, lines] of byEntry) {
    const first = lines[0]!;
    const doc = docs.get(`${first.sourceType}:${first.sourceId}`) ?? { number: null, party: { id: null, name: null, country: null, vatNumber: null }, supply: new Map(), label: `${first.sourceType} ${first.sourceId}` };
    const late = lateFrom(first);
    if (late !== null && !warnedLate.has(first.sourceId)) {
      warnedLate.add(first.sourceId);
      warn(`${doc.label}, dated ${first.date} in the filed period ${late}, posted after it was filed: reported in ${reportedIn}.`);
    }
    const base = { sourceType: first.sourceType, sourceId: first.sourceId, number: doc.number, date: first.date, reportedIn, party: doc.party, entryId };
    const region = regionOf(doc.party.country);
    // An entry reported after its filed period (a late document, or the reversal of a filed one
    // when it is cancelled) corrects what was declared by its direction: one that takes a sale or
    // a purchase back is a negative correction, reported as a credit note is (48/49 and 64, or
    // 81–83 reduced, 84/85 and 63), one that adds is reported as an invoice is.
    const lateNote = late === null ? null : entryDirection(lines) < 0;
    for (const l of lines) {
      const note = lateNote ?? l.note === 1;
      if (l.side === "sales") {
        const signed = l.credit * (note ? -1 : 1);
        if (l.role === "vat") {
          if (signed !== 0) out.push({ ...base, side: "sales", grid: note ? "64" : "54", cents: signed, intraCode: null, creditNote: note });
          continue;
        }
        if (l.role !== "base") continue;
        // the base split into goods and services by the invoice's lines at this category and rate
        const split = splitSupply(signed, doc.supply.get(`${l.category}:${l.rateBp}`), l.category);
        for (const [supply, cents] of split) {
          if (cents === 0) continue;
          const grids = saleGrids({ category: l.category, rateBp: l.rateBp, buyer: region, supply }, note);
          if (!grids) continue;
          if (grids.rule.warning) warn(`${doc.label} ${grids.rule.warning}.`);
          out.push({ ...base, side: "sales", grid: grids.base, cents, intraCode: grids.intraCode, creditNote: note });
        }
      } else {
        const debit = -l.credit;
        const grids = purchaseGrids({ account: { code: l.accountCode, type: l.accountType, systemAccount: l.accountRole }, chart, category: l.category, supplier: region }, note);
        if (l.role === "base") {
          if (debit === 0) continue;
          // services bought outside the EU are reverse charged (87) only when recorded at AE: the user's step
          if (first.sourceType === "expense" && region === "non-EU" && (l.category === "Z" || l.category === "E")) {
            warn(`${doc.label} is from a supplier outside the EU at ${l.category}: services from outside the EU are reported in 87 when recorded at the reverse-charge rate (AE).`);
          }
          if (grids.nature.warning) warn(`${doc.label} ${grids.nature.warning} (account ${l.accountCode}).`);
          if (grids.reverse?.warning) warn(`${doc.label} ${grids.reverse.warning}.`);
          out.push({ ...base, side: "purchases", grid: grids.nature.grid, cents: debit, intraCode: null, creditNote: note });
          if (grids.second) out.push({ ...base, side: "purchases", grid: grids.second, cents: note ? -debit : debit, intraCode: null, creditNote: note });
        } else if (l.role === "vat") {
          if (debit !== 0) out.push({ ...base, side: "purchases", grid: note ? "63" : "59", cents: note ? -debit : debit, intraCode: null, creditNote: note });
        } else if (l.role === "self_assessed_deductible") {
          if (debit !== 0) out.push({ ...base, side: "purchases", grid: "59", cents: debit, intraCode: null, creditNote: note });
        } else if (l.role === "self_assessed_due") {
          // on the VAT payable account: a credit is VAT due
          const due = lines.find((b) => b.role === "base" && b.category === l.category && b.note === l.note);
          const rule = due ? purchaseGrids({ account: { code: due.accountCode, type: due.accountType, systemAccount: due.accountRole }, chart, category: l.category, supplier: region }, note).reverse : null;
          if (l.credit !== 0) out.push({ ...base, side: "purchases", grid: rule?.due ?? "56", cents: l.credit, intraCode: null, creditNote: note });
        }
      }
    }
  }
  return { contributions: out, warnings, foreign };
}

async function foreignDocuments(tx: Tx, orgId: string, rows: readonly TaggedRow[]): Promise<ForeignDocument[]> {
  if (rows.length === 0) return [];
  const docs = await readDocuments(tx, orgId, rows);
  return [...Map.groupBy(rows, (r) => r.entryId).values()].map((lines) => {
    const first = lines[0]!;
    const doc = docs.get(`${first.sourceType}:${first.sourceId}`);
    return {
      sourceType: first.sourceType,
      sourceId: first.sourceId,
      label: doc?.label ?? `${first.sourceType} ${first.sourceId}`,
      currency: first.currency,
      side: first.side,
      categories: [...new Set(lines.map((l) => l.category))],
      party: doc?.party ?? { id: null, name: null, country: null, vatNumber: null },
    };
  });
}

/** Whether an entry adds sales or purchases (positive) or takes them back (negative): its sales bases' credits and purchase bases' debits. */
function entryDirection(lines: readonly TaggedRow[]): number {
  return lines.filter((l) => l.role === "base").reduce((sum, l) => sum + (l.side === "sales" ? l.credit : -l.credit), 0);
}

/**
 * Splits a base between goods and services pro rata to the invoice's goods and services lines at
 * its category and rate, so its document-level allowances and charges (in the base, on no line)
 * are shared as the lines are: in integer cents, the goods part rounded half-up (the largest
 * remainder of two parts) and the services part the rest, so both add up to the base exactly.
 */
function splitSupply(cents: number, lines: { goods: number; services: number } | undefined, category: VatCategory): [SupplyType, number][] {
  if (!lines) return [[defaultSupplyType(category), cents]];
  if (lines.services === 0 && lines.goods !== 0) return [["goods", cents]];
  if (lines.goods === 0) return [["services", cents]];
  const total = lines.goods + lines.services;
  // lines of opposite signs (a negative line): no proportion to share by; the goods lines' amount goes to goods
  if (lines.goods < 0 || lines.services < 0 || total === 0) {
    const goods = Math.sign(cents) * Math.min(Math.abs(cents), Math.abs(lines.goods));
    return [
      ["goods", goods],
      ["services", cents - goods],
    ];
  }
  const goods = Math.sign(cents) * Number(divRoundHalfUp(BigInt(Math.abs(cents)) * BigInt(lines.goods), BigInt(total)));
  return [
    ["goods", goods],
    ["services", cents - goods],
  ];
}

type DocumentInfo = {
  label: string;
  number: string | null;
  party: GridContribution["party"];
  /** an invoice's line amounts per `category:rateBp`, goods and services apart */
  supply: Map<string, { goods: number; services: number }>;
};

async function readDocuments(tx: Tx, orgId: string, rows: readonly TaggedRow[]): Promise<Map<string, DocumentInfo>> {
  const ids = (type: string) => [...new Set(rows.filter((r) => r.sourceType === type).map((r) => r.sourceId))];
  const out = new Map<string, DocumentInfo>();
  const invoiceIds = ids("invoice");
  for (let i = 0; i < invoiceIds.length; i += 500) {
    const chunk = invoiceIds.slice(i, i + 500);
    const found = await tx
      .select({ id: invoices.id, number: invoices.number, type: invoices.type, customerId: invoices.customerId, issuedParties: invoices.issuedParties })
      .from(invoices)
      .where(and(eq(invoices.organizationId, orgId), inArray(invoices.id, chunk)));
    const lines = await tx
      .select({
        invoiceId: invoiceLines.invoiceId,
        category: sql<VatCategory>`coalesce(${vatRates.category}, 'Z')`,
        rateBp: invoiceLines.vatRateBp,
        supplyType: invoiceLines.supplyType,
        amountCents: invoiceLines.amountCents,
      })
      .from(invoiceLines)
      .leftJoin(vatRates, eq(vatRates.id, invoiceLines.vatRateId))
      .where(inArray(invoiceLines.invoiceId, chunk));
    const byInvoice = Map.groupBy(lines, (l) => l.invoiceId);
    for (const inv of found) {
      const buyer = inv.issuedParties?.buyer;
      const supply = new Map<string, { goods: number; services: number }>();
      for (const l of byInvoice.get(inv.id) ?? []) {
        const key = `${l.category}:${l.rateBp}`;
        const s = supply.get(key) ?? { goods: 0, services: 0 };
        s[l.supplyType ?? defaultSupplyType(l.category)] += l.amountCents;
        supply.set(key, s);
      }
      const kind = inv.type === "credit_note" ? "Credit note" : "Invoice";
      out.set(`invoice:${inv.id}`, {
        label: `${kind} ${inv.number}`,
        number: inv.number,
        party: { id: inv.customerId, name: buyer?.name ?? null, country: buyer?.country ?? null, vatNumber: buyer?.vatNumber ?? null },
        supply,
      });
    }
  }
  const expenseIds = ids("expense");
  for (let i = 0; i < expenseIds.length; i += 500) {
    const found = await tx
      .select({
        id: expenses.id,
        number: expenses.supplierInvoiceNumber,
        type: expenses.documentType,
        vendor: expenses.vendor,
        supplierId: suppliers.id,
        name: suppliers.name,
        country: suppliers.country,
        vatNumber: suppliers.vatNumber,
      })
      .from(expenses)
      .leftJoin(suppliers, eq(suppliers.id, expenses.supplierId))
      .where(and(eq(expenses.organizationId, orgId), inArray(expenses.id, expenseIds.slice(i, i + 500))));
    for (const e of found) {
      const what = e.type === "credit_note" ? "Supplier credit note" : "Expense";
      out.set(`expense:${e.id}`, {
        label: `${what} ${e.number ?? e.id}${e.name ?? e.vendor ? ` (${e.name ?? e.vendor})` : ""}`,
        number: e.number,
        party: { id: e.supplierId, name: e.name ?? e.vendor, country: e.country, vatNumber: e.vatNumber },
        supply: new Map(),
      });
    }
  }
  const lineIds = ids("bank_transaction");
  for (let i = 0; i < lineIds.length; i += 500) {
    const found = await tx
      .select({ id: bankTransactions.id, name: bankTransactions.counterpartyName, date: bankTransactions.bookingDate })
      .from(bankTransactions)
      .where(and(eq(bankTransactions.organizationId, orgId), inArray(bankTransactions.id, lineIds.slice(i, i + 500))));
    for (const b of found) {
      out.set(`bank_transaction:${b.id}`, { label: `Bank line ${b.id} of ${b.date}`, number: null, party: { id: null, name: b.name, country: null, vatNumber: null }, supply: new Map() });
    }
  }
  return out;
}
