/** Turns TypeBox validation errors into Laravel-style `{message, errors}` with human messages. */
import { Kind, type TSchema } from "@sinclair/typebox";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { ValidationFailed, validValues, type FieldErrors } from "../lib/errors.ts";
import { forbiddenCharacter, formatCharacter, NO_FORMAT_CHARACTERS_PATTERN, surrogateMessage } from "../lib/characters.ts";
import { textProblem } from "../lib/schemas.ts";
import { vatNumberMessage, vatNumberProblem } from "../lib/vat-numbers.ts";

/** "/lines/0/quantity" → "lines.0.quantity"; "/filter[status]" → "filter.status"; "" (the whole body) → "body". */
export function fieldKey(path: string): string {
  // "/" is a field named "" (e.g. a query string's "?=x"), not the body itself
  if (path === "/") return '""';
  const key = path
    .replace(/^\//, "")
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".")
    .replace(/\[([^\]]*)\]/g, ".$1");
  return key === "" ? "body" : key;
}

/**
 * A union's member error when one member says more than the union: for `X | null` given a
 * non-null value, X's own error ("X or null" says less); for a number where an integer (or
 * number) is expected, the numeric member's own (its range, "must be at least 1"), as Elysia
 * wraps a body's and a query's integers in a union with their numeric-string form.
 */
function memberError(error: ValueError): ValueError {
  const anyOf = (error.schema as { anyOf?: TSchema[] }).anyOf;
  if (error.type !== ValueErrorType.Union || !anyOf || error.value === null) return error;
  const typeOf = (m: TSchema) => (m as { type?: string }).type;
  if (typeof error.value === "number") {
    // nested: a nullable integer is (integer | its numeric string) | null
    const flat = (members: TSchema[]): TSchema[] =>
      members.flatMap((m) => {
        const nested = (m as { anyOf?: TSchema[] }).anyOf;
        return nested ? flat(nested) : [m];
      });
    const numeric = flat(anyOf).find((m) => typeOf(m) === "integer" || typeOf(m) === "number");
    const first = numeric && Value.Errors(numeric, error.value).First();
    if (first) return { ...first, path: error.path };
  }
  const members = anyOf.filter((m) => typeOf(m) !== "null");
  if (members.length !== 1 || members.length === anyOf.length) return error;
  const first = Value.Errors(members[0]!, error.value).First();
  return first ? { ...first, path: error.path } : error;
}

