/**
 * The largest page a list or the events feed can answer at per_page=100, computed from the limits
 * (docs/api.md#limits) over the OpenAPI document the server serves: for each list, the worst-case
 * JSON bytes of one row × 100 + the envelope (links, meta). Printed as the table of
 * docs/api.md#the-largest-page; tests/lists/page-bounds.test.ts builds the heaviest rows through
 * the API and holds them to the bound computed here.
 *   bun scripts/page-bounds.ts
 *
 * Widest characters: the limits count code points, and a code point beyond U+FFFF (an emoji) is
 * 4 bytes of UTF-8, which JSON.stringify writes as is. It escapes only `"`, `\` (2 bytes) and
 * control characters and lone surrogates, which the API refuses (422): so 4 bytes per character.
 *
 * A response text, array or map without a limit of its own takes the largest limit (maxLength,
 * maxItems, maxProperties) any request body gives a property of that name (the response shows
 * what a request stored), else the limit an import holds it to (server/inbound/import-limits.ts),
 * a count (server/lib/counts.ts) or what the server itself writes there (SERVER_TEXT below). An
 * array is its count × its item's worst bytes, the item computed once with its own nested arrays.
 * A text or array with no limit at all is listed as unbounded, which the test fails on.
 *
 * The events feed's rows are `Event`, a oneOf of envelopes whose `data` is a resource as its GET
 * shows it: its row is the largest envelope.
 */
import { WEBHOOK_EVENTS } from "../server/changes/events.ts";
import { MAX_HELD, MAX_PAYMENT_RUN_ITEMS, MAX_SERVER_TEXT } from "../server/lib/counts.ts";
import { IMPORTED_TEXT_LIMITS, STATEMENT_TEXT_LIMITS, MAX_IMPORTED_LINES } from "../server/inbound/import-limits.ts";

export const PER_PAGE = 100;
const BYTES_PER_CHARACTER = 4;
/** Numbers: at most a safe integer's 17 characters with its sign, or a decimal of as many. */
const NUMBER_BYTES = 20;
/** A money or quantity decimal string ("-90071992547409.91"): digits of a safe integer, sign and point, quoted. */
const DECIMAL_BYTES = 2 + 20;
/**
 * The envelope: four links echo the request's URL, which Bun reads only up to its request-header
 * limit (16 KiB), plus meta's numbers and a sealed cursor.
 */
const URL_BYTES = 16 * 1024;
export const ENVELOPE_BYTES =
  '{"data":[],"links":{"first":,"last":,"prev":,"next":},"meta":{"current_page":,"from":,"last_page":,"per_page":,"to":,"total":,"next_cursor":}}'.length +
  4 * (URL_BYTES + 2) + 6 * NUMBER_BYTES + URL_BYTES + 2;

/** Arrays a resource gathers one request at a time: their count (server/lib/counts.ts) or the server's own limit. */
const HELD: Record<string, number> = {
  payments: MAX_HELD.payments,
  contact_persons: MAX_HELD.contact_persons,
  allocations: MAX_HELD.allocations,
  // a delivery's attempts: at most KONTOR_DELIVERY_MAX_ATTEMPTS, which the configuration holds to 100
  attempts: 100,
  // a payment run's expenses
  items: MAX_PAYMENT_RUN_ITEMS,
  // the gaps between a country's rate periods (and before the first, after the last)
  missing_rates: MAX_HELD.statutory_rates + 1,
  // a closed fiscal year's closing entries: one per currency posted in (ISO 4217 has fewer than 200)
  closing_entry_ids: 200,
};

/** Arrays whose count differs by list from the request limit of the same name. */
const HELD_BY_LIST: Record<string, Record<string, number>> = {
  // an expense's lines come from imports (1,000) or the API (500): the larger
  "/api/v1/expenses": { lines: MAX_IMPORTED_LINES },
};

