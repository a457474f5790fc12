/**
 * The posting rules as pure functions (server/ledger/rules.ts, issue 25): hand-written figures
 * and account ids in, the journal lines out; no database. The expected lines follow the rule
 * table of rules.ts's header (and docs/books.md): an invoice debits receivables and credits
 * sales and VAT payable per category and rate; a credit note mirrors it; a payment debits the
 * bank, a refund credits it; an approved expense debits its category's account and VAT
 * receivable against payables, a supplier's credit note the reverse; closing a year moves each
 * revenue and expense account's result to retained earnings. Every draft balances.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { VatCategory } from "../../db/values.ts";
import type { DraftLine, EntryDraft, VatTag } from "../../server/ledger/draft.ts";
import {
  closingEntries,
  expenseEntry,
  expensePaymentEntry,
  invoiceEntry,
  paymentEntry,
  type ExpenseFigures,
  type InvoiceFigures,
  type PurchasesChart,
  type SalesChart,
} from "../../server/ledger/rules.ts";

const SALES: SalesChart = { receivables: "acc-1200", sales: "acc-4100", vatPayable: "acc-2200" };
const PURCHASES: PurchasesChart = { expense: "acc-6500-travel", vatReceivable: "acc-1400", payables: "acc-2100", supplierAdvances: "acc-1500" };
const BANK = "acc-1110";

/** A draft's lines with −0 read as 0 (a credit of nothing is nothing), for toEqual. */
const linesOf = (draft: EntryDraft): DraftLine[] => draft.lines.map((l) => ({ ...l, cents: l.cents + 0 }));

const debits = (draft: EntryDraft) => draft.lines.reduce((s, l) => s + Math.max(l.cents, 0), 0);
const credits = (draft: EntryDraft) => draft.lines.reduce((s, l) => s + Math.max(-l.cents, 0), 0);

/** Every draft balances: its debits equal its credits. */
function expectBalanced(draft: EntryDraft) {
  expect(debits(draft), `${draft.description}: debits = credits`).toBe(credits(draft));
  expect(draft.lines.reduce((s, l) => s + l.cents, 0)).toBe(0);
}

// 1 000.00 + 500.00 at 21 % and 200.00 at 6 %: base 1 700.00, VAT 315.00 + 12.00, total 2 027.00
const invoice: InvoiceFigures = {
  id: "inv-1",
  type: "invoice",
  number: "INV-2025-00001",
  issueDate: "2025-03-14",
  currency: "EUR",
  totalCents: 202_700,
  vatLines: [
    { category: "S", rateBp: 2100, amountCents: 100_000, vatCents: 21_000 },
    { category: "S", rateBp: 600, amountCents: 20_000, vatCents: 1_200 },
    { category: "S", rateBp: 2100, amountCents: 50_000, vatCents: 10_500 },
  ],
};

