import { asc, count, eq, ne } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { contactPersons, customers, invoices, recurringInvoices } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { partyService, presentParty, type PartyRow } from "../contacts/party-service.ts";
import { checkRoom } from "../lib/counts.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { deleteInOrg, findChildInOrg, findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { ContactPersonCreate, ContactPersonUpdate, CustomerUpdate } from "./model.ts";
import { firstRow } from "../../db/client.ts";

type ContactRow = typeof contactPersons.$inferSelect;

export function presentContactPerson(row: ContactRow) {
  return {
    id: row.id,
    first_name: row.firstName,
    last_name: row.lastName,
    full_name: `${row.firstName} ${row.lastName}`.trim(),
    email: row.email,
    phone: row.phone,
    position: row.position,
    is_primary: row.isPrimary,
    notes: row.notes,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** A customer as its list shows it: a party with the fields suppliers have not. */
export function presentCustomer(row: PartyRow) {
  return {
    ...presentParty(row),
    buyer_reference: row.buyerReference,
    einvoice_profile: row.einvoiceProfile,
    preferred_channel: row.preferredChannel,
    reminders_paused: row.remindersPaused,
    reminders_paused_reason: row.remindersPausedReason,
  };
}

/** The columns of a customer's own fields in a create or an update. */
function customerColumns(input: Record<string, unknown>): Partial<PartyRow> {
  const out: Partial<PartyRow> = {};
  if (input.preferred_channel !== undefined) out.preferredChannel = input.preferred_channel as PartyRow["preferredChannel"];
  if (input.buyer_reference !== undefined) out.buyerReference = (input.buyer_reference as string | null)?.trim() || null;
  if (input.einvoice_profile !== undefined) out.einvoiceProfile = input.einvoice_profile as PartyRow["einvoiceProfile"];
  if (typeof input.reminders_paused === "boolean") out.remindersPaused = input.reminders_paused;
  if (input.reminders_paused_reason !== undefined) out.remindersPausedReason = (input.reminders_paused_reason as string | null)?.trim() || null;
  return out;
}

/** The customer as GET /customers/{id} and the customer.* webhooks show it. */
export async function showCustomer(tx: Tx, row: PartyRow) {
  const persons = await tx
    .select()
    .from(contactPersons)
    .where(inOrg(contactPersons, row.organizationId, eq(contactPersons.customerId, row.id)))
    .orderBy(asc(contactPersons.createdAt), asc(contactPersons.id));
  return { ...presentCustomer(row), contact_persons: persons.map(presentContactPerson) };
}

/**
 * What follows a change of a customer in what embeds it live: each draft invoice of the customer
 * (docs/api.md#embedded-data). Invoices are a tier above, so the composition root hands it to the
 * routes (server/app.ts); every command that changes a customer takes it.
 */
export type CustomerFollower = (tx: Tx, scope: Scope, customerId: string) => Promise<void>;

const parties = partyService({
  table: customers,
  resourceType: "customer",
  searchTable: "customers_fts",
  events: { created: "customer.created", updated: "customer.updated", deleted: "customer.deleted" },
  show: showCustomer,
  present: presentCustomer,
  ownColumns: customerColumns,
  deleteBlocker: async (tx, row) => {
    const n = (await firstRow(tx.select({ n: count() }).from(invoices).where(inOrg(invoices, row.organizationId, eq(invoices.customerId, row.id)))))!.n;
    if (n > 0) return `The customer has ${n} invoice${n === 1 ? "" : "s"} and cannot be deleted.`;
    // read in SQL (server/recurring is a tier above): a template would generate for a customer gone
    const r = (await firstRow(tx.select({ n: count() }).from(recurringInvoices).where(inOrg(recurringInvoices, row.organizationId, eq(recurringInvoices.customerId, row.id)))))!.n;
    return r > 0 ? `The customer has ${r} recurring invoice${r === 1 ? "" : "s"} and cannot be deleted (delete ${r === 1 ? "it" : "them"} first).` : null;
  },
});

export const customerService = {
  ...parties,
  /** The customer's change, then its drafts' (`follow`), in one transaction. */
  update(scope: Scope, id: string, input: CustomerUpdate, follow: CustomerFollower) {
    return parties.update(scope, id, input, (tx, row) => follow(tx, scope, row.id));
  },
};

/** A contact person as its contact_person.* events carry it: with the customer it belongs to. */
const personEventData = (row: ContactRow) => ({ ...presentContactPerson(row), customer_id: row.customerId });

/**
 * Contact persons change their customer, which embeds them live: each change is audited as the
 * person's and emits the person's own event (`person`: its state after the change, or its last
 * state when deleted), then customer.updated with the customer as it now is (its updated_at
 * moved), then the customer's drafts follow (`follow`).
 */
async function touchCustomer(tx: Tx, scope: Scope, customerId: string, change: "created" | "updated" | "deleted", person: ContactRow, follow: CustomerFollower) {
  await updateInOrg(tx, customers, scope.org.id, customerId, { updatedAt: nowIso() });
  await recordChange(tx, scope, {
    action: `contact_person.${change}`,
    resource: { type: "contact_person", id: person.id },
    event: `contact_person.${change}`,
    data: personEventData(person),
    also: [{ event: "customer.updated", data: await showCustomer(tx, await findInOrg(tx, customers, scope.org.id, customerId)) }],
  });
  await follow(tx, scope, customerId);
}

/** At most one primary contact per customer: setting one clears the others. */
async function clearOtherPrimaries(tx: Tx, orgId: string, customerId: string, keepId: string) {
  await tx.update(contactPersons)
    .set({ isPrimary: false })
    .where(inOrg(contactPersons, orgId, eq(contactPersons.customerId, customerId), ne(contactPersons.id, keepId), eq(contactPersons.isPrimary, true)));
}

async function findPerson(tx: Tx, scope: Scope, customerId: string, personId: string): Promise<ContactRow> {
  await findInOrg(tx, customers, scope.org.id, customerId);
  return await findChildInOrg(tx, contactPersons, contactPersons.customerId, scope.org.id, customerId, personId);
}

/** A customer's contact persons, in the order they were added (contact_persons_customer). */
const contactPersonList: ListSpec<typeof contactPersons> = {
  table: contactPersons,
  sorts: { created_at: contactPersons.createdAt, updated_at: contactPersons.updatedAt },
  defaultSort: "created_at",
  updatedAt: contactPersons.updatedAt,
};

export const contactPersonService = {
  listSpec: contactPersonList,
  async list(scope: Scope, customerId: string, query: ListQuery, url: string) {
    await snapshot(scope.db, (tx) => findInOrg(tx, customers, scope.org.id, customerId));
    return listPage(scope, contactPersonList, query, url, (rows) => rows.map(presentContactPerson), [eq(contactPersons.customerId, customerId)]);
  },
  async create(scope: Scope, customerId: string, input: ContactPersonCreate, follow: CustomerFollower) {
    return await unitOfWork(scope.db, async (tx) => {
      await findInOrg(tx, customers, scope.org.id, customerId);
      const held = (await firstRow(tx.select({ n: count() }).from(contactPersons).where(inOrg(contactPersons, scope.org.id, eq(contactPersons.customerId, customerId)))))!.n;
      checkRoom("contact_persons", held, 1, "This customer");
      const now = nowIso();
      const row: ContactRow = {
        id: newId(),
        organizationId: scope.org.id,
        customerId,
        firstName: input.first_name.trim(),
        lastName: input.last_name.trim(),
        email: input.email?.trim().toLowerCase() ?? null,
        phone: input.phone ?? null,
        position: input.position ?? null,
        isPrimary: input.is_primary ?? false,
        notes: input.notes ?? null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(contactPersons).values(row);
      if (row.isPrimary) await clearOtherPrimaries(tx, scope.org.id, customerId, row.id);
      await touchCustomer(tx, scope, customerId, "created", row, follow);
      return presentContactPerson(row);
    });
  },
  async update(scope: Scope, customerId: string, personId: string, input: ContactPersonUpdate, follow: CustomerFollower) {
    return await unitOfWork(scope.db, async (tx) => {
      await findPerson(tx, scope, customerId, personId);
      const set: Partial<ContactRow> = { updatedAt: nowIso() };
      if (input.first_name !== undefined) set.firstName = input.first_name.trim();
      if (input.last_name !== undefined) set.lastName = input.last_name.trim();
      if (input.email !== undefined) set.email = input.email === null ? null : input.email.trim().toLowerCase();
      if (input.phone !== undefined) set.phone = input.phone;
      if (input.position !== undefined) set.position = input.position;
      if (input.is_primary !== undefined) set.isPrimary = input.is_primary;
      if (input.notes !== undefined) set.notes = input.notes;
      await updateInOrg(tx, contactPersons, scope.org.id, personId, set);
      if (input.is_primary) await clearOtherPrimaries(tx, scope.org.id, customerId, personId);
      const person = await findPerson(tx, scope, customerId, personId);
      await touchCustomer(tx, scope, customerId, "updated", person, follow);
      return presentContactPerson(person);
    });
  },
  async remove(scope: Scope, customerId: string, personId: string, follow: CustomerFollower) {
    await unitOfWork(scope.db, async (tx) => {
      const last = await findPerson(tx, scope, customerId, personId);
      await deleteInOrg(tx, contactPersons, scope.org.id, personId);
      await touchCustomer(tx, scope, customerId, "deleted", last, follow);
    });
  },
};
