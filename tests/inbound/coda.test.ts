import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readCamt053 } from "../../server/inbound/camt053.ts";
import { readCoda as readCodaFile } from "../../server/inbound/coda.ts";
import { InboundDocumentError } from "../../server/inbound/errors.ts";
import { STATEMENT_1, STATEMENT_2 } from "./expected-statements.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");
const lines = (name: string) => fixture(name).trimEnd().split("\n");

/** The one statement of a file. */
function readCoda(text: string) {
  const statements = readCodaFile(text);
  expect(statements).toHaveLength(1);
  return statements[0]!;
}

function refusal(text: string): InboundDocumentError {
  try {
    readCoda(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InboundDocumentError);
    return error as InboundDocumentError;
  }
  throw new Error("expected the CODA file to be refused");
}

/** Replaces the characters at 1-based position `position` of line `index` (0-based) of a fixture. */
function edit(name: string, index: number, position: number, value: string): string {
  const all = lines(name);
  const line = all[index]!;
  all[index] = line.slice(0, position - 1) + value + line.slice(position - 1 + value.length);
  return all.join("\n") + "\n";
}

describe("CODA fixtures", () => {
  test("every record has 128 characters", () => {
    for (const name of ["statement-1.coda", "statement-2.coda", "statement-1-broken.coda"]) {
      for (const line of lines(name)) expect(line).toHaveLength(128);
    }
  });
});