describe("invoiceEntry", () => {
  test("an invoice with two VAT groups: receivables debited with the total; sales and VAT payable credited per rate, 21 % before 6 %", () => {
    const draft = invoiceEntry(invoice, SALES);
    expect(draft).toMatchObject({
      date: "2025-03-14",
      description: "Invoice INV-2025-00001",
      currency: "EUR",
      source: { type: "invoice", id: "inv-1" },
    });
    expect(draft.isClosing).toBeUndefined();
    const tag = (category: VatCategory, rateBp: number, role: "base" | "vat"): VatTag => ({ side: "sales", role, category, rateBp, note: false });
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-1200", cents: 202_700, description: "Invoice INV-2025-00001" },
      { accountId: "acc-4100", cents: -150_000, description: "Sales, VAT S 21.00 %", vat: tag("S", 2100, "base") },
      { accountId: "acc-2200", cents: -31_500, description: "VAT S 21.00 %", vat: tag("S", 2100, "vat") },
      { accountId: "acc-4100", cents: -20_000, description: "Sales, VAT S 6.00 %", vat: tag("S", 600, "base") },
      { accountId: "acc-2200", cents: -1_200, description: "VAT S 6.00 %", vat: tag("S", 600, "vat") },
    ]);
    expectBalanced(draft);
  });

  test("a credit note mirrors it: the invoice's credits debited, receivables credited, tagged as a note", () => {
    const draft = invoiceEntry({ ...invoice, id: "cn-1", type: "credit_note", number: "CN-2025-00001", issueDate: "2025-04-01" }, SALES);
    expect(draft).toMatchObject({ date: "2025-04-01", description: "Credit note CN-2025-00001", currency: "EUR", source: { type: "invoice", id: "cn-1" } });
    const tag = (rateBp: number, role: "base" | "vat"): VatTag => ({ side: "sales", role, category: "S", rateBp, note: true });
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-1200", cents: -202_700, description: "Credit note CN-2025-00001" },
      { accountId: "acc-4100", cents: 150_000, description: "Sales, VAT S 21.00 %", vat: tag(2100, "base") },
      { accountId: "acc-2200", cents: 31_500, description: "VAT S 21.00 %", vat: tag(2100, "vat") },
      { accountId: "acc-4100", cents: 20_000, description: "Sales, VAT S 6.00 %", vat: tag(600, "base") },
      { accountId: "acc-2200", cents: 1_200, description: "VAT S 6.00 %", vat: tag(600, "vat") },
    ]);
    expectBalanced(draft);
  });

  test("groups in the journal's order, by category code (AE, S, Z), and a zero-rated group still posts its pair", () => {
    const draft = invoiceEntry(
      {
        ...invoice,
        totalCents: 10_000 + 2_500 + 4_000 + 840,
        vatLines: [
          { category: "Z", rateBp: 0, amountCents: 2_500, vatCents: 0 },
          { category: "S", rateBp: 2100, amountCents: 4_000, vatCents: 840 },
          { category: "AE", rateBp: 0, amountCents: 10_000, vatCents: 0 },
        ],
      },
      SALES,
    );
    expect(linesOf(draft).map((l) => [l.accountId, l.cents, l.description])).toEqual([
      ["acc-1200", 17_340, "Invoice INV-2025-00001"],
      ["acc-4100", -10_000, "Sales, VAT AE 0.00 %"],
      ["acc-2200", 0, "VAT AE 0.00 %"],
      ["acc-4100", -4_000, "Sales, VAT S 21.00 %"],
      ["acc-2200", -840, "VAT S 21.00 %"],
      ["acc-4100", -2_500, "Sales, VAT Z 0.00 %"],
      ["acc-2200", 0, "VAT Z 0.00 %"],
    ]);
    expectBalanced(draft);
  });

  test("property: an invoice or a credit note whose total is its lines' amounts and VAT balances, receivables carrying the total", () => {
    const vatLine = fc.record({
      category: fc.constantFrom("S" as const, "Z" as const, "AE" as const, "E" as const),
      rateBp: fc.constantFrom(0, 600, 1200, 2100),
      amountCents: fc.integer({ min: -1_000_000, max: 10_000_000 }),
      vatCents: fc.integer({ min: -200_000, max: 2_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(vatLine, { maxLength: 8 }), fc.constantFrom("invoice" as const, "credit_note" as const), (vatLines, type) => {
        const totalCents = vatLines.reduce((s, l) => s + l.amountCents + l.vatCents, 0);
        const draft = invoiceEntry({ ...invoice, type, totalCents, vatLines }, SALES);
        expect(draft.lines.reduce((s, l) => s + l.cents, 0)).toBe(0);
        expect(draft.lines[0]).toMatchObject({ accountId: "acc-1200", cents: (type === "credit_note" ? -1 : 1) * totalCents });
      }),
    );
  });
});

