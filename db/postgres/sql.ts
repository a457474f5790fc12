/**
 * SQL written for SQLite, as PostgreSQL spells it: the translation of the raw statements that
 * are written once (the ledger's inserts, the fiscal calendar, what drizzle renders for SQLite),
 * in one place. What cannot be translated by spelling (search, the ledger's triggers) is written
 * for PostgreSQL in db/postgres/baseline.ts, and per query with `perEngine` (db/engine.ts).
 */

/**
 * Placeholders as PostgreSQL numbers them (`?` and `?N` → `$N`; quoted text and names left
 * alone), and a name compared without case (`"x" collate nocase`) as `lower("x")`.
 */
export function postgresSql(text: string): string {
  let translated = translations.get(text);
  if (translated === undefined) {
    // the texts are the code's own statements, with values as parameters: a few hundred
    if (translations.size >= MAX_TRANSLATIONS) translations.clear();
    translations.set(text, (translated = translate(text)));
  }
  return translated;
}

/** Statements translated already, by their SQLite text: a query built per request is translated once. */
const translations = new Map<string, string>();
const MAX_TRANSLATIONS = 4096;

function translate(text: string): string {
  let out = "";
  let next = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(text, i, c);
      out += text.slice(i, end + 1);
      i = end;
    } else if (c === "?") {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0] ?? "";
      out += `$${digits === "" ? next++ : Number(digits)}`;
      i += digits.length;
    } else out += c;
  }
  return out.replace(/("[^"]+"(?:\."[^"]+")?) collate nocase/gi, "lower($1)");
}

function closingQuote(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i;
    } else i++;
  }
  return text.length - 1;
}
