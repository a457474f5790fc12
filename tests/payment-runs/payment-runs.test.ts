/**
 * Payment runs (issue 27 item 6): approved expenses due by a date become a SEPA credit transfer
 * file (pain.001.001.09) that validates against the ISO 20022 schema (tests/fixtures/iso20022),
 * and a camt.053 whose debit lines carry the run's EndToEndIds pays them on import, leaving the
 * ledger balanced. Expected figures are the expenses' totals as entered (amount + VAT).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateXML } from "xmllint-wasm";
import { sepaText } from "../../server/payment-runs/pain001.ts";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
afterAll(() => env.close());

const XSD = readFileSync(join(TESTS_ROOT, "fixtures", "iso20022", "pain.001.001.09.xsd"), "utf8");
const CAMT_XSD = readFileSync(join(TESTS_ROOT, "inbound", "xsd", "camt.053.001.02.xsd"), "utf8");
async function xsdErrors(xml: string, schema = XSD, schemaName = "pain.001.001.09.xsd"): Promise<string[]> {
  const result = await validateXML({ xml: { fileName: "file.xml", contents: xml }, schema: { fileName: schemaName, contents: schema } });
  return result.errors.map((e) => e.message);
}

// a Belgian structured communication (2026000012 mod 97 = 6) and the ISO 11649 example reference
const BELGIAN = "+++202/6000/01206+++";
const RF = "RF18539007547034";
const EXECUTION = "2030-01-02";

async function books(name: string) {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const bank = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data.find((a: any) => a.iban === TEST_IBAN);
  const expense = async (fields: Record<string, unknown>, approve = true) => {
    const created = await env.api("POST", "/api/v1/expenses", { category: "Supplies", date: "2026-11-01", ...fields }, token);
    expect(created.status).toBe(201);
    if (approve) expect((await env.api("POST", `/api/v1/expenses/${created.body.data.id}/approve`, undefined, token)).status).toBe(200);
    return created.body.data.id as string;
  };
  const ids = {
    belgian: await expense({ amount: "1000.00", vat_amount: "210.00", vendor: "Brüder Müller & Søn GmbH", due_date: "2026-12-10", payee_iban: "BE68539007547034", payment_reference: BELGIAN }),
    rf: await expense({ amount: "500.00", vendor: "Dekker & Zonen BV", due_date: "2026-12-15", payee_iban: "NL91ABNA0417164300", payment_reference: RF }),
    later: await expense({ amount: "80.00", vendor: "Later NV", due_date: "2027-01-31", payee_iban: "BE68539007547034" }),
    noIban: await expense({ amount: "70.00", vendor: "Cash Shop", due_date: "2026-12-01" }),
    pending: await expense({ amount: "60.00", vendor: "Pending BV", due_date: "2026-12-01", payee_iban: "BE68539007547034" }, false),
  };
  return { org, token, bankId: bank.id as string, ids };
}

/** A camt.053.001.02 statement of the account: one debit entry per [EndToEndId, amount], each booked on its own. */
function statement(transfers: [string, string][], opening: string, closing: string): string {
  const entries = transfers
    .map(
      ([e2e, amount], i) =>
        `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2030-01-02</Dt></BookgDt><ValDt><Dt>2030-01-02</Dt></ValDt>` +
        `<AcctSvcrRef>RUN-${i + 1}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>` +
        `<NtryDtls><TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>`,
    )
    .join("");
  return (
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>' +
    "<GrpHdr><MsgId>RUNSTMT</MsgId><CreDtTm>2030-01-02T18:00:00</CreDtTm></GrpHdr>" +
    `<Stmt><Id>2030-001</Id><CreDtTm>2030-01-02T18:00:00</CreDtTm><Acct><Id><IBAN>${TEST_IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>` +
    `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${opening}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2030-01-01</Dt></Dt></Bal>` +
    `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2030-01-02</Dt></Dt></Bal>` +
    entries +
    "</Stmt></BkToCstmrStmt></Document>"
  );
}