describe("paymentEntry", () => {
  test("a payment of an invoice: the bank debited, receivables credited, on the payment's date, its reference in the entry's description", () => {
    const draft = paymentEntry(invoice, { id: "pay-1", amountCents: 100_000, paymentDate: "2025-04-10", reference: "+++090/9337/55493+++" }, { bank: BANK, receivables: "acc-1200" });
    expect(draft).toEqual({
      date: "2025-04-10",
      description: "Payment of invoice INV-2025-00001 (+++090/9337/55493+++)",
      currency: "EUR",
      source: { type: "payment", id: "pay-1" },
      lines: [
        { accountId: BANK, cents: 100_000, description: "Payment of invoice INV-2025-00001" },
        { accountId: "acc-1200", cents: -100_000, description: "Payment of invoice INV-2025-00001" },
      ],
    });
    expectBalanced(draft);
  });

  test("the refund of a credit note: receivables debited, the bank credited", () => {
    const note = { type: "credit_note" as const, number: "CN-2025-00001", currency: "USD" };
    const draft = paymentEntry(note, { id: "pay-2", amountCents: 5_050, paymentDate: "2025-05-02", reference: null }, { bank: BANK, receivables: "acc-1200" });
    expect(draft).toEqual({
      date: "2025-05-02",
      description: "Refund of credit note CN-2025-00001",
      currency: "USD",
      source: { type: "payment", id: "pay-2" },
      lines: [
        { accountId: BANK, cents: -5_050, description: "Refund of credit note CN-2025-00001" },
        { accountId: "acc-1200", cents: 5_050, description: "Refund of credit note CN-2025-00001" },
      ],
    });
    expectBalanced(draft);
  });
});

// 100.00 of travel at 21 %: 21.00 VAT, 121.00 owed to the supplier
const expense: ExpenseFigures = {
  id: "exp-1",
  documentType: "invoice",
  category: "Travel",
  vendor: "SNCB",
  description: "Train to Ghent",
  date: "2025-02-20",
  currency: "EUR",
  amountCents: 10_000,
  vatCents: 2_100,
  prepaidCents: 0,
  roundingCents: 0,
  vatLines: [],
  vatRate: { category: "S", rateBp: 2100 },
};

const purchases = (category: VatCategory, rateBp: number, role: "base" | "vat", note = false): VatTag => ({ side: "purchases", role, category, rateBp, note });

