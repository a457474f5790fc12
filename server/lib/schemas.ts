/**
 * Shared TypeBox building blocks. The same schemas validate requests and feed the OpenAPI
 * document; `server/docs/openapi.ts` turns `anyOf [X, null]` into OpenAPI 3.0 `nullable`.
 */
import { t, type TSchema } from "elysia";
import { CloneType, FormatRegistry, Kind, TypeRegistry, type TObject, type TProperties, type TUnsafe } from "@sinclair/typebox";
import { ERROR_CODES, EVENTS_EXPIRED, ROUTE_NOT_FOUND } from "./errors.ts";
import { isCountryCode, isCurrencyCode } from "./iso-codes.ts";
import { isValidDate } from "./time.ts";
import { isVatNumber } from "./vat-numbers.ts";
import { DOCUMENTED_NO_FORMAT_CHARACTERS_PATTERN, forbiddenCharacter, MULTILINE_PATTERN, NO_FORMAT_CHARACTERS_PATTERN, SINGLE_LINE_PATTERN } from "./characters.ts";

// Elysia's own "date" format accepts "March 3rd"-like strings; the API wants real YYYY-MM-DD.
FormatRegistry.Set("date", isValidDate);
FormatRegistry.Set("iso-3166-alpha2", isCountryCode);
FormatRegistry.Set("iso-4217", isCurrencyCode);
FormatRegistry.Set("vat-number", isVatNumber);

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

type TextOptions = {
  minLength?: number;
  maxLength: number;
  /** a free text block (an address, notes, a line's description): takes line breaks, \n or \r\n */
  multiline?: boolean;
  format?: string;
  pattern?: string;
  description?: string;
  examples?: unknown[];
};
/** The schema of a Text field, as `textProblem` reads it: `multiline` is kept under a name the OpenAPI document may carry. */
type TextSchema = Omit<TextOptions, "multiline"> & { "x-multiline"?: boolean };

/** Why a value is not a Text of `schema`, for the 422 (server/http/validation.ts); null when it is one. */
export function textProblem(
  schema: TextSchema,
  value: unknown,
): "type" | "minLength" | "maxLength" | "control" | "bidi" | "lineBreak" | "surrogate" | "format" | "pattern" | null {
  if (typeof value !== "string") return "type";
  const length = codePoints(value);
  if (schema.minLength !== undefined && length < schema.minLength) return "minLength";
  if (length > schema.maxLength) return "maxLength";
  const forbidden = forbiddenCharacter(value, schema["x-multiline"] === true);
  if (forbidden) return forbidden.kind;
  if (schema.format !== undefined && !(FormatRegistry.Get(schema.format)?.(value) ?? true)) return "format";
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) return "pattern";
  return null;
}
TypeRegistry.Set<TextSchema>("Text", (schema, value) => textProblem(schema, value) === null);

/**
 * A string field of bounded length holding no control or bidirectional character, and on one
 * line unless `multiline`. TypeBox's own minLength/maxLength count UTF-16 units (200 emoji
 * would be 400); this kind counts code points, as JSON Schema (and so the OpenAPI document,
 * and every client validating against it) does. The document shows a plain string, with the
 * character rule as its pattern (a field with a pattern of its own shows that one).
 */
export const Text = ({ multiline, ...options }: TextOptions & { "x-openapi"?: Record<string, unknown> }): TUnsafe<string> =>
  t.Unsafe<string>({
    [Kind]: "Text",
    type: "string",
    ...options,
    ...(multiline ? { "x-multiline": true } : {}),
    "x-openapi": {
      ...(options.pattern === undefined ? { pattern: multiline ? MULTILINE_PATTERN : SINGLE_LINE_PATTERN } : {}),
      ...options["x-openapi"],
    },
  });

/** A request body object that rejects unknown (and read-only) fields (docs/api.md#conventions). */
export function strictObject<P extends TProperties>(properties: P, options: object = {}): TObject<P> {
  return t.Object(properties, { additionalProperties: false, ...options });
}

