/**
 * What the statement fixtures say, written once for both formats: statement-1.camt053.xml and
 * statement-1.coda must read to STATEMENT_1, the statement-2 files to STATEMENT_2. The references
 * are Kontor's own (server/documents/payment-reference.ts: belgianStructuredCommunication of
 * 2026000101, …102, …103); +++000/7777/77726+++ is valid but was never issued.
 */
import type { BankStatement } from "../../server/inbound/bank-statement.ts";

type Fixture = Omit<BankStatement, "format">;

export const STATEMENT_1: Fixture = {
  statementId: "2026-042",
  iban: "BE71096123456769",
  currency: "EUR",
  openingBalance: { cents: 100000, date: "2026-02-27" },
  closingBalance: { cents: 280199, date: "2026-03-02" },
  entries: [
    { entryRef: "0420001", bookingDate: "2026-03-02", valueDate: "2026-03-02", amountCents: 121000, direction: "credit", counterpartyName: "Brasserie De Kroon BV", counterpartyIban: "BE68539007547034", communication: null, structuredReference: "+++202/6000/10195+++" },
    { entryRef: "0420002", bookingDate: "2026-03-02", valueDate: "2026-03-02", amountCents: 60500, direction: "credit", counterpartyName: "Atelier Verbeke", counterpartyIban: "BE62510007547061", communication: null, structuredReference: "+++202/6000/10296+++" },
    // 250.00 of the 726.00 of invoice +++202/6000/10397+++
    { entryRef: "0420003", bookingDate: "2026-03-02", valueDate: "2026-03-01", amountCents: 25000, direction: "credit", counterpartyName: "Dekker & Zonen BV", counterpartyIban: "NL91ABNA0417164300", communication: null, structuredReference: "+++202/6000/10397+++" },
    { entryRef: "0420004", bookingDate: "2026-03-02", valueDate: "2026-03-02", amountCents: 9999, direction: "credit", counterpartyName: "J. Janssens", counterpartyIban: null, communication: null, structuredReference: "+++000/7777/77726+++" },
    { entryRef: "0420005", bookingDate: "2026-03-02", valueDate: "2026-03-02", amountCents: 36300, direction: "debit", counterpartyName: "Drukkerij Peeters NV", counterpartyIban: "BE43068999999501", communication: "Factuur 2026-0042 drukwerk maart", structuredReference: null },
  ],
};

export const STATEMENT_2: Fixture = {
  statementId: "2026-043",
  iban: "BE71096123456769",
  currency: "EUR",
  openingBalance: { cents: 280199, date: "2026-03-02" },
  closingBalance: { cents: 326589, date: "2026-03-03" },
  entries: [
    // the other 476.00 of +++202/6000/10397+++
    { entryRef: "0430001", bookingDate: "2026-03-03", valueDate: "2026-03-03", amountCents: 47600, direction: "credit", counterpartyName: "Dekker & Zonen BV", counterpartyIban: "NL91ABNA0417164300", communication: null, structuredReference: "+++202/6000/10397+++" },
    // no bank reference: the reader hashes the entry (the hash differs between formats)
    { entryRef: "(hash)", bookingDate: "2026-03-03", valueDate: "2026-03-01", amountCents: 1210, direction: "debit", counterpartyName: null, counterpartyIban: null, communication: "Beheerskosten rekening februari 2026", structuredReference: null },
  ],
};
