/**
 * The characters a text Kontor stores may not hold. The schemas' `Text` kind checks them
 * (server/lib/schemas.ts), and so do the services that check a text themselves (the CLI's org
 * create, imported e-invoices); kept apart from the schemas so that those load no schema library.
 */

/**
 * Characters no text field stores: C0 controls (line feed and carriage return apart, see
 * `forbiddenCharacter`), DEL, C1 controls, and the bidirectional controls (embeddings and
 * overrides U+202A–U+202E, isolates U+2066–U+2069, the marks U+200E, U+200F, U+061C), which
 * make a document read differently from what it holds (an invoice number shown backwards).
 * The renderers would otherwise drop or garble them: refused, never stored.
 */
const CONTROL = "\\u0000-\\u0009\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F";
const BIDI = "\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069";
const FORBIDDEN = new RegExp(`[${CONTROL}${BIDI}]`, "u");
const BIDI_CHARACTER = new RegExp(`[${BIDI}]`, "u");
/** What the OpenAPI document shows of the rule (the server checks it in `textProblem`, with its own message). */
export const SINGLE_LINE_PATTERN = `^[^${CONTROL}\\u000A\\u000D${BIDI}]*$`;
export const MULTILINE_PATTERN = `^(?:[^${CONTROL}\\u000A\\u000D${BIDI}]|\\u000D?\\u000A)*$`;

export type ForbiddenCharacter = { kind: "control" | "bidi" | "lineBreak" | "surrogate"; codePoint: string };

/**
 * The first lone UTF-16 surrogate of `value` ("U+D800"), or null. JSON's `\ud800` escape can
 * carry half of a pair (half an emoji) that is no character: UTF-8 cannot write it, strict JSON
 * parsers (RFC 8259 8.2, I-JSON) refuse the page that holds it, and documents show "�".
 */
export function loneSurrogate(value: string): string | null {
  if (value.isWellFormed()) return null;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = value.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return `U+${unit.toString(16).toUpperCase()}`;
  }
  return null;
}

/** The message for a field holding a lone surrogate: the same in a body, a query string and the CLI. */
export const surrogateMessage = (field: string, codePoint: string) =>
  `The ${field} field must not contain a lone UTF-16 surrogate (${codePoint}): it is half of a character, which UTF-8 cannot write.`;

/**
 * The first character `value` may not hold, or null: a lone surrogate, a control or
 * bidirectional character, or (unless `multiline`) a line break; a multi-line text takes "\n"
 * and "\r\n", not a lone "\r".
 */
export function forbiddenCharacter(value: string, multiline = false): ForbiddenCharacter | null {
  const surrogate = loneSurrogate(value);
  if (surrogate) return { kind: "surrogate", codePoint: surrogate };
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const isBreak = c === "\n" || c === "\r";
    if (isBreak && multiline && (c === "\n" || value[i + 1] === "\n")) continue;
    if (!isBreak && !FORBIDDEN.test(c)) continue;
    const codePoint = `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    return { kind: isBreak && !(c === "\r" && multiline) ? "lineBreak" : BIDI_CHARACTER.test(c) ? "bidi" : "control", codePoint };
  }
  return null;
}

/**
 * The message for a one-line text a service checks itself (the CLI's organisation and bank
 * accounts), or null when it holds no forbidden character: the API's rule, in the CLI's words.
 */
export function oneLineProblem(what: string, value: string): string | null {
  const found = forbiddenCharacter(value);
  if (found?.kind === "surrogate") return `The ${what} must not contain a lone UTF-16 surrogate (${found.codePoint}).`;
  return found ? `The ${what} must be one line without control characters (it holds ${found.codePoint}).` : null;
}

/**
 * Unicode format characters (general category Cf: U+200B zero-width space, U+FEFF, U+00AD soft
 * hyphen, U+2060 word joiner, …): invisible, so two ids that differ only by one look the same.
 * An external id may not hold them (server/lib/schemas.ts ExternalId).
 */
export const NO_FORMAT_CHARACTERS_PATTERN = "^\\P{Cf}*$";

/**
 * The same rule as the OpenAPI document shows it: JSON Schema validators need not know Unicode
 * categories, so the format characters of the Basic Multilingual Plane are listed (the server's
 * check, NO_FORMAT_CHARACTERS_PATTERN, also refuses the few beyond it, such as the tag characters),
 * with the one-line text rule of every Text field.
 */
const FORMAT_BMP = "\\u00AD\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\uFEFF\\uFFF9-\\uFFFB";
export const DOCUMENTED_NO_FORMAT_CHARACTERS_PATTERN = `^[^${CONTROL}\\u000A\\u000D${BIDI}${FORMAT_BMP}]*$`;

/** The first format character of `value` ("U+200B"), or null. */
export function formatCharacter(value: string): string | null {
  const found = /\p{Cf}/u.exec(value);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}` : null;
}
