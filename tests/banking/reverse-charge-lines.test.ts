/**
 * A bank line booked or allocated to a cost at a reverse-charge rate (AE) self-assesses its VAT as
 * an expense does: due (grid 56 beside the base in 87) and deductible (59), both posted, so the
 * VAT accounts hold what the return says. Figures by hand from vat-return-grids.md: a 100.00 line
 * at AE 0 % is a base of 100.00 in 82 and 87; 21 % of it, 21.00, due in 56 and deductible in 59;
 * 71 = 56 − 59 = 0.00.
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

function camt(iban: string, id: string, date: string, amount: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${date}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>${date}T18:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">900.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal><Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt><AcctSvcrRef>${id}-0</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>Software subscription</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
}

async function setup(name: string) {
  const { token } = await env.newOrg(name, { country: "BE" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", { vat_number: "BE0477472701" })).status).toBe(200);
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data as { id: string; category: string; rate: string }[];
  const ae = rates.find((r) => r.category === "AE" && r.rate === "0.00")!.id;
  const bank = ((await api("GET", "/api/v1/bank-accounts")).body.data as { id: string; iban: string }[])[0]!;
  const imported = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: camt(bank.iban, "S1", "2026-02-03", "100.00"), token, headers: { "content-type": "application/xml" } });
  expect(imported.status).toBe(201);
  const line = ((await api("GET", "/api/v1/bank-transactions")).body.data as { id: string }[])[0]!;
  const accounts = (await api("GET", "/api/v1/accounts?per_page=100")).body.data as { id: string; code: string }[];
  const software = accounts.find((a) => a.code === "6400")!.id;
  return { api, ae, line, software };
}

const expected = { "56": "21.00", "59": "21.00", "71": "0.00", "82": "100.00", "87": "100.00" };

test("a bank line allocated to a cost at AE: 87 with its VAT due in 56 and deductible in 59", async () => {
  const { api, ae, line, software } = await setup("Bank AE Allocated BV");
  const m = await api("POST", `/api/v1/bank-transactions/${line.id}/match`, { allocations: [{ account_id: software, amount: "100.00", vat_rate_id: ae }] });
  expect(m.status).toBe(200);
  expect((await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data.grids).toEqual(expected);
});

test("a bank line booked to a cost at AE: the same grids, and the journal posts both sides", async () => {
  const { api, ae, line, software } = await setup("Bank AE Booked BV");
  expect((await api("POST", `/api/v1/bank-transactions/${line.id}/book`, { account_id: software, vat_rate_id: ae })).status).toBe(200);
  expect((await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data.grids).toEqual(expected);
  const entries = (await api("GET", "/api/v1/journal-entries?per_page=100")).body.data as { source_type: string; lines: { debit: string; credit: string; description: string | null }[] }[];
  const booked = entries.find((e) => e.source_type === "bank_transaction" && e.lines.some((l) => l.description?.includes("Self-assessed")))!;
  const selfAssessed = booked.lines.filter((l) => l.description?.includes("Self-assessed"));
  // 21.00 deductible (a debit on VAT receivable) and 21.00 due (a credit on VAT payable)
  expect(selfAssessed.map((l) => [l.debit, l.credit]).sort()).toEqual([["0.00", "21.00"], ["21.00", "0.00"]]);
});
