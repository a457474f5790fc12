/**
 * The journal for accountants: CSV (a row per line) or a Beancount ledger that `bean-check`
 * accepts, ending with a balance assertion per account and currency equal to Kontor's own trial
 * balance, so that bean-check itself proves the two agree. With `from`, what was posted before is
 * carried in as one opening entry per currency against Equity:Opening-Balances.
 */
import { and, asc, eq, gte, lt, lte, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accountDays, accounts, journalEntries, journalLines } from "../../db/schema.ts";
import type { AccountType } from "../../db/values.ts";
import { toCsv } from "../http/csv.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { addDays } from "../lib/time.ts";
import { entryPosition, fiscalYearsOf, formatEntryNumber } from "../ledger/entries.ts";
import { periodOf } from "../lib/period.ts";
import { firstRow } from "../../db/client.ts";

export const EXPORT_FORMATS = ["csv", "beancount"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type ExportRange = { from?: string; to?: string };

type AccountRow = typeof accounts.$inferSelect;

/** The range exported: everything up to `to` (today by default) unless `from` is given. */
const rangeOf = (range: ExportRange) => periodOf(range, () => null);

/**
 * The lines of the range in journal order (date, then entry id: the order entry numbers follow),
 * each entry with its number: looked up for the first entry of each fiscal year in the range, then
 * counted on, as every entry of those dates is in the range.
 */
async function linesIn(tx: Tx, orgId: string, from: string | null, to: string) {
  const rows = await tx
    .select({ entry: journalEntries, line: journalLines })
    .from(journalEntries)
    .innerJoin(journalLines, eq(journalLines.entryId, journalEntries.id))
    .where(and(eq(journalEntries.organizationId, orgId), from === null ? undefined : gte(journalEntries.date, from), lte(journalEntries.date, to)))
    .orderBy(asc(journalEntries.date), asc(journalEntries.id), asc(journalLines.lineNo));
  const yearOf = await fiscalYearsOf(tx, orgId);
  let previous = null as { id: string; year: number; position: number } | null;
  const numbered: { entry: (typeof rows)[number]["entry"] & { number: string }; line: (typeof rows)[number]["line"] }[] = [];
  for (const { entry, line } of rows) {
    if (previous?.id !== entry.id) {
      const year = yearOf(entry.date).year;
      previous = { id: entry.id, year, position: previous?.year === year ? previous.position + 1 : (await entryPosition(tx, entry)).position };
    }
    numbered.push({ entry: { ...entry, number: formatEntryNumber(previous.year, previous.position) }, line });
  }
  return numbered;
}

const chartOf = async (tx: Tx, orgId: string) => new Map((await tx.select().from(accounts).where(eq(accounts.organizationId, orgId))).map((a) => [a.id, a]));

export async function journalCsv(scope: Scope, range: ExportRange): Promise<string> {
  const { from, to } = rangeOf(range);
  return await snapshot(scope.db, async (tx) => {
    const chart = await chartOf(tx, scope.org.id);
    return toCsv(
      ["date", "number", "description", "source_type", "source_id", "account_code", "account_name", "debit", "credit", "currency", "line_description"],
      (await linesIn(tx, scope.org.id, from, to)).map(({ entry, line }) => [
        entry.date,
        entry.number,
        entry.description,
        entry.sourceType,
        entry.sourceId,
        chart.get(line.accountId)!.code,
        chart.get(line.accountId)!.name,
        formatCents(line.debitCents),
        formatCents(line.creditCents),
        entry.currency,
        line.description,
      ]),
    );
  });
}

const ROOT: Record<AccountType, string> = { asset: "Assets", liability: "Liabilities", equity: "Equity", revenue: "Income", expense: "Expenses" };

/** "4100 Sales & services" → "Income:4100-Sales-services": Beancount's account name rules (ASCII letters, digits, dashes). */
export function beancountAccount(account: Pick<AccountRow, "type" | "code" | "name">): string {
  const words = account.name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, " ")
    .trim()
    .split(" ")
    .filter(Boolean);
  const code = account.code.replace(/[^A-Za-z0-9]+/g, "-");
  return `${ROOT[account.type]}:${[code, ...words].join("-")}`;
}

const quoted = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/[\r\n]+/g, " ")}"`;
/** A Beancount amount: the signed decimal; debits positive. */
const amount = (cents: number, currency: string) => `${formatCents(cents)} ${currency}`;

