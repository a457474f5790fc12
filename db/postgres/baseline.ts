/**
 * PostgreSQL's baseline: what SQLite's migrations 0000 to 0051 built, created at once on an empty
 * database. The tables and indexes are derived from the declarations (./schema.ts); what SQLite's
 * migrations write by hand is written here for PostgreSQL, each beside the migration it mirrors:
 * the ledger's and the receivables' triggers (running balances, day counts, a ledger and an audit
 * log that are never changed) and the search indexes (SQLite's FTS5 tables).
 */
import { embeddedMigrations } from "../migrations/index.ts";
import { baselineDdl } from "./schema.ts";

/** The last SQLite migration the baseline equals: later migrations are numbered after it on both engines. */
export const BASELINE_MIGRATION = "0051_event_ids";

/**
 * Full-text search, as SQLite's FTS5 tables do it (0001_search.sql, 0011, 0018): the text of the
 * columns, without case or accents, cut into words of letters and digits; a search word matches
 * any word it begins. The same expression in the index and in the query (db/search.ts).
 */
export const SEARCH_FUNCTIONS = [
  `CREATE EXTENSION IF NOT EXISTS unaccent`,
  // Each function keeps the search path it was made with (a restore or a maintenance run has
  // another); unaccent() is STABLE (its dictionary could change), an index needs IMMUTABLE
  `CREATE FUNCTION kontor_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT SET search_path FROM CURRENT
     AS $$ SELECT unaccent('unaccent'::regdictionary, $1) $$`,
  // the words of a text, lower-cased and without accents in any script: the database's own
  // character classes (a UTF-8 locale), not the byte order ("C") Kontor's text columns sort in
  `CREATE FUNCTION kontor_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
     AS $$ SELECT trim(regexp_replace(lower(kontor_unaccent(coalesce($1, '')) COLLATE "default"), '[^[:alnum:]]+', ' ', 'g')) $$`,
  `CREATE FUNCTION kontor_search_document(VARIADIC parts text[]) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
     AS $$ SELECT to_tsvector('simple', kontor_search_words(array_to_string(parts, ' '))) $$`,
  // a search: every word a prefix (& between them), or a phrase whose last word is a prefix
  // (<->); the words cut as the documents' are, so no character of a search is tsquery syntax
  `CREATE FUNCTION kontor_search_query(text, phrase boolean) RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
     AS $$ SELECT to_tsquery('simple', coalesce(string_agg(CASE WHEN NOT phrase OR n = total THEN word || ':*' ELSE word END,
                                                            CASE WHEN phrase THEN ' <-> ' ELSE ' & ' END ORDER BY n), ''))
           FROM (SELECT word, n, count(*) OVER () AS total
                 FROM unnest(string_to_array(kontor_search_words($1), ' ')) WITH ORDINALITY AS w(word, n) WHERE word <> '') words $$`,
];

/** The columns each searched table's words come from (SQLite: the columns of its FTS5 table). */
export const SEARCHED_COLUMNS: Readonly<Record<string, { table: string; columns: readonly string[] }>> = {
  customers_fts: { table: "customers", columns: ["name", "email", "vat_number"] },
  suppliers_fts: { table: "suppliers", columns: ["name", "email", "vat_number"] },
  expenses_fts: { table: "expenses", columns: ["description", "vendor", "category"] },
  accounts_fts: { table: "accounts", columns: ["code", "name"] },
  bank_accounts_fts: { table: "bank_accounts", columns: ["name", "iban"] },
  invoices_fts: { table: "invoices", columns: ["number"] },
  bank_transactions_fts: { table: "bank_transactions", columns: ["counterparty_name", "counterparty_iban", "communication", "structured_reference"] },
};

/** The search document of `columns` of `table` (qualified by `alias` when given): the index's expression. */
export function searchDocument(columns: readonly string[], alias?: string): string {
  return `kontor_search_document(${columns.map((c) => (alias ? `"${alias}"."${c}"` : `"${c}"`)).join(", ")})`;
}

function searchIndexes(): string[] {
  const out: string[] = [];
  for (const { table, columns } of Object.values(SEARCHED_COLUMNS)) {
    out.push(`CREATE INDEX "${table}_search" ON "${table}" USING gin (${searchDocument(columns)})`);
  }
  // the invoice search matches a customer's name alone (server/invoices/list.ts)
  out.push(`CREATE INDEX "customers_name_search" ON "customers" USING gin (${searchDocument(["name"])})`);
  return out;
}

/** A trigger that refuses its statement with SQLite's message. */
const refusal = (name: string, message: string) => [
  `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message.replaceAll("'", "''")}'; END $$`,
];

/** An open amount of an invoice or credit note row (`r`: new or old), as the receivables count it. */
const openCents = (r: string) =>
  `CASE WHEN ${r}."type" = 'credit_note' THEN ${r}."paid_cents" + ${r}."credited_cents" - ${r}."total_cents" ELSE ${r}."total_cents" - ${r}."paid_cents" - ${r}."credited_cents" END`;
