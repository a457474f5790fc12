/**
 * Shared TypeBox building blocks. The same schemas validate requests and feed the OpenAPI
 * document; `server/docs/openapi.ts` turns `anyOf [X, null]` into OpenAPI 3.0 `nullable`.
 */
import { t, type TSchema } from "elysia";
import { FormatRegistry, Kind, TypeRegistry, type TObject, type TProperties, type TUnsafe } from "@sinclair/typebox";
import { isValidDate } from "./time.ts";

// Elysia's own "date" format accepts "March 3rd"-like strings; the API wants real YYYY-MM-DD.
FormatRegistry.Set("date", isValidDate);
const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const currencies = new Set(Intl.supportedValuesOf("currency"));
/** Real ISO 3166-1 alpha-2 codes (ICU knows their names), upper case. */
export const isCountryCode = (v: string) => /^[A-Z]{2}$/.test(v) && regionNames.of(v) !== v && regionNames.of(v) !== "Unknown Region";
/** Real ISO 4217 codes, upper case. */
export const isCurrencyCode = (v: string) => /^[A-Z]{3}$/.test(v) && currencies.has(v);
FormatRegistry.Set("iso-3166-alpha2", isCountryCode);
FormatRegistry.Set("iso-4217", isCurrencyCode);

/** Characters as JSON Schema counts them (Unicode code points): "😀" is 1, not 2 UTF-16 units. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

type TextOptions = { minLength?: number; maxLength: number; format?: string; pattern?: string; description?: string; examples?: unknown[] };

/** Why a value is not a Text of `schema`, for the 422 (server/http/validation.ts); null when it is one. */
export function textProblem(schema: TextOptions, value: unknown): "type" | "minLength" | "maxLength" | "format" | "pattern" | null {
  if (typeof value !== "string") return "type";
  const length = codePoints(value);
  if (schema.minLength !== undefined && length < schema.minLength) return "minLength";
  if (length > schema.maxLength) return "maxLength";
  if (schema.format !== undefined && !(FormatRegistry.Get(schema.format)?.(value) ?? true)) return "format";
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) return "pattern";
  return null;
}
TypeRegistry.Set<TextOptions>("Text", (schema, value) => textProblem(schema, value) === null);

/**
 * A string field of bounded length. TypeBox's own minLength/maxLength count UTF-16 units (200
 * emoji would be 400); this kind counts code points, as JSON Schema (and so the OpenAPI
 * document, and every client validating against it) does. The document shows a plain string.
 */
export const Text = (options: TextOptions): TUnsafe<string> => t.Unsafe<string>({ [Kind]: "Text", type: "string", ...options });

/** A request body object that rejects unknown (and read-only) fields: contract section 5. */
export function strictObject<P extends TProperties>(properties: P, options: object = {}): TObject<P> {
  return t.Object(properties, { additionalProperties: false, ...options });
}

export const Uuid = t.String({ format: "uuid", description: "UUID" });
export const DateString = t.String({ format: "date", description: "Date, YYYY-MM-DD", examples: ["2026-11-22"] });
export const Timestamp = t.String({
  format: "date-time",
  description: "ISO 8601 UTC with microseconds",
  examples: ["2026-11-22T10:15:30.123456Z"],
});
export const Country = t.String({ format: "iso-3166-alpha2", description: "ISO 3166-1 alpha-2, e.g. BE" });
export const Currency = t.String({ format: "iso-4217", description: "ISO 4217, e.g. EUR" });
export const Email = Text({ format: "email", maxLength: 255 });
/** Input: a JSON number or numeric string, at most two fraction digits (checked by readMoney). */
export const MoneyInput = t.Union([t.Number(), t.String({ maxLength: 32 })], {
  description: 'Decimal with at most 2 fraction digits, as a number or string ("12.50")',
});
/** Output: a decimal string with exactly two fraction digits. */
export const Money = t.String({ pattern: "^-?\\d+\\.\\d{2}$", examples: ["12.50"] });

export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

export const IdParams = t.Object({ id: t.String() });

export const ErrorBody = t.Object(
  { message: t.String() },
  { description: "Error", examples: [{ message: "Not found." }] },
);
export const ValidationErrorBody = t.Object(
  { message: t.String(), errors: t.Record(t.String(), t.Array(t.String())) },
  { description: "Validation error", examples: [{ message: "The name field is required.", errors: { name: ["The name field is required."] } }] },
);

/**
 * Marks a response schema as documentation only: Elysia does not check (or encode) the
 * handler's result against it at run time. Checking every invoice of a page against its
 * schema took a third of a list request's time; the test suite instead checks every response
 * it sees against the published OpenAPI document (tests/contract.ts), which is built from
 * these same schemas.
 */
export const ResponseSchema = <T extends TSchema>(schema: T): T => ({ ...schema, noValidate: true }) as T;

/** `{data: …}`: single resources are wrapped (contract section 5). */
export const Wrapped = <T extends TSchema>(schema: T) => ResponseSchema(t.Object({ data: schema }));