/** Response texts that only imports or the server write, by property name: their limit in characters. */
const SERVER_TEXT: Record<string, number> = {
  supplier_invoice_number: IMPORTED_TEXT_LIMITS["BT-1"].maxLength,
  counterparty_name: STATEMENT_TEXT_LIMITS.counterparty_name.maxLength,
  communication: STATEMENT_TEXT_LIMITS.communication.maxLength,
  structured_reference: STATEMENT_TEXT_LIMITS.structured_reference.maxLength,
  entry_ref: Math.max(STATEMENT_TEXT_LIMITS.entry_ref.maxLength, "sha256:".length + 32),
  counterparty_iban: 34,
  // a remote server's words, cut when stored (clipServerText)
  last_error: MAX_SERVER_TEXT,
  detail: MAX_SERVER_TEXT,
  provider_reference: MAX_SERVER_TEXT,
  // the organisation's bank name (orgs/service.ts: 255)
  bank_name: 255,
  // "/api/v1/received-documents/{uuid}/document" and the like
  document_url: 100,
  // a pain.001 MsgId (Max35Text)
  message_id: 35,
  // an id: a uuid, an event's id, a period ("2026-Q1"), a year
  source_id: 36,
  resource_id: 64,
  payment_id: 36,
  id: 64,
  // invoice.reminder_sent's reminder: the days no statutory rate covers, in words (reminders/run.ts missingRateProblem)
  problem: 400 + (MAX_HELD.statutory_rates + 1) * "2026-01-01 to 2026-06-30, ".length,
  // the names the code writes, "resource.verb"
  action: 100,
  resource_type: 100,
  event: Math.max(...WEBHOOK_EVENTS.map((e) => e.length)),
  type: 100,
  // an IPv6 address as text; a client's X-Request-Id is kept only when 1–128 plain characters (http/kernel.ts)
  ip: 45,
  request_id: 128,
  // a webhook's event names; a fiscal year start "MM-DD"
  events: Math.max(...WEBHOOK_EVENTS.map((e) => e.length)),
  fiscal_year_start: 5,
  // a payment run's transfer: its EndToEndId (Max35Text), the supplier's IBAN
  end_to_end_id: 35,
  creditor_iban: 34,
  // the reject request's reason (expenses/model.ts)
  rejection_reason: 1000,
};

/** Maps the server writes: an event's links (invoice.finalized: pdf and ubl; a reminder's two). */
const SERVER_MAPS: Record<string, { count: number; key: number; value: number }> = {
  links: { count: 4, key: 20, value: 200 },
};

/** Codes and identifiers of a fixed or checked length the response schemas do not state. */
const FIXED: Record<string, number> = { country: 2, currency: 3, iban: 34, bic: 11, unit_code: 3, sha256: 64 };

/** Fields a list row leaves out (shown by the single GET only): an invoice's readiness. */
const NOT_IN_LISTS = new Set(["readiness"]);

/** The resource (its GET) an event's `data` holds, by the event name's first part. */
const EVENT_RESOURCES: Record<string, string> = {
  invoice: "/api/v1/invoices/{id}",
  customer: "/api/v1/customers/{id}",
  supplier: "/api/v1/suppliers/{id}",
  contact_person: "/api/v1/customers/{id}/contact-persons",
  organization: "/api/v1/organization",
  expense: "/api/v1/expenses/{id}",
  fiscal_year: "/api/v1/fiscal-years/{year}",
  bank_transaction: "/api/v1/bank-transactions/{id}",
  account: "/api/v1/accounts/{id}",
  vat_return: "/api/v1/vat-returns/{period}",
};

/**
 * Events whose `data` no limit bounds, left out of the events feed's bound and stated beside it:
 * a filed VAT return lists, grid by grid, every document of the quarter that makes it up.
 */
export const UNBOUNDED_EVENTS: Record<string, string> = {
  "vat_return.filed": "its `sources` list every document of the quarter, which no count bounds",
};

/** Metadata keys: 1–40 characters (server/lib/schemas.ts). */
const MAP_KEY_CHARACTERS = 40;

type Schema = Record<string, any>;
export type ListBound = { path: string; row: number; page: number; unbounded: string[] };

