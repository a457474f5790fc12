/**
 * The statement files banks send (issue 27, item 4): a camt.053 file with several statements of
 * several accounts (tests/banking/fixtures/four-statements.camt053.xml, validated against the
 * camt.053.001.02 XSD here), a CODA file with two accounts' statements, ZIP archives of statement
 * files (built here from the tests/inbound fixtures), the archive limits and a zip bomb, and files
 * that are no statement. Expected figures are those the fixtures' comments compute.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { validateXML } from "xmllint-wasm";
import { bankStatements, bankTransactions } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { STATEMENT_FORMATS } from "../../server/inbound/errors.ts";
import type { Organization } from "../../server/lib/scope.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { createTestEnv } from "../helpers.ts";
import { STATEMENT_1, STATEMENT_2 } from "../inbound/expected-statements.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const INBOUND = join(import.meta.dir, "..", "inbound");
const inbound = (name: string) => readFileSync(join(INBOUND, "fixtures", name));
const FOUR = readFileSync(join(import.meta.dir, "fixtures", "four-statements.camt053.xml"));
// the fixtures' accounts: A is the seeded one of a test organisation, B one it adds, C one it does not hold
const A = "BE71096123456769";
const B = "BE68539007547034";
const C = "NL91ABNA0417164300";

type Org = { org: Organization; token: string; a: string; b: string };
async function twoAccounts(name: string): Promise<Org> {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const a = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data.find((x: any) => x.iban === A).id;
  const b = (await bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name: "Belfius", iban: B })).id;
  return { org, token, a, b };
}

function upload(o: Org, bytes: Uint8Array, contentType: string, bankId = o.a) {
  return env.request("POST", `/api/v1/bank-accounts/${bankId}/statements`, { rawBody: bytes as unknown as string, token: o.token, headers: { "content-type": contentType } });
}

const statementsOf = async (bankId: string) => await env.db.select().from(bankStatements).where(eq(bankStatements.bankAccountId, bankId));
const linesOf = async (bankId: string) => await env.db.select().from(bankTransactions).where(eq(bankTransactions.bankAccountId, bankId));

/** A ZIP archive (PKWARE APPNOTE 6.3) of deflated files; `claimedSize` overrides the sizes the headers state (a lying archive). */
function zip(files: { name: string; bytes: Uint8Array; claimedSize?: number }[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const file of files) {
    const name = new TextEncoder().encode(file.name);
    const data = deflateRawSync(file.bytes);
    const crc = Bun.hash.crc32(file.bytes);
    const size = file.claimedSize ?? file.bytes.length;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 8, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, size, true);
    local.setUint16(26, name.length, true);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(10, 8, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, data.length, true);
    entry.setUint32(24, size, true);
    entry.setUint16(28, name.length, true);
    entry.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, data);
    central.push(new Uint8Array(entry.buffer), name);
    offset += 30 + name.length + data.length;
  }
  const directorySize = central.reduce((sum, p) => sum + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, directorySize, true);
  end.setUint32(16, offset, true);
  return Buffer.concat([...parts, ...central, new Uint8Array(end.buffer)]);
}

