/**
 * What is still owed on a document (server/settlement/due.ts), from the rules: an invoice's total
 * less its payments and credit allocation; an expense's BT-115 (total with VAT, less prepaid, plus
 * rounding) less its payments, never below nothing, nothing on one not approved; what the supplier
 * owes back when more was prepaid than the total; the statuses that follow.
 */
import { describe, expect, test } from "bun:test";
import {
  expenseDueCents,
  expenseMoneyComesIn,
  expenseOpenCents,
  expensePayableCents,
  expenseRefundDueCents,
  expenseStatusAfterPayments,
  invoiceDueCents,
  settledStatus,
  statusAfterPayments,
} from "../../server/settlement/due.ts";

const expense = (over: Record<string, unknown> = {}) =>
  ({ amountCents: 10_000, vatCents: 2100, prepaidCents: 0, roundingCents: 0, status: "approved", paidCents: 0, documentType: "invoice", ...over }) as any;

describe("invoices and credit notes", () => {
  test("total less paid less credited; nothing due on a cancelled document", () => {
    expect(invoiceDueCents({ status: "sent", totalCents: 12_100, paidCents: 2100, creditedCents: 4000 })).toBe(6000);
    expect(invoiceDueCents({ status: "paid", totalCents: 12_100, paidCents: 12_100, creditedCents: 0 })).toBe(0);
    expect(invoiceDueCents({ status: "cancelled", totalCents: 12_100, paidCents: 0, creditedCents: 0 })).toBe(0);
  });

  test("the status: finalized or sent while nothing is settled, partially paid, paid when all of it is", () => {
    expect(statusAfterPayments({ totalCents: 10_000, sentAt: null }, 0)).toBe("finalized");
    expect(statusAfterPayments({ totalCents: 10_000, sentAt: "2026-01-01T00:00:00Z" }, 0)).toBe("sent");
    expect(statusAfterPayments({ totalCents: 10_000, sentAt: null }, 1)).toBe("partially_paid");
    expect(statusAfterPayments({ totalCents: 10_000, sentAt: null }, 9999)).toBe("partially_paid");
    expect(statusAfterPayments({ totalCents: 10_000, sentAt: null }, 10_000)).toBe("paid");
    // payments and credits together
    expect(settledStatus({ totalCents: 10_000, sentAt: null }, 6000, 4000)).toBe("paid");
    expect(settledStatus({ totalCents: 10_000, sentAt: null }, 6000, 3999)).toBe("partially_paid");
    expect(settledStatus({ totalCents: 10_000, sentAt: "2026-01-01T00:00:00Z" }, 0, 0)).toBe("sent");
  });
});

describe("expenses", () => {
  test("BT-115: total with VAT, less prepaid, plus rounding", () => {
    // 100.00 + 21.00 − 50.00 + 0.02
    expect(expensePayableCents(expense({ prepaidCents: 5000, roundingCents: 2 }))).toBe(7102);
  });

  test("amount due: the payable less payments, never below nothing; nothing on one pending or rejected", () => {
    expect(expenseDueCents(expense({ paidCents: 2100 }))).toBe(10_000);
    expect(expenseDueCents(expense({ status: "paid", paidCents: 12_100 }))).toBe(0);
    expect(expenseDueCents(expense({ paidCents: 13_000 }))).toBe(0);
    expect(expenseDueCents(expense({ status: "pending" }))).toBe(0);
    expect(expenseDueCents(expense({ status: "rejected" }))).toBe(0);
  });

  test("refund due: what was prepaid beyond the total, less the refunds recorded", () => {
    // 121.00 prepaid 150.00: 29.00 back; 9.00 refunded: 20.00
    expect(expenseRefundDueCents(expense({ prepaidCents: 15_000 }))).toBe(2900);
    expect(expenseRefundDueCents(expense({ prepaidCents: 15_000, paidCents: 900 }))).toBe(2000);
    expect(expenseRefundDueCents(expense({ status: "paid", prepaidCents: 15_000, paidCents: 2900 }))).toBe(0);
    expect(expenseRefundDueCents(expense({}))).toBe(0);
    expect(expenseRefundDueCents(expense({ status: "pending", prepaidCents: 15_000 }))).toBe(0);
    expect(expenseOpenCents(expense({ prepaidCents: 15_000 }))).toBe(2900);
    expect(expenseOpenCents(expense({ paidCents: 100 }))).toBe(12_000);
  });

  test("which way the money goes: a supplier's credit note and an invoice prepaid beyond its total bring money in", () => {
    expect(expenseMoneyComesIn(expense({}))).toBe(false);
    expect(expenseMoneyComesIn(expense({ documentType: "credit_note" }))).toBe(true);
    expect(expenseMoneyComesIn(expense({ prepaidCents: 12_101 }))).toBe(true);
    expect(expenseMoneyComesIn(expense({ prepaidCents: 12_100 }))).toBe(false);
  });

  test("its status after payments: paid when they cover the payable (or the refunds the excess), else approved", () => {
    expect(expenseStatusAfterPayments(expense({}), 12_100)).toBe("paid");
    expect(expenseStatusAfterPayments(expense({}), 12_099)).toBe("approved");
    expect(expenseStatusAfterPayments(expense({ prepaidCents: 15_000 }), 2900)).toBe("paid");
    expect(expenseStatusAfterPayments(expense({ prepaidCents: 15_000 }), 2899)).toBe("approved");
    // prepaid exactly: paid on approval
    expect(expenseStatusAfterPayments(expense({ prepaidCents: 12_100 }), 0)).toBe("paid");
  });
});
