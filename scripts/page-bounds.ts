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
 * A response text without a maxLength of its own takes the largest maxLength any request body
 * gives a property of that name (the response shows what a request stored), or the limit an
 * import holds it to (server/inbound/import-limits.ts); a text or array with no limit at all is
 * listed as unbounded, which a test fails on.
 */
import { MAX_HELD } from "../server/lib/counts.ts";
import { IMPORTED_TEXT_LIMITS, STATEMENT_TEXT_LIMITS, MAX_IMPORTED_LINES } from "../server/inbound/import-limits.ts";

export const PER_PAGE = 100;
const BYTES_PER_CHARACTER = 4;
/** Numbers: at most a safe integer's 17 characters with its sign, or a decimal of as many. */
const NUMBER_BYTES = 20;
/** A money or quantity decimal string ("-90071992547409.91"): digits of a safe integer, sign and point. */
const DECIMAL_BYTES = 2 + 20;
/**
 * The envelope: four links echo the request's URL, which Bun reads only up to its request-header
 * limit (16 KiB), plus meta's seven numbers and a sealed cursor.
 */
const URL_BYTES = 16 * 1024;
export const ENVELOPE_BYTES = '{"data":[],"links":{"first":,"last":,"prev":,"next":},"meta":{"current_page":,"from":,"last_page":,"per_page":,"to":,"total":,"next_cursor":}}'.length + 4 * (URL_BYTES + 2) + 6 * NUMBER_BYTES + URL_BYTES + 2;

/** Arrays of a resource that no maxItems bounds but a count does (counts.ts, the document limits). */
const HELD: Record<string, number> = {
  payments: MAX_HELD.payments,
  contact_persons: MAX_HELD.contact_persons,
  allocations: MAX_HELD.allocations,
  // an expense's lines come from imports (1,000) or the API (500): the larger
  lines: MAX_IMPORTED_LINES,
};

/** Response texts that only imports write, by property name: their import limit. */
const IMPORTED: Record<string, number> = {
  supplier_invoice_number: IMPORTED_TEXT_LIMITS["BT-1"].maxLength,
  counterparty_name: STATEMENT_TEXT_LIMITS.counterparty_name.maxLength,
  communication: STATEMENT_TEXT_LIMITS.communication.maxLength,
  structured_reference: STATEMENT_TEXT_LIMITS.structured_reference.maxLength,
  entry_ref: Math.max(STATEMENT_TEXT_LIMITS.entry_ref.maxLength, "sha256:".length + 32),
  counterparty_iban: 34,
};

/** Codes and identifiers of a fixed or checked length the response schemas do not state. */
const FIXED: Record<string, number> = { country: 2, currency: 3, iban: 34, bic: 11, unit_code: 3, sha256: 64 };

type Schema = Record<string, any>;
export type ListBound = { path: string; row: number; page: number; unbounded: string[] };

export function pageBounds(doc: Schema): ListBound[] {
  const resolve = (s: Schema): Schema => {
    while (s && s.$ref) s = doc.components.schemas[s.$ref.split("/").pop()];
    return s;
  };
  // the largest maxLength request bodies give each property name
  const requestLimits: Record<string, number> = {};
  const collect = (s: Schema | undefined, name: string | null, seen: Set<Schema>) => {
    s = s && resolve(s);
    if (!s || seen.has(s)) return;
    seen.add(s);
    if (name && typeof s.maxLength === "number") requestLimits[name] = Math.max(requestLimits[name] ?? 0, s.maxLength);
    for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) collect(v, k, seen);
    for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) collect(v, name, seen);
    if (s.items) collect(s.items, name, seen);
  };
  for (const item of Object.values<Schema>(doc.paths)) {
    for (const op of Object.values<Schema>(item)) collect(op?.requestBody?.content?.["application/json"]?.schema, null, new Set());
  }

  const bounds: ListBound[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    const schema = item.get?.responses?.["200"]?.content?.["application/json"]?.schema;
    const page = schema && resolve(schema);
    if (!page?.properties?.data || resolve(page.properties.data).type !== "array" || !page.properties.meta) continue;
    const unbounded: string[] = [];
    const bytes = (s: Schema, name: string): number => {
      s = resolve(s);
      const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
      if (alternatives.length > 0) return Math.max(...alternatives.map((a) => bytes(a, name)));
      const value = ((): number => {
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
            const limit = s.maxLength ?? FIXED[name] ?? IMPORTED[name] ?? requestLimits[name];
            if (limit !== undefined) return 2 + BYTES_PER_CHARACTER * limit;
            if (s.pattern) return DECIMAL_BYTES;
            unbounded.push(name);
            return 2;
          }
          case "array": {
            const count = s.maxItems ?? HELD[name];
            if (count === undefined) {
              unbounded.push(`${name}[]`);
              return 2;
            }
            return 2 + count * (bytes(s.items, name) + 1);
          }
          default: {
            let total = 2;
            for (const [key, v] of Object.entries<Schema>(s.properties ?? {})) total += key.length + 4 + bytes(v, key);
            const extra = s.additionalProperties ?? s.patternProperties;
            if (extra && typeof extra === "object") {
              const count = s.maxProperties;
              if (count === undefined) unbounded.push(`${name}{}`);
              // metadata: keys of 1–40 characters
              else total += count * (2 + 40 * BYTES_PER_CHARACTER + 2 + bytes(s.patternProperties ? Object.values<Schema>(s.patternProperties)[0]! : extra, name));
            }
            return total;
          }
        }
      })();
      return s.nullable ? Math.max(value, 4) : value;
    };
    const row = bytes(resolve(page.properties.data).items, "data");
    bounds.push({ path, row, page: PER_PAGE * (row + 1) + ENVELOPE_BYTES, unbounded: [...new Set(unbounded)] });
  }
  return bounds;
}

if (import.meta.main) {
  const { $ } = await import("bun");
  const doc = JSON.parse(await $`bun ${import.meta.dir}/openapi.ts`.text());
  const mb = (n: number) => (n / 1_000_000).toFixed(2);
  console.log(`| list | one row at most (bytes) | a page of ${PER_PAGE} at most (bytes) | MB |`);
  console.log("|---|---:|---:|---:|");
  for (const b of pageBounds(doc)) {
    console.log(`| \`GET ${b.path}\` | ${b.row.toLocaleString("en")} | ${b.page.toLocaleString("en")} | ${mb(b.page)} |${b.unbounded.length ? ` unbounded: ${b.unbounded.join(", ")}` : ""}`);
  }
}