export const Uuid = t.String({ format: "uuid", description: "UUID" });

/**
 * A client's own id of a resource: unique per organisation and resource type (a duplicate is a
 * 409 naming the holder). Stored NFC-normalised (normalizeExternalId, server/lib/external-ids.ts),
 * without invisible format characters: ids that look the same are the same id.
 */
export const ExternalId = Text({
  minLength: 1,
  maxLength: 255,
  pattern: NO_FORMAT_CHARACTERS_PATTERN,
  "x-openapi": { pattern: DOCUMENTED_NO_FORMAT_CHARACTERS_PATTERN },
  description:
    "Your own id of this resource (e.g. the shop's order id): unique per organisation and resource type; a duplicate is a 409 with the holder's id (holder_id). " +
    "Stored in Unicode NFC (\"cafe\u0301\" and \"caf\u00e9\" are one id); invisible format characters (U+200B, U+FEFF, …) are a 422",
  examples: ["shop-order-1042"],
});
export const METADATA_KEY_PATTERN = '^[^$\\[\\]"\\\\\\u0000-\\u001f][^\\[\\]"\\\\\\u0000-\\u001f]{0,39}$';
/** A client's string pairs on a resource, replaced as a whole on update (`{}` clears them). */
export const Metadata = t.Record(t.String({ pattern: METADATA_KEY_PATTERN }), Text({ maxLength: 500, multiline: true }), {
  maxProperties: 50,
  additionalProperties: false,
  description:
    "Your own string pairs: at most 50 keys of 1–40 characters (no [ ] \\ \" or control characters, not starting with $), values up to 500 characters. Replaced as a whole on update; {} clears them. Lists filter by filter[metadata][KEY]=value.",
  examples: [{ order_source: "webshop" }],
});
export const DateString = t.String({ format: "date", description: "Date, YYYY-MM-DD", examples: ["2026-11-22"] });
export const Timestamp = t.String({
  format: "date-time",
  description: "ISO 8601 UTC with microseconds",
  examples: ["2026-11-22T10:15:30.123456Z"],
});
/**
 * Keywords the OpenAPI document shows that TypeBox does not check, because a check of our own
 * does, with its own message (readMoney, the abilities check, the webhook URL check, the
 * country and currency formats). None allows what the server refuses, beyond what a format
 * beside it names (a real ISO code) or a number's two decimals (see moneyInput); the server
 * takes a little more than they say (a money string with spaces around it).
 * server/docs/openapi.ts merges them into the schema.
 */
export const documented = (keywords: Record<string, unknown>) => ({ "x-openapi": keywords });

/**
 * Names a schema in the OpenAPI document: server/docs/openapi.ts makes every schema with a
 * title a component of that name and refers to it with `$ref` (generated clients get
 * `components["schemas"]["Invoice"]`). A copy, so one shared shape can carry two names.
 */
export const named = <T extends TSchema>(name: string, schema: T): T => CloneType(schema, { title: name });

// the format is the check (a code of EN 16931's list, server/lib/iso-codes.ts); the pattern tells clients the shape
export const Country = t.String({
  format: "iso-3166-alpha2",
  description: "ISO 3166-1 alpha-2 as EN 16931 accepts it (code list of BR-CL-14), e.g. BE; the United Kingdom is GB, Northern Ireland XI",
  examples: ["BE"],
  ...documented({ pattern: "^[A-Z]{2}$" }),
});
export const Currency = t.String({
  format: "iso-4217",
  description: "ISO 4217 as EN 16931 accepts it (code list of BR-CL-04), a currency (not XXX, XTS, a precious metal or a unit of account), e.g. EUR",
  examples: ["EUR"],
  ...documented({ pattern: "^[A-Z]{3}$" }),
});
export const Email = Text({ format: "email", maxLength: 255 });
/** A VAT number: its country prefix, format and check digits (server/lib/vat-numbers.ts); stored compact. */
export const VatNumber = Text({
  maxLength: 50,
  format: "vat-number",
  description:
    "VAT number with its country prefix (Greece EL, Northern Ireland XI), checked for the country's format and, where the country publishes them, its check digits; stored compact: spaces, dots and hyphens removed, upper case",
  examples: ["BE0123456749"],
});
/**
 * Input: a JSON number or numeric string, at most two fraction digits, checked by readMoney
 * (which also trims and takes leading zeros; the documented pattern is the plain form). No
 * `multipleOf: 0.01` on the number: 0.07 / 0.01 is 7.000000000000001 in floating point, and
 * validators that divide (Ajv, Python's jsonschema) would refuse valid amounts.
 */
