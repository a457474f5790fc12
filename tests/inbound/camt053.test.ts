import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateXML } from "xmllint-wasm";
import { readCamt053 as readCamt053File } from "../../server/inbound/camt053.ts";
import { InboundDocumentError, STATEMENT_FORMATS } from "../../server/inbound/errors.ts";
import { STATEMENT_1, STATEMENT_2 } from "./expected-statements.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");
const XSD = readFileSync(join(import.meta.dir, "xsd", "camt.053.001.02.xsd"), "utf8");

async function xsdErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: { fileName: "statement.xml", contents: xml }, schema: { fileName: "camt.053.001.02.xsd", contents: XSD } });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage || e.message);
}

/** The one statement of a file. */
function readCamt053(xml: string) {
  const statements = readCamt053File(xml);
  expect(statements).toHaveLength(1);
  return statements[0]!;
}

function refusal(xml: string): InboundDocumentError {
  try {
    readCamt053(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(InboundDocumentError);
    return error as InboundDocumentError;
  }
  throw new Error("expected the statement to be refused");
}

describe("CAMT.053 fixtures against the official camt.053.001.02 XSD", () => {
  for (const name of ["statement-1.camt053.xml", "statement-2.camt053.xml", "statement-1-broken.camt053.xml"]) {
    test(name, async () => {
      expect(await xsdErrors(fixture(name))).toEqual([]);
    });
  }

  test("the validation can fail: an entry without its mandatory bank transaction code", async () => {
    const xml = fixture("statement-1.camt053.xml").replace(/<BkTxCd>[\s\S]*?<\/BkTxCd>/, "");
    const errors = await xsdErrors(xml);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toContain("BkTxCd");
  });
});

describe("readCamt053", () => {
  test("statement 1: three invoices paid by reference (one in part), an unknown reference, a supplier payment", () => {
    // CODA carries no EndToEndId; the CAMT file's supplier payment does (NOTPROVIDED elsewhere, which is none)
    const entries = STATEMENT_1.entries.map((e) => (e.entryRef === "0420005" ? { ...e, endToEndId: "KONTOR-PAY-0042" } : e));
    expect(readCamt053(fixture("statement-1.camt053.xml"))).toEqual({ format: "camt.053", ...STATEMENT_1, entries });
  });

  test("statement 2 follows on from statement 1; an entry without a bank reference gets a stable hash", () => {
    const first = readCamt053(fixture("statement-1.camt053.xml"));
    const second = readCamt053(fixture("statement-2.camt053.xml"));
    expect(second.openingBalance.cents).toBe(first.closingBalance.cents);
    const { entries, ...rest } = second;
    const { entries: expectedEntries, ...expectedRest } = STATEMENT_2;
    expect(rest).toEqual({ format: "camt.053", ...expectedRest });
    expect(entries[0]).toEqual(expectedEntries[0]!);
    expect(entries[1]).toEqual({ ...expectedEntries[1]!, entryRef: expect.stringMatching(/^sha256:[0-9a-f]{32}$/) });
    expect(readCamt053(fixture("statement-2.camt053.xml")).entries[1]!.entryRef).toBe(entries[1]!.entryRef);
  });

  test("a closing balance 0.01 off is refused, with the sum", () => {
    const error = refusal(fixture("statement-1-broken.camt053.xml"));
    expect(error.message).toBe("The closing balance 2802.00 is not the opening balance 1000.00 + credits 2164.99 − debits 363.00 = 2801.99: a difference of 0.01.");
  });

  test("an overdrawn account: balances with DBIT are negative", () => {
    const xml = fixture("statement-2.camt053.xml")
      .replace("<Amt Ccy=\"EUR\">2801.99</Amt>\n        <CdtDbtInd>CRDT</CdtDbtInd>", "<Amt Ccy=\"EUR\">500.00</Amt>\n        <CdtDbtInd>DBIT</CdtDbtInd>")
      .replace("<Amt Ccy=\"EUR\">3265.89</Amt>", "<Amt Ccy=\"EUR\">36.10</Amt>")
      .replace(/(<Amt Ccy="EUR">36\.10<\/Amt>\s*<CdtDbtInd>)CRDT/, "$1DBIT");
    const statement = readCamt053(xml);
    // -500.00 + 476.00 - 12.10 = -36.10
    expect([statement.openingBalance.cents, statement.closingBalance.cents]).toEqual([-50000, -3610]);
  });

  test("a prefixed namespace and camt.053.001.08 read the same", () => {
    const original = fixture("statement-2.camt053.xml");
    const prefixed = original.replace(/<(\/?)(\w+)/g, "<$1c:$2").replace('xmlns="urn:', 'xmlns:c="urn:');
    expect(readCamt053(prefixed)).toEqual(readCamt053(original));
    const v08 = original.replace("camt.053.001.02", "camt.053.001.08");
    expect(readCamt053(v08).closingBalance.cents).toBe(326589);
  });

  test("a file with several statements reads each; an error names the statement", () => {
    const one = fixture("statement-1.camt053.xml");
    const two = fixture("statement-2.camt053.xml");
    const stmtOf = (xml: string) => /<Stmt>[\s\S]*<\/Stmt>/.exec(xml)![0];
    const both = one.replace(stmtOf(one), stmtOf(one) + stmtOf(two));
    expect(readCamt053File(both)).toEqual([readCamt053(one), readCamt053(two)]);
    const error = refusal(both.replace(stmtOf(two), stmtOf(two).replace("<IBAN>BE71096123456769</IBAN>", "<IBAN>BE00096123456769</IBAN>")));
    expect(error.path).toBe("/Document/BkToCstmrStmt/Stmt[2]/Acct/Id/IBAN");
  });

  test("camt.053.001.02 to .13 read alike; .01 and other messages do not", () => {
    const original = fixture("statement-2.camt053.xml");
    for (const version of ["02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13"]) {
      expect(readCamt053(original.replace("camt.053.001.02", `camt.053.001.${version}`))).toEqual(readCamt053(original));
    }
    expect(refusal(original.replace("camt.053.001.02", "camt.053.001.01")).path).toBe("/Document");
    expect(refusal(original.replace("camt.053.001.02", "camt.053.001.14")).path).toBe("/Document");
  });

  test("an account without an IBAN is refused", () => {
    const xml = fixture("statement-1.camt053.xml").replace("<IBAN>BE71096123456769</IBAN>", "<Othr><Id>096-1234567-69</Id></Othr>");
    const error = refusal(xml);
    expect(error.path).toBe("/Document/BkToCstmrStmt/Stmt/Acct/Id/IBAN");
  });

  test("an amount in another currency, or with sub-cent digits, is refused", () => {
    expect(refusal(fixture("statement-1.camt053.xml").replace('<Amt Ccy="EUR">605.00</Amt>', '<Amt Ccy="USD">605.00</Amt>')).message).toBe(
      "The amount is in USD, not in the account's currency EUR.",
    );
    expect(refusal(fixture("statement-1.camt053.xml").replace('<Amt Ccy="EUR">605.00</Amt>', '<Amt Ccy="EUR">605.001</Amt>')).message).toBe(
      "'605.001' is not an amount in cents.",
    );
  });

  test("another message (a camt.054 notification) is refused", () => {
    const xml = fixture("statement-1.camt053.xml").replace("camt.053.001.02", "camt.054.001.02");
    expect(refusal(xml).message).toBe("The root element is {urn:iso:std:iso:20022:tech:xsd:camt.054.001.02}Document, not a camt.053 Document (camt.053.001.02 to .13). " + STATEMENT_FORMATS);
  });

  test("two entries with the same bank reference are refused", () => {
    const xml = fixture("statement-1.camt053.xml").replace("<AcctSvcrRef>0420002</AcctSvcrRef>", "<AcctSvcrRef>0420001</AcctSvcrRef>");
    expect(refusal(xml).message).toBe("Two entries have the reference '0420001'.");
  });
});