describe("a camt.053 file with several statements", () => {
  test("the fixture is valid against the official camt.053.001.02 XSD", async () => {
    const xsd = readFileSync(join(INBOUND, "xsd", "camt.053.001.02.xsd"), "utf8");
    const result = await validateXML({ xml: { fileName: "four.xml", contents: FOUR.toString("utf8") }, schema: { fileName: "camt.053.001.02.xsd", contents: xsd } });
    expect(result.errors.map((e) => e.rawMessage || e.message)).toEqual([]);
  });

  test("each statement goes into its account, in date order; the unknown account's is skipped and named; again adds nothing", async () => {
    const o = await twoAccounts("Four statements");
    const r = await upload(o, FOUR, "application/xml");
    expect(r.status).toBe(201);
    // data: the path account's latest statement (A-2026-061 closes 3 March with 1309.99)
    expect(r.body.data).toMatchObject({ bank_account_id: o.a, statement_id: "A-2026-061", opening_balance: "1210.00", closing_balance: "1309.99", transactions_imported: 1 });
    const summary = r.body.statements.map((s: any) => [s.statement_id, s.iban, s.result, s.bank_account_id, s.transactions_imported, s.opening_balance, s.closing_balance]);
    expect(summary).toEqual([
      ["A-2026-061", A, "imported", o.a, 1, "1210.00", "1309.99"],
      ["B-2026-060", B, "imported", o.b, 1, "500.00", "379.50"],
      ["A-2026-060", A, "imported", o.a, 2, "1000.00", "1210.00"],
      ["C-2026-012", C, "skipped", null, 0, "0.00", "10.00"],
    ]);
    expect(r.body.statements[3].reason).toBe(`The organisation has no bank account with IBAN ${C}.`);
    expect(r.body.statements.every((s: any) => s.file === null)).toBe(true);
    expect((await statementsOf(o.a)).map((s) => s.statementId).sort()).toEqual(["A-2026-060", "A-2026-061"]);
    expect(await linesOf(o.a)).toHaveLength(3);
    expect((await linesOf(o.b)).map((l) => [l.amountCents, l.direction, l.counterpartyName])).toEqual([[12050, "debit", "Drukkerij Peeters NV"]]);

    const again = await upload(o, FOUR, "application/xml");
    expect(again.status).toBe(200);
    expect(again.body.statements.map((s: any) => s.result)).toEqual(["already_imported", "already_imported", "already_imported", "skipped"]);
    expect(again.body.data.transactions_imported).toBe(0);
    expect(await linesOf(o.a)).toHaveLength(3);
    expect(await linesOf(o.b)).toHaveLength(1);
  });

  test("through the other account: the same file imports the same way", async () => {
    const o = await twoAccounts("Four statements via B");
    const r = await upload(o, FOUR, "application/xml", o.b);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ bank_account_id: o.b, statement_id: "B-2026-060", closing_balance: "379.50" });
    expect(r.body.statements.map((s: any) => s.result)).toEqual(["imported", "imported", "imported", "skipped"]);
  });

  test("all or nothing: one statement that does not follow on refuses the file, and nothing of it is stored", async () => {
    const o = await twoAccounts("Four statements broken");
    expect((await upload(o, FOUR, "application/xml")).status).toBe(201);
    const text = FOUR.toString("utf8");
    const [a061, b060] = text.match(/<Stmt>[\s\S]*?<\/Stmt>/g)!;
    // A's next day follows on (1309.99 + 99.99 = 1409.98); B's next statement opens with 500.00, but B-2026-060 closed with 379.50
    const a062 = a061!
      .replace("A-2026-061", "A-2026-062")
      .replace("A0610001", "A0620001")
      .replace(">1309.99<", ">1409.98<")
      .replace(">1210.00<", ">1309.99<")
      .replaceAll("2026-03-03", "2026-03-04")
      .replace("<Dt>2026-03-02</Dt>", "<Dt>2026-03-03</Dt>");
    const b061 = b060!.replace("B-2026-060", "B-2026-061").replace("B0600001", "B0610001");
    const r = await upload(o, Buffer.from(text.replace(text.match(/<Stmt>[\s\S]*<\/Stmt>/)![0], a062 + "\n    " + b061)), "application/xml");
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({
      "statements[1].opening_balance": [
        `Statement B-2026-061 of ${B} opens with 500.00, but statement B-2026-060 closed with 379.50 on 2026-03-02: a difference of 120.50. Import the statements in between first.`,
      ],
    });
    // A-2026-062 alone would have been imported: it was not
    expect((await statementsOf(o.a)).map((s) => s.statementId).sort()).toEqual(["A-2026-060", "A-2026-061"]);
    expect(await linesOf(o.a)).toHaveLength(3);
    expect(await statementsOf(o.b)).toHaveLength(1);
    const alone = await upload(o, Buffer.from(text.replace(text.match(/<Stmt>[\s\S]*<\/Stmt>/)![0], a062)), "application/xml");
    expect(alone.status).toBe(201);
    expect(alone.body.data).toMatchObject({ statement_id: "A-2026-062", closing_balance: "1409.98", transactions_imported: 1 });
  });

  test("a file with none of the path account's statements is a 422 naming the accounts it has", async () => {
    const o = await twoAccounts("Not this account");
    const text = FOUR.toString("utf8");
    const stmts = text.match(/<Stmt>[\s\S]*?<\/Stmt>/g)!;
    const only = (...keep: number[]) => Buffer.from(text.replace(stmts.join("\n    "), keep.map((i) => stmts[i]).join("\n    ")));
    const bankName = (await env.api("GET", `/api/v1/bank-accounts/${o.a}`, undefined, o.token)).body.data.name;
    const one = await upload(o, only(3), "application/xml");
    expect(one.status).toBe(422);
    expect(one.body.errors.iban).toEqual([`The statement is of account ${C}, not of the bank account ${bankName} (${A}).`]);
    const two = await upload(o, only(1, 3), "application/xml");
    expect(two.status).toBe(422);
    expect(two.body.errors.iban).toEqual([`None of the file's 2 statements is of the bank account ${bankName} (${A}); they are of ${B}, ${C}. Import the file through one of those accounts.`]);
    expect(await statementsOf(o.b)).toHaveLength(0);
  });
});

