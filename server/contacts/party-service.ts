/**
 * CRUD shared by customers and suppliers: same columns, rules, list declaration and
 * audit; each kind plugs in its table, its webhook events and what blocks a delete.
 */
import type { Tx } from "../../db/client.ts";
import { customers, nocase, suppliers } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { t } from "elysia";
import { Conflict, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { Country, Currency, ExternalId } from "../lib/schemas.ts";
import { checkExternalId, normalizeExternalId } from "../lib/external-ids.ts";
import { belgianEnterpriseNumberProblem, compactVatNumber } from "../lib/vat-numbers.ts";
import { deleteInOrg, findInOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { WebhookEvent } from "../changes/events.ts";
import type { PartyCreate, PartyUpdate } from "./party-model.ts";

export type PartyTable = typeof customers | typeof suppliers;
/** The columns both kinds have (customers add their own, PartyKind `columns`). */
export type PartyRow = typeof suppliers.$inferSelect;

export function presentParty(row: PartyRow) {
  return {
    id: row.id,
    type: row.vatNumber ? ("organization" as const) : ("individual" as const),
    name: row.name,
    email: row.email,
    phone: row.phone,
    address: row.address,
    city: row.city,
    postal_code: row.postalCode,
    country: row.country,
    vat_number: row.vatNumber,
    company_number: row.companyNumber,
    currency: row.currency,
    payment_terms: row.paymentTerms,
    peppol_id: row.peppolId,
    language: row.language,
    external_id: row.externalId,
    metadata: row.metadata,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function partyListSpec(table: PartyTable, searchTable: string): ListSpec<PartyTable> {
  return {
    table,
    sorts: { name: nocase(table.name), created_at: table.createdAt, updated_at: table.updatedAt },
    defaultSort: "name",
    filters: {
      country: { column: table.country, schema: Country },
      currency: { column: table.currency, schema: Currency },
      email: { column: table.email, schema: t.String({ maxLength: 255 }), map: (v) => v.trim().toLowerCase() },
      // stored compact: "BE 0123.456.749" finds BE0123456749
      vat_number: { column: table.vatNumber, schema: t.String({ maxLength: 50 }), map: compactVatNumber },
      external_id: { column: table.externalId, schema: ExternalId, map: normalizeExternalId },
    },
    search: searchTable,
    updatedAt: table.updatedAt,
    metadata: table.metadata,
  };
}

/** Input field → column; emails are stored lower-cased so the email filter is exact, VAT numbers compact. */
function columns(input: PartyUpdate) {
  const out: Partial<PartyRow> = {};
  if (input.name !== undefined) {
    out.name = input.name.trim();
    // the schema's minLength sees "   " as three characters
    if (out.name === "") throw ValidationFailed.field("name", "The name field must not be empty.");
  }
  if (input.email !== undefined) out.email = input.email === null ? null : input.email.trim().toLowerCase();
  if (input.phone !== undefined) out.phone = input.phone;
  if (input.address !== undefined) out.address = input.address;
  if (input.city !== undefined) out.city = input.city;
  if (input.postal_code !== undefined) out.postalCode = input.postal_code;
  if (input.country !== undefined) out.country = input.country;
  // stored compact, as e-invoices carry it (server/lib/vat-numbers.ts)
  if (input.vat_number !== undefined) out.vatNumber = input.vat_number === null ? null : compactVatNumber(input.vat_number);
  if (input.company_number !== undefined) out.companyNumber = input.company_number === null ? null : input.company_number.trim() || null;
  if (input.currency !== undefined) out.currency = input.currency;
  if (input.payment_terms !== undefined) out.paymentTerms = input.payment_terms;
  if (input.peppol_id !== undefined) out.peppolId = input.peppol_id;
  if (input.language !== undefined) out.language = input.language;
  if (input.external_id !== undefined) out.externalId = normalizeExternalId(input.external_id);
  // replaced as a whole: {} clears it
  if (input.metadata !== undefined) out.metadata = input.metadata;
  return out;
}

/**
 * A Belgian party's company number is its enterprise number: 10 digits, mod 97, checked as the
 * organisation's is (server/orgs/identity.ts); other countries' registrations have no one form.
 */
function checkCompanyNumber(row: Pick<PartyRow, "companyNumber" | "country">): void {
  if (row.companyNumber === null || row.country !== "BE") return;
  const problem = belgianEnterpriseNumberProblem(row.companyNumber);
  if (problem === "format") {
    throw ValidationFailed.field("company_number", "The company_number field is not a valid Belgian enterprise number (10 digits starting with 0 or 1, e.g. 0123.456.749).");
  }
  if (problem === "checkDigits") throw ValidationFailed.field("company_number", "The company_number field is not a valid Belgian enterprise number (check digits).");
}

export type PartyKind<Shown> = {
  table: PartyTable;
  resourceType: "customer" | "supplier";
  searchTable: string;
  events?: { created: WebhookEvent; updated: WebhookEvent; deleted: WebhookEvent };
  /** the full representation (customers add contact persons) */
  show: (tx: Tx, row: PartyRow) => Shown | Promise<Shown>;
  /** a reason the row cannot be deleted (409), or null */
  deleteBlocker: (tx: Tx, row: PartyRow) => string | null | Promise<string | null>;
  /** the row in a list (default presentParty) and the columns of its own fields (customers' reminders_paused) */
  present?: (row: PartyRow) => object;
  ownColumns?: (input: Record<string, unknown>) => Partial<PartyRow>;
  /** what else follows a row written (created or updated), in the same transaction: suppliers' identifiers */
  afterWrite?: (tx: Tx, row: PartyRow) => void | Promise<void>;
};

export function partyService<Shown>(kind: PartyKind<Shown>) {
  const { table, resourceType, events } = kind;
  const listSpec = partyListSpec(table, kind.searchTable);

  /** The audit entry and the event of a change; `shown` is the event's payload. */
  async function record(tx: Tx, scope: Scope, change: "created" | "updated" | "deleted", id: string, shown: Shown): Promise<void> {
    const record = { action: `${resourceType}.${change}`, resource: { type: resourceType, id } };
    // the kind's `show` is its events' payload (customers: showCustomer)
    await recordChange(tx, scope, events ? { ...record, event: events[change], data: shown } : record);
  }

  async function insert(tx: Tx, scope: Scope, input: PartyCreate): Promise<Shown> {
    const now = nowIso();
    const row: PartyRow = {
      id: newId(),
      organizationId: scope.org.id,
      name: "",
      email: null,
      phone: null,
      address: null,
      city: null,
      postalCode: null,
      country: null,
      vatNumber: null,
      companyNumber: null,
      currency: null,
      paymentTerms: null,
      peppolId: null,
      language: null,
      preferredChannel: null,
      buyerReference: null,
      einvoiceProfile: null,
      remindersPaused: false,
      remindersPausedReason: null,
      externalId: null,
      metadata: {},
      ...columns(input),
      ...kind.ownColumns?.(input),
      createdAt: now,
      updatedAt: now,
    };
    checkCompanyNumber(row);
    await checkExternalId(tx, table, resourceType, scope.org.id, row.externalId);
    await tx.insert(table).values(row);
    await kind.afterWrite?.(tx, row);
    const shown = await kind.show(tx, row);
    await record(tx, scope, "created", row.id, shown);
    return shown;
  }

  return {
    listSpec,
    list(scope: Scope, query: ListQuery, url: string) {
      return listPage(scope, listSpec, query, url, (rows) => rows.map(kind.present ?? presentParty));
    },
    async get(scope: Scope, id: string): Promise<Shown> {
      return await snapshot(scope.db, async (tx) => await kind.show(tx, await findInOrg(tx, table, scope.org.id, id)));
    },
    async find(tx: Tx, scope: Scope, id: string): Promise<PartyRow> {
      return await findInOrg(tx, table, scope.org.id, id);
    },
    async create(scope: Scope, input: PartyCreate): Promise<Shown> {
      return await unitOfWork(scope.db, (tx) => insert(tx, scope, input));
    },
    /** Creates the party inside the caller's transaction (an expense's vendor creates suppliers so). */
    insert,
    /** `after`: what follows the change in the same transaction, before its own event (customers: their drafts) */
    async update(scope: Scope, id: string, input: PartyUpdate, after?: (tx: Tx, row: PartyRow) => void | Promise<void>): Promise<Shown> {
      return await unitOfWork(scope.db, async (tx) => {
        const before = await findInOrg(tx, table, scope.org.id, id);
        const set = { ...columns(input), ...kind.ownColumns?.(input) };
        if (set.companyNumber !== undefined || set.country !== undefined) checkCompanyNumber({ ...before, ...set });
        await checkExternalId(tx, table, resourceType, scope.org.id, set.externalId, id);
        await updateInOrg(tx, table, scope.org.id, id, { ...set, updatedAt: nowIso() });
        const updated = await findInOrg(tx, table, scope.org.id, id);
        await kind.afterWrite?.(tx, updated);
        const shown = await kind.show(tx, updated);
        await record(tx, scope, "updated", id, shown);
        await after?.(tx, updated);
        return shown;
      });
    },
    async remove(scope: Scope, id: string): Promise<void> {
      await unitOfWork(scope.db, async (tx) => {
        const row = await findInOrg(tx, table, scope.org.id, id);
        const blocker = await kind.deleteBlocker(tx, row);
        if (blocker) throw new Conflict(blocker);
        const last = await kind.show(tx, row);
        await deleteInOrg(tx, table, scope.org.id, id);
        await record(tx, scope, "deleted", id, last);
      });
    },
  };
}

export type PartyService<Shown> = ReturnType<typeof partyService<Shown>>;