describe("readCoda", () => {
  test("statement 1 reads to the same statement as its CAMT.053 twin", () => {
    const statement = readCoda(fixture("statement-1.coda"));
    expect(statement).toEqual({ format: "coda", ...STATEMENT_1 });
    const { format: _coda, ...fromCoda } = statement;
    const { format: _camt, ...fromCamt } = readCamt053(fixture("statement-1.camt053.xml"))[0]!;
    // the CAMT file's supplier payment carries an EndToEndId; the CODA twin's 2.2 record leaves the client reference blank
    const entries = fromCamt.entries.map(({ endToEndId: _e2e, ...entry }) => entry);
    expect(fromCoda).toEqual({ ...fromCamt, entries });
  });

  test("a transfer's client reference (record 2.2, positions 64–98) is its EndToEndId, as CAMT's TxDtls/Refs/EndToEndId", () => {
    const file = lines("statement-1.coda").map((l) => (l.startsWith("2200050000") ? l.slice(0, 63) + "KONTOR-PAY-0042".padEnd(35) + l.slice(98) : l));
    const statement = readCoda(file.join("\n") + "\n");
    expect(statement.entries.find((e) => e.entryRef === "0420005")!.endToEndId).toBe("KONTOR-PAY-0042");
    expect(statement.entries.filter((e) => e.endToEndId !== undefined)).toHaveLength(1);
  });

  test("statement 2 follows on; the costs without a bank reference get a stable hash", () => {
    const first = readCoda(fixture("statement-1.coda"));
    const second = readCoda(fixture("statement-2.coda"));
    expect(second.openingBalance).toEqual(first.closingBalance);
    const { entries, ...rest } = second;
    const { entries: expectedEntries, ...expectedRest } = STATEMENT_2;
    expect(rest).toEqual({ format: "coda", ...expectedRest });
    expect(entries[0]).toEqual(expectedEntries[0]!);
    expect(entries[1]).toEqual({ ...expectedEntries[1]!, entryRef: expect.stringMatching(/^sha256:[0-9a-f]{32}$/) });
    expect(readCoda(fixture("statement-2.coda")).entries[1]!.entryRef).toBe(entries[1]!.entryRef);
  });

  test("a closing balance 0.01 off is refused, with the sum", () => {
    expect(refusal(fixture("statement-1-broken.coda")).message).toBe(
      "The closing balance 2802.00 is not the opening balance 1000.00 + credits 2164.99 − debits 363.00 = 2801.99: a difference of 0.01.",
    );
  });

  test("CRLF line ends and stripped trailing blanks read the same", () => {
    const text = lines("statement-1.coda").map((l) => l.trimEnd()).join("\r\n");
    expect(readCoda(text)).toEqual(readCoda(fixture("statement-1.coda")));
  });

  test("a debit old balance (sign 1) is negative", () => {
    // old balance -1000.00: the new balance becomes -1000.00 + 2164.99 - 363.00 = 801.99
    let text = edit("statement-1.coda", 1, 43, "1");
    text = text.replace("0000000002801990020326", "0000000000801990020326");
    const statement = readCoda(text);
    expect([statement.openingBalance.cents, statement.closingBalance.cents]).toEqual([-100000, 80199]);
  });

  test("a non-zero third decimal is refused", () => {
    // movement 1: 1210.000 → 1210.005
    const error = refusal(edit("statement-1.coda", 2, 47, "5"));
    expect(error.path).toBe("line 3");
    expect(error.message).toBe("The amount 000000001210005 has a non-zero third decimal; amounts are kept in cents.");
  });

  test("a trailer whose sums disagree with the movements is refused", () => {
    const error = refusal(fixture("statement-1.coda").replace("000017000000000363000000000002164990", "000017000000000363000000000002164980"));
    expect(error.message).toBe("The trailer's sums (debit 363.00, credit 2164.98) are not those of the movements (debit 363.00, credit 2164.99).");
  });

  test("a file cut short (no trailer) is refused", () => {
    const text = lines("statement-1.coda").slice(0, -1).join("\n");
    expect(refusal(text).message).toBe("The file has no trailer record (9); it may be cut short.");
  });

  test("a file with several statements reads each; an error names the line in the whole file", () => {
    expect(readCodaFile(fixture("statement-1.coda") + fixture("statement-2.coda"))).toEqual([readCoda(fixture("statement-1.coda")), readCoda(fixture("statement-2.coda"))]);
    const first = lines("statement-1.coda").length;
    const error = (() => {
      try {
        readCodaFile(fixture("statement-1.coda") + edit("statement-2.coda", 2, 1, "7"));
      } catch (e) {
        return e as InboundDocumentError;
      }
      throw new Error("expected a refusal");
    })();
    expect(error.path).toBe(`line ${first + 3}`);
    // a record between one statement's trailer and the next header
    expect(refusal(fixture("statement-1.coda") + lines("statement-2.coda")[1] + "\n").message).toBe(
      "A record follows the trailer record (9); the next statement must start with a header record (0).",
    );
  });

  test("a foreign account without an IBAN is refused", () => {
    expect(refusal(edit("statement-1.coda", 1, 2, "1")).message).toBe("The account is a foreign account without an IBAN (structure 1); only IBAN accounts are read.");
  });

  test("a Belgian account number (structure 0) is read as its IBAN", () => {
    // 096-1234567-69 is the BBAN of BE71096123456769
    const text = edit("statement-1.coda", 1, 2, "0").split("\n");
    text[1] = text[1]!.slice(0, 5) + "096123456769 EUR0BE" + " ".repeat(18) + text[1]!.slice(42);
    expect(readCoda(text.join("\n")).iban).toBe("BE71096123456769");
  });

  test("a record that is too long, an unknown record type, a version 1 file", () => {
    expect(refusal(fixture("statement-1.coda").replace("\n2100", " \n2100")).message).toBe("A CODA record has 128 characters; line 2 has 129.");
    expect(refusal(edit("statement-1.coda", 2, 1, "7")).message).toBe("Unknown CODA record type '7'.");
    expect(refusal(edit("statement-1.coda", 0, 128, "1")).message).toBe("Only CODA version 2 is read; this file says version '1'.");
  });

  test("an impossible date", () => {
    expect(refusal(edit("statement-1.coda", 2, 116, "310226")).message).toBe("'310226' is not a date (DDMMYY).");
  });
});