export const moneyInput = ({ positive, description }: { positive: boolean; description: string }) =>
  t.Union(
    [
      t.Number(documented({ minimum: positive ? 0.01 : 0, maximum: 999_999_999_999.99 })),
      t.String({
        maxLength: 32,
        // at least 0.01 without a lookahead: a non-zero integer part, or 0.01–0.99
        ...documented({ pattern: positive ? "^(?:[1-9]\\d{0,11}(?:\\.\\d{1,2})?|0\\.(?:0[1-9]|[1-9]\\d?))$" : "^\\d{1,12}(?:\\.\\d{1,2})?$" }),
      }),
    ],
    { description, examples: [positive ? "12.50" : "0.00"] },
  );
/** Output: a decimal string with exactly two fraction digits. */
export const Money = t.String({ pattern: "^-?\\d+\\.\\d{2}$", examples: ["12.50"] });

export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

export const IdParams = t.Object({ id: t.String() });

/** An error body's `code` (server/lib/errors.ts): what a program branches on; the message is for people. */
export const ErrorCodeField = t.String({
  description: `Stable and machine-readable (docs/api.md, "Error codes"): ${[...Object.values(ERROR_CODES), ROUTE_NOT_FOUND, EVENTS_EXPIRED].join(", ")}`,
  examples: ["not_found"],
});
export const ErrorBody = t.Object(
  {
    code: ErrorCodeField,
    message: t.String(),
    holder_id: t.Optional(t.String({ description: "On a 409 for a taken external_id: the id of the resource that holds it" })),
  },
  { description: "Error", examples: [{ code: "not_found", message: "Not found." }] },
);
export const ValidationErrorBody = t.Object(
  { code: ErrorCodeField, message: t.String(), errors: t.Record(t.String(), t.Array(t.String())) },
  {
    description: "Validation error",
    examples: [{ code: "validation_failed", message: "The name field is required.", errors: { name: ["The name field is required."] } }],
  },
);

/**
 * Marks a response schema as documentation only: Elysia does not check (or encode) the
 * handler's result against it at run time. Checking every invoice of a page against its
 * schema cost a large share of a list request; the test suite instead checks every response
 * it sees against the published OpenAPI document (tests/contract.ts), which is built from
 * these same schemas.
 */
export const ResponseSchema = <T extends TSchema>(schema: T): T => ({ ...schema, noValidate: true }) as T;

/**
 * The body of an action that takes no fields (finalize, approve, regenerate-secret, …): it may
 * be omitted, and one sent must be an empty object (a field is a 422 naming it).
 */
export const NoFields = t.Optional(strictObject({}, { title: "NoFields", description: "No fields; the body may be omitted" }));

/** `{data: …}`: single resources are wrapped (docs/api.md#conventions). */
export const Wrapped = <T extends TSchema>(schema: T) => ResponseSchema(t.Object({ data: schema }));

/**
 * Elysia's `t.UnionEnum` carries `default: <first value>` and Elysia fills defaults into absent
 * query parameters: an absent sort would become the first sort name, an absent filter a filter.
 */
export function withoutDefault<T extends TSchema>(schema: T): T {
  const { default: _ignored, ...rest } = schema;
  return rest as T;
}
