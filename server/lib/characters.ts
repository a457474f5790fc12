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

export type ForbiddenCharacter = { kind: "control" | "bidi" | "lineBreak"; codePoint: string };

/**
 * The first character `value` may not hold, or null: a control or bidirectional character, or
 * (unless `multiline`) a line break; a multi-line text takes "\n" and "\r\n", not a lone "\r".
 */
export function forbiddenCharacter(value: string, multiline = false): ForbiddenCharacter | null {
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
  return found ? `The ${what} must be one line without control characters (it holds ${found.codePoint}).` : null;
}