const OPEN_STATUSES = `('finalized', 'sent', 'partially_paid')`;

const TRIGGERS: string[] = [
  // 0004_audit_log_append_only.sql: the audit log is never changed, and deleted only with its organisation
  ...refusal("audit_log_refuse_update", "audit_log entries are never updated"),
  `CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_update()`,
  `CREATE FUNCTION audit_log_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF EXISTS (SELECT 1 FROM organizations WHERE id = old.organization_id) THEN RAISE EXCEPTION 'audit_log entries are never deleted'; END IF;
     RETURN old; END $$`,
  `CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_delete()`,

  // 0020 and 0025: the receivables' running totals, by customer and by due day
  `CREATE FUNCTION invoices_receivables_add() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF new.status IN ${OPEN_STATUSES} THEN
       INSERT INTO customer_receivables (organization_id, currency, customer_id, open_cents)
       VALUES (new.organization_id, new.currency, new.customer_id, ${openCents("new")})
       ON CONFLICT (customer_id, currency) DO UPDATE SET open_cents = customer_receivables.open_cents + excluded.open_cents;
       INSERT INTO receivable_due_days (organization_id, currency, due_date, open_cents)
       VALUES (new.organization_id, new.currency, new.due_date, ${openCents("new")})
       ON CONFLICT (organization_id, currency, due_date) DO UPDATE SET open_cents = receivable_due_days.open_cents + excluded.open_cents;
     END IF;
     RETURN NULL; END $$`,
  `CREATE FUNCTION invoices_receivables_remove() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF old.status IN ${OPEN_STATUSES} THEN
       UPDATE customer_receivables SET open_cents = open_cents - ${openCents("old")} WHERE customer_id = old.customer_id AND currency = old.currency;
       UPDATE receivable_due_days SET open_cents = open_cents - ${openCents("old")}
       WHERE organization_id = old.organization_id AND currency = old.currency AND due_date = old.due_date;
     END IF;
     RETURN NULL; END $$`,
  `CREATE TRIGGER invoices_receivables_insert AFTER INSERT ON invoices FOR EACH ROW EXECUTE FUNCTION invoices_receivables_add()`,
  // the old row's amount out, then the new row's in (SQLite: _update_old before _update_new, by name)
  `CREATE TRIGGER invoices_receivables_update_a_old AFTER UPDATE OF status, type, total_cents, paid_cents, credited_cents, due_date, customer_id, currency ON invoices
     FOR EACH ROW EXECUTE FUNCTION invoices_receivables_remove()`,
  `CREATE TRIGGER invoices_receivables_update_b_new AFTER UPDATE OF status, type, total_cents, paid_cents, credited_cents, due_date, customer_id, currency ON invoices
     FOR EACH ROW EXECUTE FUNCTION invoices_receivables_add()`,
  `CREATE TRIGGER invoices_receivables_delete AFTER DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION invoices_receivables_remove()`,

  // 0017_ledger.sql and 0041_fiscal_years.sql: an entry is checked when it is inserted, after its lines
  `CREATE FUNCTION journal_entries_check() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF (SELECT count(*) < 2 OR sum(debit_cents) <> sum(credit_cents) FROM journal_lines WHERE entry_id = new.id)
        OR EXISTS (SELECT 1 FROM journal_lines WHERE entry_id = new.id
          AND (organization_id <> new.organization_id OR date <> new.date OR currency <> new.currency)) THEN
       RAISE EXCEPTION 'a journal entry must have at least two lines, of its organisation, date and currency, whose debits equal its credits';
     END IF;
     IF new.is_closing = 0 AND EXISTS (SELECT 1 FROM fiscal_years WHERE organization_id = new.organization_id
          AND status = 'closed' AND start_date <= new.date AND end_date >= new.date) THEN
       RAISE EXCEPTION 'the fiscal year of this journal entry is closed';
     END IF;
     IF EXISTS (SELECT 1 FROM organizations WHERE id = new.organization_id AND first_fiscal_year_start > new.date) THEN
       RAISE EXCEPTION 'this journal entry is dated before the organisation''s first fiscal year';
     END IF;
     RETURN new; END $$`,
  `CREATE TRIGGER journal_entries_checked BEFORE INSERT ON journal_entries FOR EACH ROW EXECUTE FUNCTION journal_entries_check()`,
  `CREATE FUNCTION journal_lines_check_sealed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF EXISTS (SELECT 1 FROM journal_entries WHERE id = new.entry_id) THEN
       RAISE EXCEPTION 'a posted journal entry is never changed: post a reversing entry';
     END IF;
     RETURN new; END $$`,
  `CREATE TRIGGER journal_lines_sealed BEFORE INSERT ON journal_lines FOR EACH ROW EXECUTE FUNCTION journal_lines_check_sealed()`,
  ...refusal("journal_refuse_update", "a posted journal entry is never changed: post a reversing entry"),
  `CREATE TRIGGER journal_entries_no_update BEFORE UPDATE ON journal_entries FOR EACH ROW EXECUTE FUNCTION journal_refuse_update()`,
  `CREATE TRIGGER journal_lines_no_update BEFORE UPDATE ON journal_lines FOR EACH ROW EXECUTE FUNCTION journal_refuse_update()`,
  `CREATE FUNCTION journal_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF EXISTS (SELECT 1 FROM organizations WHERE id = old.organization_id) THEN
       RAISE EXCEPTION 'a posted journal entry is never deleted: post a reversing entry';
     END IF;
     RETURN old; END $$`,
  `CREATE TRIGGER journal_entries_no_delete BEFORE DELETE ON journal_entries FOR EACH ROW EXECUTE FUNCTION journal_refuse_delete()`,
  `CREATE TRIGGER journal_lines_no_delete BEFORE DELETE ON journal_lines FOR EACH ROW EXECUTE FUNCTION journal_refuse_delete()`,

  // 0017 and 0026: the running balances of the reports, moved by each entry once it is posted
  `CREATE FUNCTION journal_entries_post_balances() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     INSERT INTO account_days (organization_id, account_id, currency, date, is_closing, debit_cents, credit_cents)
     SELECT new.organization_id, account_id, new.currency, new.date, new.is_closing, sum(debit_cents), sum(credit_cents)
     FROM journal_lines WHERE entry_id = new.id GROUP BY account_id
     ON CONFLICT (account_id, currency, date, is_closing) DO UPDATE
       SET debit_cents = account_days.debit_cents + excluded.debit_cents, credit_cents = account_days.credit_cents + excluded.credit_cents;
     INSERT INTO account_totals (organization_id, account_id, currency, debit_cents, credit_cents)
     SELECT new.organization_id, account_id, new.currency, sum(debit_cents), sum(credit_cents)
     FROM journal_lines WHERE entry_id = new.id GROUP BY account_id
     ON CONFLICT (account_id, currency) DO UPDATE
       SET debit_cents = account_totals.debit_cents + excluded.debit_cents, credit_cents = account_totals.credit_cents + excluded.credit_cents;
     INSERT INTO vat_days (organization_id, currency, date, side, category, rate_bp, base_cents, vat_cents, credit_base_cents, credit_vat_cents)
     SELECT new.organization_id, new.currency, new.date, vat_side, vat_category, vat_rate_bp,
       sum(CASE WHEN vat_role = 'base' THEN signed ELSE 0 END),
       sum(CASE WHEN vat_role = 'vat' THEN signed ELSE 0 END),
       sum(CASE WHEN vat_role = 'base' AND vat_note = 1 THEN signed ELSE 0 END),
       sum(CASE WHEN vat_role = 'vat' AND vat_note = 1 THEN signed ELSE 0 END)
     FROM (SELECT *, CASE vat_side WHEN 'sales' THEN credit_cents - debit_cents ELSE debit_cents - credit_cents END AS signed
           FROM journal_lines WHERE entry_id = new.id AND vat_side IS NOT NULL) l
     GROUP BY vat_side, vat_category, vat_rate_bp
     ON CONFLICT (organization_id, currency, date, side, category, rate_bp) DO UPDATE
       SET base_cents = vat_days.base_cents + excluded.base_cents, vat_cents = vat_days.vat_cents + excluded.vat_cents,
           credit_base_cents = vat_days.credit_base_cents + excluded.credit_base_cents, credit_vat_cents = vat_days.credit_vat_cents + excluded.credit_vat_cents;
     INSERT INTO journal_day_counts (organization_id, date, entries) VALUES (new.organization_id, new.date, 1)
     ON CONFLICT (organization_id, date) DO UPDATE SET entries = journal_day_counts.entries + 1;
     RETURN NULL; END $$`,
  `CREATE TRIGGER journal_entries_balances AFTER INSERT ON journal_entries FOR EACH ROW EXECUTE FUNCTION journal_entries_post_balances()`,
];

/** Tables whose rows SQLite's migrations ship (reference data, not an organisation's). */
export const REFERENCE_TABLES = ["statutory_interest_rates"] as const;

/**
 * The reference rows SQLite's migrations insert (0036_statutory_interest.sql: Belgium's published
 * rates), taken from those migrations' own statements, so both engines ship the same rows.
 */
function referenceData(): string[] {
  const statements = embeddedMigrations.flatMap((m) => m.sql.split("--> statement-breakpoint"));
  return REFERENCE_TABLES.map((table) => {
    const found = statements.map((s) => s.replace(/^\s*(--[^\n]*\n\s*)*/, "")).filter((s) => s.startsWith(`INSERT INTO \`${table}\``));
    if (found.length !== 1) throw new Error(`expected one INSERT of ${table} in SQLite's migrations, found ${found.length}`);
    // SQLite's quoted names (`name`) as standard SQL's ("name"); the values are plain literals
    return found[0]!.replace(/`([^`]+)`/g, '"$1"');
  });
}

/** Every statement of the baseline, in order. */
export function baselineStatements(): string[] {
  return [...SEARCH_FUNCTIONS, ...baselineDdl(), ...searchIndexes(), ...TRIGGERS, ...referenceData()];
}