describe("expenseEntry", () => {
  test("an approved expense: its category's expense account (net) and VAT receivable debited, payables credited with the gross", () => {
    const draft = expenseEntry(expense, PURCHASES);
    expect(draft).toMatchObject({
      date: "2025-02-20",
      description: "Expense: Travel, SNCB: Train to Ghent",
      currency: "EUR",
      source: { type: "expense", id: "exp-1" },
    });
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: 10_000, description: "Expense: Travel, SNCB", vat: purchases("S", 2100, "base") },
      { accountId: "acc-1400", cents: 2_100, description: "Input VAT", vat: purchases("S", 2100, "vat") },
      { accountId: "acc-2100", cents: -12_100, description: "Expense: Travel, SNCB" },
    ]);
    expectBalanced(draft);
  });

  test("a prepaid amount (BT-113) settles an advance to the supplier; rounding (BT-114) is cost: payables end at the amount due", () => {
    // 121.00 invoiced, 50.00 paid before, 0.01 rounding: 71.01 due (BT-115)
    const draft = expenseEntry({ ...expense, prepaidCents: 5_000, roundingCents: 1 }, PURCHASES);
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: 10_000, description: "Expense: Travel, SNCB", vat: purchases("S", 2100, "base") },
      { accountId: "acc-1400", cents: 2_100, description: "Input VAT", vat: purchases("S", 2100, "vat") },
      { accountId: "acc-2100", cents: -12_100, description: "Expense: Travel, SNCB" },
      { accountId: "acc-6500-travel", cents: 1, description: "Expense: Travel, SNCB, rounding" },
      { accountId: "acc-2100", cents: -1, description: "Expense: Travel, SNCB, rounding" },
      { accountId: "acc-2100", cents: 5_000, description: "Expense: Travel, SNCB, prepaid" },
      { accountId: "acc-1500", cents: -5_000, description: "Expense: Travel, SNCB, prepaid" },
    ]);
    expect(draft.lines.filter((l) => l.accountId === "acc-2100").reduce((s, l) => s + l.cents, 0)).toBe(-7_101);
    expectBalanced(draft);
    // a supplier's credit note with a prepaid amount posts the reverse
    const note = expenseEntry({ ...expense, documentType: "credit_note", prepaidCents: 5_000, roundingCents: 0 }, PURCHASES);
    expect(note.lines.filter((l) => l.accountId === "acc-2100").reduce((s, l) => s + l.cents, 0)).toBe(7_100);
    expect(note.lines.find((l) => l.accountId === "acc-1500")?.cents).toBe(5_000);
    expectBalanced(note);
  });

  test("reverse charge: an expense at its VAT rate's category (AE, 0 %) posts no input VAT, payables the net", () => {
    const draft = expenseEntry({ ...expense, vendor: null, description: null, vatCents: 0, vatRate: { category: "AE", rateBp: 0 } }, PURCHASES);
    expect(draft.description).toBe("Expense: Travel");
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: 10_000, description: "Expense: Travel", vat: purchases("AE", 0, "base") },
      { accountId: "acc-1400", cents: 0, description: "Input VAT", vat: purchases("AE", 0, "vat") },
      { accountId: "acc-2100", cents: -10_000, description: "Expense: Travel" },
    ]);
    expectBalanced(draft);
  });

  test("reverse charge received (K, AE): the VAT self-assessed at the standard rate is both due (VAT payable) and deductible (VAT receivable); a credit note takes both back", () => {
    const chart = { ...PURCHASES, vatPayable: "acc-2200" };
    const draft = expenseEntry({ ...expense, vendor: null, description: null, vatCents: 0, vatRate: { category: "K", rateBp: 0 }, selfAssessedRateBp: 2100 }, chart);
    // 21 % of 100.00 = 21.00, on both sides: nothing more is payable to the supplier
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: 10_000, description: "Expense: Travel", vat: purchases("K", 0, "base") },
      { accountId: "acc-1400", cents: 0, description: "Input VAT", vat: purchases("K", 0, "vat") },
      { accountId: "acc-1400", cents: 2_100, description: "Self-assessed VAT 21.00 %, deductible", vat: { side: "purchases", role: "self_assessed_deductible", category: "K", rateBp: 0, note: false } },
      { accountId: "acc-2200", cents: -2_100, description: "Self-assessed VAT 21.00 %, due", vat: { side: "purchases", role: "self_assessed_due", category: "K", rateBp: 0, note: false } },
      { accountId: "acc-2100", cents: -10_000, description: "Expense: Travel" },
    ]);
    expectBalanced(draft);
    const note = expenseEntry({ ...expense, documentType: "credit_note", vatCents: 0, vatRate: { category: "AE", rateBp: 0 }, selfAssessedRateBp: 600 }, chart);
    // 6 % of 100.00 = 6.00, reversed
    expect(note.lines.filter((l) => l.vat?.role.startsWith("self_assessed")).map((l) => [l.accountId, l.cents])).toEqual([["acc-1400", -600], ["acc-2200", 600]]);
    expectBalanced(note);
    // an ordinary rate self-assesses nothing
    expect(expenseEntry({ ...expense, selfAssessedRateBp: 2100 }, chart).lines.some((l) => l.accountId === "acc-2200")).toBe(false);
  });

  test("without a VAT rate: no VAT is zero rated (Z, 0 %); some VAT is standard rated at its effective rate, to 0.01 %", () => {
    const zero = expenseEntry({ ...expense, vatCents: 0, vatRate: null }, PURCHASES);
    expect(zero.lines.map((l) => l.vat && [l.vat.category, l.vat.rateBp])).toEqual([["Z", 0], ["Z", 0], undefined]);
    expect(zero.lines.map((l) => l.cents + 0)).toEqual([10_000, 0, -10_000]);
    expectBalanced(zero);
    // 10.00 VAT on 123.45: 8.1004 % → 8.10 %
    const effective = expenseEntry({ ...expense, amountCents: 12_345, vatCents: 1_000, vatRate: null }, PURCHASES);
    expect(effective.lines.map((l) => l.vat && [l.vat.category, l.vat.rateBp])).toEqual([["S", 810], ["S", 810], undefined]);
    expect(effective.lines.map((l) => l.cents)).toEqual([12_345, 1_000, -13_345]);
    expectBalanced(effective);
    // 6.30 VAT on 29.99: 21.007 % → 21.01 %, rounded half up
    const rounded = expenseEntry({ ...expense, amountCents: 2_999, vatCents: 630, vatRate: null }, PURCHASES);
    expect(rounded.lines.map((l) => l.vat?.rateBp)).toEqual([2101, 2101, undefined]);
  });

  test("an imported e-invoice's VAT breakdown: one base and VAT pair per category and rate, in the journal's order, each naming its rate", () => {
    const vatLines = [
      { category: "S" as const, rateBp: 600, baseCents: 2_000, vatCents: 120 },
      { category: "Z" as const, rateBp: 0, baseCents: 500, vatCents: 0 },
      { category: "S" as const, rateBp: 2100, baseCents: 10_000, vatCents: 2_100 },
    ];
    const given = structuredClone(vatLines);
    const draft = expenseEntry({ ...expense, category: "Software", vendor: "Acme", description: null, amountCents: 12_500, vatCents: 2_220, vatLines, vatRate: null }, PURCHASES);
    expect(vatLines).toEqual(given); // the input is not reordered
    expect(draft.description).toBe("Expense: Software, Acme");
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: 10_000, description: "Expense: Software, Acme, VAT S 21.00 %", vat: purchases("S", 2100, "base") },
      { accountId: "acc-1400", cents: 2_100, description: "Input VAT, VAT S 21.00 %", vat: purchases("S", 2100, "vat") },
      { accountId: "acc-6500-travel", cents: 2_000, description: "Expense: Software, Acme, VAT S 6.00 %", vat: purchases("S", 600, "base") },
      { accountId: "acc-1400", cents: 120, description: "Input VAT, VAT S 6.00 %", vat: purchases("S", 600, "vat") },
      { accountId: "acc-6500-travel", cents: 500, description: "Expense: Software, Acme, VAT Z 0.00 %", vat: purchases("Z", 0, "base") },
      { accountId: "acc-1400", cents: 0, description: "Input VAT, VAT Z 0.00 %", vat: purchases("Z", 0, "vat") },
      { accountId: "acc-2100", cents: -14_720, description: "Expense: Software, Acme" },
    ]);
    expectBalanced(draft);
  });

  test("a supplier's credit note: payables debited with the gross, the expense account and VAT receivable credited, tagged as a note", () => {
    const draft = expenseEntry({ ...expense, id: "exp-2", documentType: "credit_note", description: null }, PURCHASES);
    expect(draft).toMatchObject({ description: "Expense: Travel, SNCB", source: { type: "expense", id: "exp-2" }, date: "2025-02-20" });
    expect(linesOf(draft)).toEqual([
      { accountId: "acc-6500-travel", cents: -10_000, description: "Expense: Travel, SNCB", vat: purchases("S", 2100, "base", true) },
      { accountId: "acc-1400", cents: -2_100, description: "Input VAT", vat: purchases("S", 2100, "vat", true) },
      { accountId: "acc-2100", cents: 12_100, description: "Expense: Travel, SNCB" },
    ]);
    expectBalanced(draft);
  });

  test("a long description is cut to 1 000 characters", () => {
    const draft = expenseEntry({ ...expense, description: "x".repeat(2000) }, PURCHASES);
    expect(draft.description).toBe(`Expense: Travel, SNCB: ${"x".repeat(1000 - "Expense: Travel, SNCB: ".length)}`);
  });

  test("property: an expense or a supplier credit note, with or without a breakdown that adds up to it, balances", () => {
    const group = fc.record({
      category: fc.constantFrom("S" as const, "Z" as const, "AE" as const),
      rateBp: fc.constantFrom(0, 600, 2100),
      baseCents: fc.integer({ min: 0, max: 5_000_000 }),
      vatCents: fc.integer({ min: 0, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(group, { maxLength: 5 }), fc.integer({ min: 1, max: 5_000_000 }), fc.nat({ max: 1_000_000 }), fc.boolean(), (vatLines, amount, vat, note) => {
        const amountCents = vatLines.length > 0 ? vatLines.reduce((s, g) => s + g.baseCents, 0) : amount;
        const vatCents = vatLines.length > 0 ? vatLines.reduce((s, g) => s + g.vatCents, 0) : vat;
        const draft = expenseEntry({ ...expense, documentType: note ? "credit_note" : "invoice", amountCents, vatCents, vatLines, vatRate: null }, PURCHASES);
        expect(draft.lines.reduce((s, l) => s + l.cents, 0)).toBe(0);
        expect(draft.lines.at(-1)).toMatchObject({ accountId: "acc-2100", cents: (note ? 1 : -1) * (amountCents + vatCents) });
      }),
    );
  });
});