export async function journalBeancount(scope: Scope, range: ExportRange): Promise<string> {
  const { from, to } = rangeOf(range);
  return await snapshot(scope.db, async (tx) => {
    const chart = await chartOf(tx, scope.org.id);
    const rows = await linesIn(tx, scope.org.id, from, to);
    // balances per account and currency: before `from` (the opening entry), and at `to` (the assertions)
    const balancesBefore = async (end: string | null, inclusive: boolean) =>
      end === null
        ? []
        : (await tx
            .select({ accountId: accountDays.accountId, currency: accountDays.currency, net: sql<number>`sum(${accountDays.debitCents}) - sum(${accountDays.creditCents})` })
            .from(accountDays)
            .where(and(eq(accountDays.organizationId, scope.org.id), inclusive ? lte(accountDays.date, end) : lt(accountDays.date, end)))
            .groupBy(accountDays.accountId, accountDays.currency));
    const opening = (await balancesBefore(from, false)).filter((b) => b.net !== 0);
    const closing = await balancesBefore(to, true);

    const used = new Set([...rows.map((r) => r.line.accountId), ...opening.map((b) => b.accountId), ...closing.map((b) => b.accountId)]);
    const firstDate = [from, rows[0]?.entry.date, to].filter((d): d is string => d !== null && d !== undefined).sort()[0]!;
    const currencies = [...new Set([...rows.map((r) => r.entry.currency), ...closing.map((b) => b.currency), scope.org.currency])].sort();
    const out: string[] = [
      `; Kontor journal of ${scope.org.name}${from ? ` from ${from}` : ""} to ${to}`,
      `option "title" ${quoted(`Kontor: ${scope.org.name}`)}`,
      `option "operating_currency" "${scope.org.currency}"`,
      "",
      ...currencies.map((c) => `${firstDate} commodity ${c}`),
      "",
      ...[...used]
        .map((id) => chart.get(id)!)
        .sort((a, b) => a.code.localeCompare(b.code))
        .map((a) => `${firstDate} open ${beancountAccount(a)}`),
    ];
    if (opening.length > 0) {
      out.push(`${firstDate} open Equity:Opening-Balances`);
      for (const [currency, balances] of Map.groupBy(opening, (b) => b.currency)) {
        out.push("", `${from} * "Opening balances" ${quoted(`Balances before ${from}`)}`);
        for (const b of balances) out.push(`  ${beancountAccount(chart.get(b.accountId)!)}  ${amount(b.net, currency)}`);
        out.push(`  Equity:Opening-Balances  ${amount(-balances.reduce((s, b) => s + b.net, 0), currency)}`);
      }
    }
    let current: string | null = null;
    for (const { entry, line } of rows) {
      if (entry.id !== current) {
        current = entry.id;
        out.push("", `${entry.date} * ${quoted(entry.number)} ${quoted(entry.description)}`);
        out.push(`  kontor_id: ${quoted(entry.id)}`, `  kontor_source: ${quoted(`${entry.sourceType}${entry.sourceId ? ` ${entry.sourceId}` : ""}`)}`);
      }
      out.push(`  ${beancountAccount(chart.get(line.accountId)!)}  ${amount(line.debitCents - line.creditCents, entry.currency)}`);
    }
    // Beancount checks a balance at the start of its day: the day after `to` holds what `to` ends
    // with; "~ 0.00": exactly (by default it would let half a cent either side pass)
    out.push("", `; balances at the end of ${to}, as Kontor's trial balance shows them`);
    for (const b of closing.sort((x, y) => chart.get(x.accountId)!.code.localeCompare(chart.get(y.accountId)!.code) || x.currency.localeCompare(y.currency))) {
      out.push(`${addDays(to, 1)} balance ${beancountAccount(chart.get(b.accountId)!)}  ${formatCents(b.net)} ~ 0.00 ${b.currency}`);
    }
    return out.join("\n") + "\n";
  });
}

/**
 * The journal in `format`. `maxEntries` bounds what one HTTP request builds in memory (a thread
 * answers nothing else meanwhile): a longer range is a 422 asking for a shorter one; the CLI has
 * no bound.
 */
export async function exportJournal(scope: Scope, format: ExportFormat, range: ExportRange, { maxEntries }: { maxEntries?: number } = {}): Promise<string> {
  if (maxEntries !== undefined) {
    const { from, to } = rangeOf(range);
    const { n } = (await firstRow(scope.db
      .select({ n: sql<number>`count(*)` })
      .from(journalEntries)
      .where(and(eq(journalEntries.organizationId, scope.org.id), from === null ? undefined : gte(journalEntries.date, from), lte(journalEntries.date, to)))))!;
    if (n > maxEntries) {
      throw ValidationFailed.field(
        "from",
        `The range holds ${n} journal entries; export at most ${maxEntries} at a time over the API (a shorter from–to range), or any range with kontor export journal.`,
      );
    }
  }
  return format === "csv" ? await journalCsv(scope, range) : await journalBeancount(scope, range);
}

export const exportFilename = (format: ExportFormat, org: string) => `journal-${org}.${format === "csv" ? "csv" : "beancount"}`;