describe("a parser's multi-statement sample (genkgo/camt, tests/banking/fixtures/genkgo-camt)", () => {
  test("two statements of one account and day import in the file's order, one chaining on the other", async () => {
    const { org, token } = await env.newOrg("Genkgo sample", { country: "NL", currency: "EUR" });
    const bankId = (await bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name: "Vayb", iban: "NL26VAYB8060476890" })).id;
    const file = readFileSync(join(import.meta.dir, "fixtures", "genkgo-camt", "camt053.v2.multi.statement.xml"));
    const o = { org, token, a: bankId, b: bankId };
    const r = await upload(o, file, "application/xml");
    expect(r.status).toBe(201);
    // the file: 18.15 + 8.85 = 27.00, then 27.00 - 7.00 = 20.00 (genkgo/camt's expectations: entries of 8.85 CRDT and -7.00 DBIT)
    expect(r.body.statements.map((s: any) => [s.statement_id, s.result, s.opening_balance, s.closing_balance, s.transactions_imported])).toEqual([
      ["253EURNL26VAYB8060476890", "imported", "18.15", "27.00", 1],
      ["254EURNL26VAYB8060476890", "imported", "27.00", "20.00", 1],
    ]);
    expect(r.body.data.statement_id).toBe("254EURNL26VAYB8060476890");
    expect((await linesOf(bankId)).map((l) => [l.amountCents, l.direction, l.communication]).sort()).toEqual([
      [700, "debit", "Transaction Description 2"],
      [885, "credit", "Transaction Description 1"],
    ]);
    const again = await upload(o, file, "application/xml");
    expect(again.status).toBe(200);
    expect(await linesOf(bankId)).toHaveLength(2);
  });
});

describe("a CODA file with two accounts' statements", () => {
  test("each goes into its account", async () => {
    const o = await twoAccounts("CODA two accounts");
    // statement 1 of A, then the same movements as a statement of B (same record layout, B's IBAN)
    const first = inbound("statement-1.coda").toString("latin1");
    const ofB = first.replaceAll(A, B);
    const r = await upload(o, Buffer.from(first + ofB, "latin1"), "text/plain");
    expect(r.status).toBe(201);
    expect(r.body.statements.map((s: any) => [s.iban, s.result, s.transactions_imported, s.closing_balance])).toEqual([
      [A, "imported", STATEMENT_1.entries.length, "2801.99"],
      [B, "imported", STATEMENT_1.entries.length, "2801.99"],
    ]);
    expect(await linesOf(o.a)).toHaveLength(STATEMENT_1.entries.length);
    expect(await linesOf(o.b)).toHaveLength(STATEMENT_1.entries.length);
  });
});

