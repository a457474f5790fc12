/**
 * A bank statement's texts are held to the limits of the bank line's fields they become
 * (server/inbound/import-limits.ts STATEMENT_TEXT_LIMITS): a hostile CAMT.053 or CODA file with one
 * text a character too long is refused with a 422 naming the element; at the limit it is read.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readCamt053 } from "../../server/inbound/camt053.ts";
import { readCoda } from "../../server/inbound/coda.ts";
import { InboundDocumentError } from "../../server/inbound/errors.ts";
import { createTestEnv } from "../helpers.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");
const CAMT = fixture("statement-1.camt053.xml");

function refusal(read: () => unknown): InboundDocumentError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(InboundDocumentError);
    return error as InboundDocumentError;
  }
  throw new Error("expected the statement to be refused");
}

// a 3-byte character: the limit counts characters, not bytes
const text = (n: number) => "€".repeat(n);

describe("CAMT.053 texts at and over their limits", () => {
  const cases: { what: string; edit: (n: number) => string; limit: number; path: string; read: (n: number) => unknown }[] = [
    {
      what: "a counterparty name (Nm, Max140Text)",
      edit: (n) => CAMT.replace("<Nm>Brasserie De Kroon BV</Nm>", `<Nm>${text(n)}</Nm>`),
      limit: 140,
      path: "/Document/BkToCstmrStmt/Stmt/Ntry[1]/NtryDtls/TxDtls[1]/RltdPties/Dbtr/Nm",
      read: (n) => readCamt053(CAMT.replace("<Nm>Brasserie De Kroon BV</Nm>", `<Nm>${text(n)}</Nm>`))[0]!.entries[0]!.counterpartyName,
    },
    {
      what: "the communication (every Ustrd of an entry, joined)",
      // two Ustrd of 500 and n − 501 characters, joined by a space: n characters
      edit: (n) => CAMT.replace("<Ustrd>Factuur 2026-0042 drukwerk maart</Ustrd>", `<Ustrd>${"a".repeat(500)}</Ustrd><Ustrd>${"b".repeat(n - 501)}</Ustrd>`),
      limit: 1000,
      path: "/Document/BkToCstmrStmt/Stmt/Ntry[5]/NtryDtls/TxDtls/RmtInf/Ustrd",
      read: () => null,
    },
    {
      what: "a structured reference (Ref, Max35Text)",
      edit: (n) => CAMT.replace("<Ref>202600010195</Ref>", `<Ref>${"9".repeat(n)}</Ref>`),
      limit: 35,
      path: "/Document/BkToCstmrStmt/Stmt/Ntry[1]/NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref",
      read: () => null,
    },
    {
      what: "an end-to-end id (Max35Text)",
      edit: (n) => CAMT.replace("<EndToEndId>NOTPROVIDED</EndToEndId>", `<EndToEndId>${"E".repeat(n)}</EndToEndId>`),
      limit: 35,
      path: "/Document/BkToCstmrStmt/Stmt/Ntry[1]/NtryDtls/TxDtls[1]/Refs/EndToEndId",
      read: () => null,
    },
    {
      what: "the bank's reference of an entry (AcctSvcrRef, Max35Text)",
      edit: (n) => CAMT.replace("<AcctSvcrRef>0420001</AcctSvcrRef>", `<AcctSvcrRef>${"R".repeat(n)}</AcctSvcrRef>`),
      limit: 35,
      path: "/Document/BkToCstmrStmt/Stmt/Ntry[1]/AcctSvcrRef",
      read: () => null,
    },
    {
      what: "the statement's Id (Max35Text)",
      edit: (n) => CAMT.replace("<Id>2026-042</Id>", `<Id>${"S".repeat(n)}</Id>`),
      limit: 35,
      path: "/Document/BkToCstmrStmt/Stmt/Id",
      read: () => null,
    },
  ];
  for (const c of cases) {
    test(`${c.what}: ${c.limit} characters are read, ${c.limit + 1} refused naming the element`, () => {
      expect(() => readCamt053(c.edit(c.limit))).not.toThrow();
      const error = refusal(() => readCamt053(c.edit(c.limit + 1)));
      expect(error.path).toBe(c.path);
      expect(error.message).toContain(`is ${c.limit + 1} characters long`);
      expect(error.message).toContain(`at most ${c.limit}`);
    });
  }

  test("a name at the limit is kept whole", () => {
    expect(cases[0]!.read(140)).toBe(text(140));
  });
});

describe("CODA: a communication repeated over many 2.2 records", () => {
  const lines = fixture("statement-1.coda").trimEnd().split("\n");
  /** Movement 1 with `extra` more 2.2 records of 53 letters each, the trailer's record count raised to match. */
  function withExtra(extra: number): string {
    const record22 = lines[3]!;
    const copy = record22.slice(0, 10) + "x".repeat(53) + record22.slice(63);
    const out = [...lines.slice(0, 4), ...Array(extra).fill(copy), ...lines.slice(4)];
    const last = out.length - 1;
    const trailer = out[last]!;
    const count = Number(trailer.slice(16, 22)) + extra;
    out[last] = trailer.slice(0, 16) + String(count).padStart(6, "0") + trailer.slice(22);
    return out.join("\n");
  }

  test("18 such records (954 letters, no spaces between them) are read; 19 (1,007) are refused naming the movement's line", () => {
    // the 2.1 record of movement 1 carries a structured communication (type 101): the free text is only the 2.2 records'
    expect(readCoda(withExtra(1))[0]!.entries[0]!.communication).toBeNull();
    expect(() => readCoda(withExtra(18))).not.toThrow();
    const error = refusal(() => readCoda(withExtra(19)));
    expect(error.path).toBe("line 3 (the communication of records 2.1 to 2.3)");
    expect(error.message).toContain("at most 1000");
  });
});

describe("through the API", async () => {
  const env = await createTestEnv();
  afterAll(() => env.close());

  test("an upload with a counterparty name of 141 characters is a 422 naming the element; nothing is stored", async () => {
    const { token } = await env.newOrg("Hostile statements", { country: "BE", currency: "EUR" });
    const account = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data[0].id;
    const xml = CAMT.replace("<Nm>Brasserie De Kroon BV</Nm>", `<Nm>${text(141)}</Nm>`);
    const r = await env.request("POST", `/api/v1/bank-accounts/${account}/statements`, { rawBody: xml, token, headers: { "content-type": "application/xml" } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["/Document/BkToCstmrStmt/Stmt/Ntry[1]/NtryDtls/TxDtls[1]/RltdPties/Dbtr/Nm"]);
    const lines = await env.api("GET", "/api/v1/bank-transactions", undefined, token);
    expect(lines.body.data).toEqual([]);
  });
});