describe("expensePaymentEntry", () => {
  test("paying an expense: payables debited, the bank credited", () => {
    const draft = expensePaymentEntry(expense, { id: "xp-1", amountCents: 12_100, paymentDate: "2025-03-01", reference: "Trip 12" }, { bank: BANK, payables: "acc-2100" });
    expect(draft).toEqual({
      date: "2025-03-01",
      description: "Payment of expense: Travel, SNCB (Trip 12)",
      currency: "EUR",
      source: { type: "expense_payment", id: "xp-1" },
      lines: [
        { accountId: "acc-2100", cents: 12_100, description: "Payment of expense: Travel, SNCB" },
        { accountId: BANK, cents: -12_100, description: "Payment of expense: Travel, SNCB" },
      ],
    });
    expectBalanced(draft);
  });

  test("the refund of a supplier's credit note: the bank debited, payables credited", () => {
    const draft = expensePaymentEntry(
      { ...expense, documentType: "credit_note", vendor: null },
      { id: "xp-2", amountCents: 4_000, paymentDate: "2025-03-05", reference: null },
      { bank: BANK, payables: "acc-2100" },
    );
    expect(draft).toEqual({
      date: "2025-03-05",
      description: "Refund of expense: Travel",
      currency: "EUR",
      source: { type: "expense_payment", id: "xp-2" },
      lines: [
        { accountId: "acc-2100", cents: -4_000, description: "Refund of expense: Travel" },
        { accountId: BANK, cents: 4_000, description: "Refund of expense: Travel" },
      ],
    });
    expectBalanced(draft);
  });
});