/** The worst-case bytes of one row of each list of `doc` (an OpenAPI document), and of a page of PER_PAGE. */
export function pageBounds(doc: Schema): ListBound[] {
  const resolve = (s: Schema): Schema => {
    while (s && s.$ref) s = doc.components.schemas[s.$ref.split("/").pop()];
    return s;
  };
  // the largest limits request bodies give each property name
  const texts: Record<string, number> = {};
  const items: Record<string, number> = {};
  const maps: Record<string, { count: number; value: Schema }> = {};
  const max = (into: Record<string, number>, name: string, n: unknown) => {
    if (typeof n === "number") into[name] = Math.max(into[name] ?? 0, n);
  };
  // each limit by the property's name and by "parent.name" (an invoice line's description is not an expense's)
  const collect = (s: Schema | undefined, name: string | null, parent: string | null, seen: Set<Schema>) => {
    s = s && resolve(s);
    if (!s || seen.has(s)) return;
    seen.add(s);
    if (name) {
      for (const key of parent ? [name, `${parent}.${name}`] : [name]) {
        max(texts, key, s.maxLength);
        max(items, key, s.maxItems);
        const value = s.patternProperties ? Object.values<Schema>(s.patternProperties)[0] : s.additionalProperties;
        if (typeof s.maxProperties === "number" && value && typeof value === "object" && s.maxProperties >= (maps[key]?.count ?? 0)) maps[key] = { count: s.maxProperties, value };
      }
    }
    for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) collect(v, k, name, seen);
    for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) collect(v, name, parent, seen);
    if (s.items) collect(s.items, name, parent, seen);
  };
  for (const item of Object.values<Schema>(doc.paths)) {
    for (const op of Object.values<Schema>(item)) collect(op?.requestBody?.content?.["application/json"]?.schema, null, null, new Set());
  }
  const known = <T>(from: Record<string, T>, name: string, parent: string): T | undefined => from[`${parent}.${name}`] ?? from[name];
  // a contact person's full name: first and last name and a space
  if (texts.first_name !== undefined && texts.last_name !== undefined) texts.full_name = texts.first_name + 1 + texts.last_name;
  // the payee's account name is the organisation's name
  if (texts.name !== undefined) texts.account_name = texts.name;
  // a reminder's invoice number is the invoice's
  if (texts.number !== undefined) texts.invoice_number = texts.number;
  // a payment run's creditor is the supplier, by its name
  if (texts.name !== undefined) texts.creditor_name = texts.name;

  const text = (n: number) => 2 + BYTES_PER_CHARACTER * n;

  /** The worst bytes of a value of schema `s`, the property `name` of a row of the list `list`. */
  const worst = (s: Schema, name: string, parent: string, list: string, unbounded: string[]): number => {
    s = resolve(s);
    const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
    if (alternatives.length > 0) return Math.max(...alternatives.map((a) => worst(a, name, parent, list, unbounded)));
    if (s.enum) return Math.max(...s.enum.map((e: unknown) => JSON.stringify(e).length));
    if (s.const !== undefined) return JSON.stringify(s.const).length;
    switch (s.type) {
      case "integer":
      case "number":
        return NUMBER_BYTES;
      case "boolean":
        return 5;
      case "null":
        return 4;
      case "string": {
        if (s.format === "uuid") return 38;
        if (s.format === "date") return 12;
        if (s.format === "date-time") return 2 + "2026-01-01T00:00:00.000+00:00".length;
        const limit = s.maxLength ?? FIXED[name] ?? SERVER_TEXT[name] ?? known(texts, name, parent);
        if (limit !== undefined) return text(limit);
        if (s.pattern) return DECIMAL_BYTES;
        unbounded.push(name);
        return 2;
      }
      case "array": {
        const byList = Object.entries(HELD_BY_LIST).find(([prefix]) => list.startsWith(prefix))?.[1]?.[name];
        const count = s.maxItems ?? byList ?? known(items, name, parent) ?? HELD[name];
        if (count === undefined) {
          unbounded.push(`${name}[]`);
          return 2;
        }
        // the item once, with its own nested arrays, times the count; a comma between items
        return 2 + count * (worst(s.items, name, parent, list, unbounded) + 1);
      }
      default: {
        let total = 2;
        for (const [key, v] of Object.entries<Schema>(s.properties ?? {})) {
          if (NOT_IN_LISTS.has(key)) continue;
          total += JSON.stringify(key).length + 2 + worst(v, key, name, list, unbounded);
        }
        const extra = s.patternProperties ? Object.values<Schema>(s.patternProperties)[0] : s.additionalProperties;
        if (extra && typeof extra === "object") {
          const limit = s.maxProperties !== undefined ? { count: s.maxProperties, value: extra } : known(maps, name, parent);
          const server = SERVER_MAPS[name];
          if (limit) total += limit.count * (text(MAP_KEY_CHARACTERS) + 2 + worst(limit.value, name, parent, list, unbounded));
          else if (server) total += server.count * (text(server.key) + 2 + text(server.value));
          else unbounded.push(`${name}{}`);
        }
        return total;
      }
    }
  };

  const rowOf = (path: string, unbounded: string[]): number => {
    const body = resolve(doc.paths[path]?.get?.responses?.["200"]?.content?.["application/json"]?.schema);
    const data = body?.properties?.data ? resolve(body.properties.data) : undefined;
    if (!data) {
      unbounded.push(`${path} (no such GET)`);
      return 0;
    }
    return worst(data.type === "array" ? data.items : data, "data", "", path, unbounded);
  };

  const bounds: ListBound[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    const body = resolve(item.get?.responses?.["200"]?.content?.["application/json"]?.schema);
    if (!body?.properties?.data || resolve(body.properties.data).type !== "array" || !body.properties.meta) continue;
    const unbounded: string[] = [];
    let row: number;
    if (path === "/api/v1/events") {
      // `Event` is a oneOf of envelopes, each with its resource's schema as `data`: the largest
      // envelope, leaving out those of the events no limit bounds (stated beside the bound)
      const members: Schema[] = resolve(resolve(body.properties.data).items).oneOf ?? [];
      const bounded = members.map(resolve).filter((m) => !(m.properties?.type?.enum ?? []).every((e: string) => UNBOUNDED_EVENTS[e]));
      if (bounded.length === 0) unbounded.push("Event (no oneOf)");
      row = Math.max(0, ...bounded.map((m) => worst(m, "data", "", path, unbounded)));
      // every resource an event carries is bounded as its own GET is
      for (const r of [...new Set(WEBHOOK_EVENTS.filter((e) => !UNBOUNDED_EVENTS[e]).map((e) => e.split(".")[0]!))]) {
        if (EVENT_RESOURCES[r]) rowOf(EVENT_RESOURCES[r], unbounded);
        else unbounded.push(`data of ${r}`);
      }
    } else row = rowOf(path, unbounded);
    bounds.push({ path, row, page: PER_PAGE * (row + 1) + ENVELOPE_BYTES, unbounded: [...new Set(unbounded)] });
  }
  return bounds;
}

/** The OpenAPI document the server serves, built as scripts/openapi.ts builds it. */
export async function servedDocument(): Promise<Schema> {
  const { $ } = await import("bun");
  return JSON.parse(await $`bun ${import.meta.dir}/openapi.ts`.quiet().text());
}

/** The table docs/api.md#the-largest-page shows. */
export function boundsTable(bounds: ListBound[]): string {
  const mb = (n: number) => (n / 1_000_000).toFixed(1);
  const lines = [`| list | one row at most (bytes) | a page of ${PER_PAGE} at most (bytes) | MB |`, "|---|---:|---:|---:|"];
  for (const b of bounds) {
    lines.push(`| \`GET ${b.path}\` | ${b.row.toLocaleString("en")} | ${b.page.toLocaleString("en")} | ${mb(b.page)} |${b.unbounded.length ? ` unbounded: ${b.unbounded.join(", ")}` : ""}`);
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(boundsTable(pageBounds(await servedDocument())));