/** The message of one error; it names the field by its path as sent (`lines.0.unit_price`). */
function describe(error: ValueError, name: string, body: string): string {
  const s = error.schema as Record<string, any>;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `The ${name} field is required.`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `The ${name} field is not accepted.${validFilters(name, s)}`;
    case ValueErrorType.String:
      return `The ${name} field must be a string.`;
    case ValueErrorType.Number:
      return `The ${name} field must be a number${between(s)}.`;
    case ValueErrorType.Integer:
      return `The ${name} field must be an integer${between(s)}.`;
    case ValueErrorType.Boolean:
      return `The ${name} field must be true or false.`;
    case ValueErrorType.Array:
      return `The ${name} field must be an array.`;
    case ValueErrorType.Object:
      return name === "body" ? `The ${body} must be a JSON object.` : `The ${name} field must be an object.`;
    case ValueErrorType.Null:
      return `The ${name} field must be null.`;
    case ValueErrorType.StringMaxLength:
      return `The ${name} field must not be greater than ${s.maxLength} characters.`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? `The ${name} field must not be empty.` : `The ${name} field must be at least ${s.minLength} characters.`;
    case ValueErrorType.ArrayMinItems:
      return `The ${name} field must have at least ${s.minItems} item${s.minItems === 1 ? "" : "s"}.`;
    case ValueErrorType.ArrayMaxItems:
      return `The ${name} field must not have more than ${s.maxItems} items.`;
    case ValueErrorType.ObjectMaxProperties:
      return `The ${name} field must not have more than ${s.maxProperties} keys.`;
    case ValueErrorType.ObjectMinProperties:
      return `The ${name} field must have at least ${s.minProperties} key${s.minProperties === 1 ? "" : "s"}.`;
    case ValueErrorType.ArrayUniqueItems:
      return `The ${name} field must not contain duplicates.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return between(s) ? `The ${name} field must be${between(s)}.` : `The ${name} field must be at least ${s.minimum}.`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return between(s) ? `The ${name} field must be${between(s)}.` : `The ${name} field must not be greater than ${s.maximum}.`;
    case ValueErrorType.Kind:
      if ((error.schema as { [Kind]?: string })[Kind] === "Text") return describeText(name, s as Parameters<typeof textProblem>[0], error.value);
      // Elysia's UnionEnum (a sort, a status filter) lists what it takes
      return Array.isArray(s.enum) ? `The selected ${name} is invalid. ${validValues(s.enum)}` : `The selected ${name} is invalid.`;
    case ValueErrorType.StringFormat:
      return formatMessage(name, s.format, error.value);
    case ValueErrorType.Union:
    case ValueErrorType.StringPattern:
    case ValueErrorType.Literal:
      // Elysia coerces query integers through a union with a numeric-string format
      if (s.anyOf?.some((x: any) => x.format === "integer")) return `The ${name} field must be an integer${between(s)}.`;
      if (s.anyOf?.some((x: any) => x.format === "numeric")) return `The ${name} field must be a number${between(s)}.`;
      return s.anyOf?.every((x: any) => "const" in x) || "const" in s
        ? `The selected ${name} is invalid. ${validValues((s.anyOf ?? [s]).map((x: any) => x.const))}`
        : s.anyOf?.some((x: any) => x.type === "null")
          ? `The ${name} field must be a ${s.anyOf.find((x: any) => x.type !== "null")?.type ?? "value"} or null.`
          : `The ${name} field format is invalid.`;
    default:
      return `The ${name} field is invalid.`;
  }
}

/** " between 1 and 120" for a number with both bounds (named in each of its messages, so a client sees the range at once), else "". */
function between(s: Record<string, any>): string {
  return typeof s.minimum === "number" && typeof s.maximum === "number" ? ` between ${s.minimum} and ${s.maximum}` : "";
}

/** For an unknown `filter[…]` of a list's query: the filters the list has. */
function validFilters(key: string, objectSchema: Record<string, any>): string {
  if (!key.startsWith("filter.")) return "";
  const filters = Object.keys(objectSchema.properties ?? {}).filter((p) => p.startsWith("filter["));
  return filters.length > 0 ? ` Valid filters: ${filters.join(", ")}.` : "";
}

/** The message of a Text field (server/lib/schemas.ts), whose lengths count code points. */
function describeText(name: string, schema: Parameters<typeof textProblem>[0], value: unknown): string {
  switch (textProblem(schema, value)) {
    case "type":
      return `The ${name} field must be a string.`;
    case "minLength":
      return schema.minLength === 1 ? `The ${name} field must not be empty.` : `The ${name} field must be at least ${schema.minLength} characters.`;
    case "maxLength":
      return `The ${name} field must not be greater than ${schema.maxLength} characters.`;
    case "control":
    case "bidi":
    case "surrogate":
    case "lineBreak": {
      const found = forbiddenCharacter(value as string, (schema as { "x-multiline"?: boolean })["x-multiline"] === true)!;
      if (found.kind === "surrogate") return surrogateMessage(name, found.codePoint);
      if (found.kind === "lineBreak") return `The ${name} field must be a single line: it contains a line break (${found.codePoint}).`;
      const what = found.kind === "bidi" ? "a bidirectional control character" : "a control character";
      return `The ${name} field must not contain control characters: it contains ${what} (${found.codePoint}).`;
    }
    case "format":
      return formatMessage(name, schema.format!, value);
    case "pattern":
      if (schema.pattern === NO_FORMAT_CHARACTERS_PATTERN) {
        return `The ${name} field must not contain invisible format characters: it contains ${formatCharacter(value as string)}.`;
      }
      return `The ${name} field format is invalid.`;
    default:
      return `The ${name} field format is invalid.`;
  }
}

function formatMessage(name: string, format: string, value?: unknown): string {
  switch (format) {
    case "vat-number": {
      const problem = typeof value === "string" ? vatNumberProblem(value) : null;
      return problem ? vatNumberMessage(name, problem) : `The ${name} field is not a valid VAT number.`;
    }
    case "uuid":
      return `The ${name} field must be a valid UUID.`;
    case "email":
      return `The ${name} field must be a valid email address.`;
    case "date":
      return `The ${name} field must be a valid date (YYYY-MM-DD) between 1900 and 2999.`;
    case "date-time":
      return `The ${name} field must be a valid ISO 8601 timestamp.`;
    case "iso-3166-alpha2":
      return `The ${name} field must be an ISO 3166-1 alpha-2 country code that EN 16931 accepts (e.g. BE; the United Kingdom is GB, Northern Ireland XI).`;
    case "iso-4217":
      return `The ${name} field must be an ISO 4217 currency code that EN 16931 accepts (e.g. EUR; not XXX, XTS or a precious metal).`;
    case "uri":
      return `The ${name} field must be a valid URL.`;
    case "peppol-id":
      return `The ${name} field must be <scheme>:<identifier> with a scheme of the Peppol EAS code list (e.g. 0208:0123456749; a 0208 enterprise number has valid check digits).`;
    default:
      return `The ${name} field format is invalid.`;
  }
}

/**
 * One error per field, the most specific first (a union's own error after its members').
 * `body`: what the value checked is, named when it is not an object ("the request body"; a
 * batch's "batch item").
 */
export function toValidationFailed(errors: ValueError[], body = "request body"): ValidationFailed {
  const out: FieldErrors = {};
  for (const error of errors) {
    const key = fieldKey(error.path);
    if (out[key]) continue;
    out[key] = [describe(memberError(error), key, body)];
  }
  return new ValidationFailed(out);
}