describe("closingEntries", () => {
  test("per currency, each revenue and expense account's result reversed into retained earnings on 31 December; a nil result posts no line", () => {
    const drafts = closingEntries(
      2024,
      [
        { accountId: "acc-4100", currency: "EUR", net: -100_000 }, // sales: a credit balance of 1 000.00
        { accountId: "acc-6400", currency: "EUR", net: 30_000 }, // office: a debit balance of 300.00
        { accountId: "acc-6500", currency: "EUR", net: 0 },
        { accountId: "acc-4100", currency: "USD", net: -5_000 },
        { accountId: "acc-6800", currency: "USD", net: 7_500 },
      ],
      { retainedEarnings: "acc-3200" },
    );
    const common = { date: "2024-12-31", description: "Closing of the fiscal year 2024", source: { type: "fiscal_year", id: "2024" }, isClosing: true } as const;
    expect(drafts).toEqual([
      {
        ...common,
        currency: "EUR",
        lines: [
          { accountId: "acc-4100", cents: 100_000, description: "Result of 2024" },
          { accountId: "acc-6400", cents: -30_000, description: "Result of 2024" },
          // a profit of 700.00: retained earnings credited
          { accountId: "acc-3200", cents: -70_000, description: "Result of 2024" },
        ],
      },
      {
        ...common,
        currency: "USD",
        lines: [
          { accountId: "acc-4100", cents: 5_000, description: "Result of 2024" },
          { accountId: "acc-6800", cents: -7_500, description: "Result of 2024" },
          // a loss of 25.00: retained earnings debited
          { accountId: "acc-3200", cents: 2_500, description: "Result of 2024" },
        ],
      },
    ]);
    for (const draft of drafts) expectBalanced(draft);
  });

  test("a year without results closes with no entry", () => {
    expect(closingEntries(2025, [], { retainedEarnings: "acc-3200" })).toEqual([]);
    expect(closingEntries(2025, [{ accountId: "acc-4100", currency: "EUR", net: 0 }], { retainedEarnings: "acc-3200" })).toEqual([]);
  });
});