describe("payment runs", () => {
  test("a run pays the approved expenses due by the date with a valid pain.001.001.09, and the statement that pays it settles them", async () => {
    const b = await books("Payer BV");
    const created = await env.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION }, b.token);
    expect(created.status).toBe(201);
    const run = created.body.data;
    expect(created.headers.get("location")).toBe(`/api/v1/payment-runs/${run.id}`);
    // 1000.00 + 210.00 VAT, and 500.00: the later, IBAN-less and pending expenses are left out
    expect(run.total).toBe("1710.00");
    expect(run.item_count).toBe(2);
    expect(run.status).toBe("open");
    expect(run.items.map((i: any) => [i.expense_id, i.amount, i.reference])).toEqual([
      [b.ids.belgian, "1210.00", BELGIAN],
      [b.ids.rf, "500.00", RF],
    ]);

    const file = await env.request("GET", `/api/v1/payment-runs/${run.id}/file`, { token: b.token });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("application/xml");
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="payment-run-2030-01-02-[0-9a-f]{8}\.xml"/);
    const xml = file.text;
    expect(await xsdErrors(xml)).toEqual([]);
    expect(xml).toContain("<NbOfTxs>2</NbOfTxs><CtrlSum>1710.00</CtrlSum>");
    expect(xml).toContain("<PmtMtd>TRF</PmtMtd>");
    expect(xml).toContain("<SvcLvl><Cd>SEPA</Cd></SvcLvl>");
    expect(xml).toContain("<ChrgBr>SLEV</ChrgBr>");
    expect(xml).toContain(`<ReqdExctnDt><Dt>${EXECUTION}</Dt></ReqdExctnDt>`);
    expect(xml).toContain(`<DbtrAcct><Id><IBAN>${TEST_IBAN}</IBAN></Id></DbtrAcct>`);
    // Febelfin: a Belgian structured communication as SCOR with issuer BBA and its 12 digits; RF without issuer
    expect(xml).toContain("<CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>BBA</Issr></Tp><Ref>202600001206</Ref></CdtrRefInf>");
    expect(xml).toContain(`<CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${RF}</Ref></CdtrRefInf>`);
    // the SEPA Latin character set: accents dropped, ø spelt o, & as +
    expect(xml).toContain("<Cdtr><Nm>Bruder Muller + Son GmbH</Nm></Cdtr>");
    expect(xml).toContain("<Amt><InstdAmt Ccy=\"EUR\">1210.00</InstdAmt></Amt>");
    for (const item of run.items) {
      expect(item.end_to_end_id.length).toBeLessThanOrEqual(35);
      expect(xml).toContain(`<EndToEndId>${item.end_to_end_id}</EndToEndId>`);
    }

    // an open run keeps its expenses: nothing is left to pay by that date
    const again = await env.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION }, b.token);
    expect(again.status).toBe(422);
    expect(Object.keys(again.body.errors)).toEqual(["due_by"]);

    const list = await env.api("GET", "/api/v1/payment-runs", undefined, b.token);
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: any) => r.id)).toEqual([run.id]);

    // the bank's statement: 5000.00 − 1210.00 − 500.00 = 3290.00
    const camt = statement(run.items.map((i: any) => [i.end_to_end_id, i.amount]), "5000.00", "3290.00");
    expect(await xsdErrors(camt, CAMT_XSD, "camt.053.001.02.xsd")).toEqual([]);
    const imported = await env.request("POST", `/api/v1/bank-accounts/${b.bankId}/statements`, { rawBody: camt, token: b.token, headers: { "content-type": "application/xml" } });
    expect(imported.status).toBe(201);
    expect(imported.body.data.transactions_matched).toBe(2);
    for (const id of [b.ids.belgian, b.ids.rf]) {
      const expense = (await env.api("GET", `/api/v1/expenses/${id}`, undefined, b.token)).body.data;
      expect(expense.status).toBe("paid");
    }
    expect((await env.api("GET", `/api/v1/payment-runs/${run.id}`, undefined, b.token)).body.data.status).toBe("completed");
    const trial = (await env.api("GET", "/api/v1/reports/trial-balance?date=2030-12-31", undefined, b.token)).body.data;
    expect(trial.total_debit).toBe(trial.total_credit);
  });

  test("refusals are 422s naming the field, and store nothing", async () => {
    const b = await books("Refused BV");
    const bad = await env.api("POST", "/api/v1/payment-runs", { bank_account_id: "00000000-0000-4000-8000-000000000000", due_by: "2026-12-31", execution_date: "2020-01-01" }, b.token);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["bank_account_id", "execution_date"]);
    const none = await env.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-11-30", execution_date: EXECUTION }, b.token);
    expect(none.status).toBe(422);
    expect((await env.api("GET", "/api/v1/payment-runs", undefined, b.token)).body.data).toEqual([]);
    expect((await env.api("GET", "/api/v1/payment-runs/00000000-0000-4000-8000-000000000000", undefined, b.token)).status).toBe(404);
  });

  test("paying needs banking.create; reading banking.view", async () => {
    const b = await books("Guarded BV");
    const minted = await env.api("POST", "/api/v1/org-tokens", { name: "reader", abilities: ["banking.view"] }, b.token);
    expect(minted.status).toBe(201);
    const reader = minted.body.token;
    expect((await env.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION }, reader)).status).toBe(403);
    expect((await env.api("GET", "/api/v1/payment-runs", undefined, reader)).status).toBe(200);
  });

  test("the list reads through an index", async () => {
    const b = await books("Listed BV");
    expect((await env.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION }, b.token)).status).toBe(201);
    const slow: string[] = [];
    for (const p of ["", "?sort=execution_date", "?sort=-updated_at"]) slow.push(...(await slowListSteps(env, "payment_runs", `/api/v1/payment-runs${p}`, b.token)));
    expect(slow).toEqual([]);
  });

  test("texts are cut to the SEPA Latin character set and the guidelines' lengths", () => {
    expect(sepaText("Société Générale – Straße «Ærø» & Co", 70)).toBe("Societe Generale Strasse AEro + Co");
    expect(sepaText("x".repeat(200), 140)).toHaveLength(140);
    expect(sepaText("Компания", 70)).toBe("");
  });
});