describe("a ZIP archive of statement files", () => {
  test("imports each member, in balance order; again adds nothing", async () => {
    const o = await twoAccounts("ZIP");
    // statement 2 (CODA) before statement 1 (camt.053): the order of the archive is not the order of the balances
    const archive = zip([
      { name: "2026-043.cod", bytes: inbound("statement-2.coda") },
      { name: "2026-042.xml", bytes: inbound("statement-1.camt053.xml") },
    ]);
    const r = await upload(o, archive, "application/zip");
    expect(r.status).toBe(201);
    expect(r.body.statements.map((s: any) => [s.file, s.statement_id, s.result, s.transactions_imported])).toEqual([
      ["2026-043.cod", "2026-043", "imported", STATEMENT_2.entries.length],
      ["2026-042.xml", "2026-042", "imported", STATEMENT_1.entries.length],
    ]);
    // 1000.00 → 2801.99 → 3265.89 (tests/inbound/fixtures)
    expect(r.body.data).toMatchObject({ statement_id: "2026-043", opening_balance: "2801.99", closing_balance: "3265.89" });
    expect(await linesOf(o.a)).toHaveLength(STATEMENT_1.entries.length + STATEMENT_2.entries.length);

    // the same statements as plain files are the same statements
    const plain = await upload(o, inbound("statement-1.camt053.xml"), "application/xml");
    expect(plain.status).toBe(200);
    expect(plain.body.statements[0].result).toBe("already_imported");
    const again = await upload(o, archive, "application/octet-stream");
    expect(again.status).toBe(200);
    expect(await linesOf(o.a)).toHaveLength(STATEMENT_1.entries.length + STATEMENT_2.entries.length);
  });

  test("a member that is no statement, or is broken, is a 422 naming it; nothing is stored", async () => {
    const o = await twoAccounts("ZIP broken");
    const readme = await upload(o, zip([{ name: "2026-042.xml", bytes: inbound("statement-1.camt053.xml") }, { name: "README.txt", bytes: Buffer.from("Statements of March") }]), "application/zip");
    expect(readme.status).toBe(422);
    expect(readme.body.errors["README.txt"][0]).toContain(STATEMENT_FORMATS);
    const broken = await upload(o, zip([{ name: "broken.coda", bytes: inbound("statement-1-broken.coda") }]), "application/zip");
    expect(broken.status).toBe(422);
    expect(Object.keys(broken.body.errors)[0]).toStartWith("broken.coda line ");
    expect(await statementsOf(o.a)).toHaveLength(0);
  });

  test("more than 100 files, more than 50 MB uncompressed, or a zip bomb that lies about its size: 422 saying so, before inflating beyond the limit", async () => {
    const o = await twoAccounts("ZIP limits");
    const many = zip(Array.from({ length: 101 }, (_, i) => ({ name: `s${i}.xml`, bytes: inbound("statement-1.camt053.xml") })));
    const tooMany = await upload(o, many, "application/zip");
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors["/"][0]).toBe("The ZIP archive holds 101 files; Kontor imports at most 100 statement files per archive. Split it.");

    const zeros = new Uint8Array(51 * 1024 * 1024);
    const tooLargeMessage = "The ZIP archive's files come to more than 50 MB uncompressed, the most Kontor reads from one archive. Split it.";
    const honest = await upload(o, zip([{ name: "big.xml", bytes: zeros }]), "application/zip");
    expect(honest.status).toBe(422);
    expect(honest.body.errors["/"][0]).toBe(tooLargeMessage);
    const lying = await upload(o, zip([{ name: "bomb.xml", bytes: zeros, claimedSize: 100 }]), "application/zip");
    expect(lying.status).toBe(422);
    expect(lying.body.errors["/"][0]).toBe(tooLargeMessage);
  });
});

describe("a file that is no statement", () => {
  test("a 422 that says which formats Kontor reads, not a CODA record length", async () => {
    const o = await twoAccounts("No statement");
    // a CSV export: one long line, the file that used to be read as CODA
    const csv = Buffer.from(`Date;Amount;Counterparty;Communication${";x".repeat(300)}\n2026-03-02;250.00;Brasserie;Order 60\n`);
    for (const [bytes, type] of [
      [csv, "text/plain"],
      [Buffer.from("%PDF-1.7\n%âãÏÓ\n"), "application/octet-stream"],
    ] as const) {
      const r = await upload(o, bytes, type);
      expect(r.status).toBe(422);
      expect(r.body.errors["/"]).toEqual([`The file is no bank statement: it is neither camt.053 XML, a CODA file nor a ZIP archive. ${STATEMENT_FORMATS}`]);
    }
    const otherXml = await upload(o, Buffer.from('<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'), "application/xml");
    expect(otherXml.status).toBe(422);
    expect(otherXml.body.errors["/Invoice"][0]).toContain(STATEMENT_FORMATS);
  });
});
