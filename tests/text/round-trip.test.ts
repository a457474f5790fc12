/**
 * Text that round-trips: a lone UTF-16 surrogate (half a character, which UTF-8 cannot write and
 * strict JSON parsers refuse) is a 422 naming the field in a JSON body, a query string and an
 * imported document; an external_id is stored in Unicode NFC and may not hold invisible format
 * characters; the data migration normalises stored ids and reports those that would collide.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedMigrations } from "../../db/migrations/index.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const LONE = "\ud800";
const surrogate = (field: string, codePoint = "U+D800") =>
  `The ${field} field must not contain a lone UTF-16 surrogate (${codePoint}): it is half of a character, which UTF-8 cannot write.`;
/** The body as a client would send it: JSON text with the escape `\ud800` (JSON.stringify writes a lone surrogate so). */
const post = (path: string, body: unknown) => env.request("POST", path, { rawBody: JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("a lone surrogate in a JSON body is a 422 naming the field", () => {
  test("in a name, an address, metadata (value and key), an external_id and a line's description", async () => {
    expect(JSON.stringify(`a${LONE}`)).toBe('"a\\ud800"');
    const cases: [string, unknown, string][] = [
      ["/api/v1/customers", { name: `Caf${LONE}` }, "name"],
      ["/api/v1/customers", { name: "Ok", address: `Rue ${LONE}` }, "address"],
      ["/api/v1/customers", { name: "Ok", metadata: { shop: `x${LONE}` } }, "metadata.shop"],
      ["/api/v1/customers", { name: "Ok", external_id: `${LONE}1` }, "external_id"],
      // the low half alone too
      ["/api/v1/suppliers", { name: `\udc00 Supplies` }, "name"],
    ];
    for (const [path, body, field] of cases) {
      const r = await post(path, body);
      expect(r.status, field).toBe(422);
      expect(r.body.errors[field], field).toEqual([surrogate(field, field === "name" && path.endsWith("suppliers") ? "U+DC00" : "U+D800")]);
    }
    const key = await post("/api/v1/customers", { name: "Ok", metadata: { [`k${LONE}`]: "v" } });
    expect(key.status).toBe(422);
    // the answer itself is strict JSON: the half character is not echoed back
    expect(key.text.isWellFormed()).toBe(true);
    expect(key.text).not.toContain("\\ud800");
    expect(Object.keys(key.body.errors)).toEqual(["metadata.k\ufffd"]);

    const customer = (await env.api("POST", "/api/v1/customers", { name: "Line Test" })).body.data;
    const rate = (await env.api("GET", "/api/v1/vat-rates")).body.data[0].id;
    const invoice = await post("/api/v1/invoices", { customer_id: customer.id, lines: [{ description: "ok", quantity: "1", unit_price: "1.00", vat_rate_id: rate }, { description: `Emoji half ${LONE}`, quantity: "1", unit_price: "1.00", vat_rate_id: rate }] });
    expect(invoice.status).toBe(422);
    expect(invoice.body.errors["lines.1.description"]).toEqual([surrogate("lines.1.description")]);
    // a whole pair (an emoji) is a character like any other
    const emoji = await env.api("POST", "/api/v1/customers", { name: "Caf\u00e9 \ud83d\ude00" });
    expect(emoji.status).toBe(201);
    expect(emoji.body.data.name).toBe("Caf\u00e9 \ud83d\ude00");
    // nothing with a half character was stored
    expect((await env.api("GET", "/api/v1/customers?per_page=100")).text.isWellFormed()).toBe(true);
  });
});

describe("a query parameter that is not UTF-8 once decoded is a 422 naming it", () => {
  test("search, filter[external_id] and filter[metadata][KEY] with %ED%A0%80 (U+D800 as WTF-8) or a broken sequence", async () => {
    for (const [query, field] of [
      ["search=%ED%A0%80", "search"],
      ["filter[external_id]=a%ED%A0%80", "filter.external_id"],
      ["filter[metadata][shop]=%C3", "filter.metadata.shop"],
    ]) {
      const r = await env.request("GET", `/api/v1/customers?${query}`);
      expect(r.status, query).toBe(422);
      expect(Object.keys(r.body.errors), query).toEqual([field]);
      expect(r.body.errors[field][0]).toStartWith(`The ${field} field is not UTF-8 once percent-decoded`);
    }
    // the same text as proper UTF-8 is an ordinary search
    expect((await env.request("GET", "/api/v1/customers?search=caf%C3%A9")).status).toBe(200);
  });
});

describe("a lone surrogate in an imported document is a 422 naming the element", () => {
  test("a character reference &#xD800; in the seller's name (BT-27) of a UBL invoice", async () => {
    const { token } = await env.newOrg("Surrogate Imports");
    const xml = readFileSync(join(import.meta.dir, "../inbound/fixtures/xrechnung/02.04a-INVOICE_ubl.xml"), "utf8");
    const hostile = xml.replace("<cbc:RegistrationName>[Seller name]</cbc:RegistrationName>", "<cbc:RegistrationName>Seller &#xD800; name</cbc:RegistrationName>");
    expect(hostile).not.toBe(xml);
    const r = await env.request("POST", "/api/v1/expenses/import", { rawBody: hostile, token, headers: { "content-type": "application/xml" } });
    expect(r.status).toBe(422);
    const [[path, [message]]] = Object.entries(r.body.errors) as [string, string[]][];
    expect(path).toEndWith("cac:PartyLegalEntity/cbc:RegistrationName");
    expect(message).toContain("U+D800, a lone UTF-16 surrogate");
    expect((await env.request("GET", "/api/v1/expenses", { token })).body.data).toEqual([]);
  });
});

describe("external_id: one id however it is typed", () => {
  test("stored in NFC: 'cafe' + U+0301 is 'café'; the other form is a 409 naming the holder, and filters find either", async () => {
    const { token } = await env.newOrg("NFC Ids");
    const nfd = "cafe\u0301-1";
    const nfc = "caf\u00e9-1";
    const created = await env.api("POST", "/api/v1/customers", { name: "Café", external_id: nfd }, token);
    expect(created.status).toBe(201);
    expect(created.body.data.external_id).toBe(nfc);
    const again = await env.api("POST", "/api/v1/customers", { name: "Café bis", external_id: nfc }, token);
    expect(again.status).toBe(409);
    expect(again.body.holder_id ?? again.body.errors?.external_id).toBeTruthy();
    for (const form of [nfd, nfc]) {
      const found = await env.request("GET", `/api/v1/customers?filter[external_id]=${encodeURIComponent(form)}`, { token });
      expect(found.body.data.map((c: { id: string }) => c.id), form).toEqual([created.body.data.id]);
    }
    // on update and on invoices and expenses alike
    const other = (await env.api("POST", "/api/v1/customers", { name: "Other" }, token)).body.data;
    expect((await env.api("PUT", `/api/v1/customers/${other.id}`, { external_id: "Stra\u00dfe-\u0041\u030a" }, token)).body.data.external_id).toBe("Stra\u00dfe-\u00c5");
    const expense = await env.api("POST", "/api/v1/expenses", { category: "Travel", amount: "10.00", date: "2026-03-02", external_id: "n\u0303" }, token);
    expect(expense.status, expense.text).toBe(201);
    expect(expense.body.data.external_id).toBe("\u00f1");
  });

  test("invisible format characters (Unicode Cf) are a 422 naming the character", async () => {
    for (const [id, codePoint] of [["a\u200bb", "U+200B"], ["\ufeffshop-1", "U+FEFF"], ["soft\u00adhyphen", "U+00AD"], ["x\u2060y", "U+2060"]]) {
      const r = await env.api("POST", "/api/v1/customers", { name: "Invisible", external_id: id });
      expect(r.status, codePoint).toBe(422);
      expect(r.body.errors.external_id, codePoint).toEqual([`The external_id field must not contain invisible format characters: it contains ${codePoint}.`]);
      const filter = await env.request("GET", `/api/v1/customers?filter[external_id]=${encodeURIComponent(id)}`);
      expect(filter.status, codePoint).toBe(422);
    }
  });
});

// an upgrade of an older Kontor's SQLite database (migration 0049 queues the normalisation): a
// PostgreSQL database starts from a baseline after it, its ids stored normalised from the first
sqliteOnly.describe("the upgrade normalises stored external ids", () => {
  test("NFD ids become NFC; two ids of one organisation that become equal are left as they are and reported by kontor migrate", async () => {
    const local = await createTestEnv();
    const a = (await local.api("POST", "/api/v1/customers", { name: "A", external_id: "placeholder-a" })).body.data;
    const b = (await local.api("POST", "/api/v1/customers", { name: "B", external_id: "cr\u00e8me" })).body.data;
    const c = (await local.api("POST", "/api/v1/customers", { name: "C", external_id: "placeholder-c" })).body.data;
    const other = await local.newOrg("Other Org");
    const d = (await local.api("POST", "/api/v1/customers", { name: "D", external_id: "placeholder-d" }, other.token)).body.data;
    // a copy of the database, which the server's own connections no longer touch
    const dir = mkdtempSync(join(tmpdir(), "kontor-nfc-"));
    const path = join(dir, "upgrade.db");
    local.db.$client.run(`VACUUM INTO '${path}'`);
    local.close();

    // ids as an older Kontor stored them (no normalisation), and the migration not yet applied
    const db = new Database(path);
    const set = (id: string, externalId: string) => db.run("UPDATE customers SET external_id = ? WHERE id = ?", [externalId, id]);
    set(a.id, "cafe\u0301"); // NFD, alone: becomes NFC
    set(c.id, "cre\u0300me"); // NFD of B's id: a collision, left as it is
    set(d.id, "cre\u0300me"); // the same in another organisation: no collision there
    // the normalisation queued as migration 0049 queues it (later migrations applied or not:
    // the runner applies only migrations newer than the last one a database holds)
    expect(embeddedMigrations.find((m) => m.tag.endsWith("_external_id_nfc"))!.sql).toContain("INSERT INTO `pending_backfills` (`name`) VALUES ('external_id_nfc')");
    db.run("INSERT INTO pending_backfills (name) VALUES ('external_id_nfc')");
    db.close();

    const r = await runCli(["migrate", "--db", path]);
    expect(r.code, r.stderr).toBe(0);
    const notices = r.stdout.split("\n").filter((l) => l.startsWith("Notice: "));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`customer ${c.id}`);
    expect(notices[0]).toContain(`the external_id of customer ${b.id}`);

    const after = new Database(path, { readonly: true });
    const idOf = (id: string) => (after.query("SELECT external_id FROM customers WHERE id = ?").get(id) as { external_id: string }).external_id;
    expect(idOf(a.id)).toBe("caf\u00e9");
    expect(idOf(b.id)).toBe("cr\u00e8me");
    expect(idOf(c.id)).toBe("cre\u0300me");
    expect(idOf(d.id)).toBe("cr\u00e8me");
    after.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
