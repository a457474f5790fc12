/**
 * Who a supplier is, for filing a supplier's e-invoice (docs/payables.md#importing-supplier-e-invoices).
 * One function decides whether a document's seller is a supplier already known: `sameSupplier`.
 *
 * - The same VAT number (BT-31, compact) is the same supplier whatever the name; different VAT
 *   numbers are different suppliers, whatever else they share.
 * - Else the same legal registration (BT-30, compact, with its scheme when both give one) is the
 *   same supplier; different registrations are different suppliers.
 * - Else the same Peppol participant id (an EndpointID with an EAS scheme) is the same supplier
 *   (different ones decide nothing: one company may be reachable at several).
 * - Else (a side has neither a VAT number nor a registration, or they share no kind of one) the
 *   names decide: equal once case, spaces, punctuation and a trailing legal form (GmbH, BV, SA, …:
 *   LEGAL_FORMS) are set aside.
 *
 * An EndpointID of scheme EM is an e-mail address (a bookkeeper's, or a test suite's shared one)
 * and identifies no one: never compared, never stored. A supplier's identifiers are its own fields
 * and what every document filed under it said of its seller (db/schema/suppliers.ts supplierIdentifiers), so
 * a VAT number the API would not store (wrong check digits) still tells two sellers apart.
 */
import { and, asc, eq, inArray, or, type SQL } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { supplierIdentifiers, suppliers } from "../../db/schema.ts";
import { isPeppolId } from "../lib/peppol-ids.ts";
import { compactVatNumber } from "../lib/vat-numbers.ts";
import { newId } from "../lib/time.ts";

/** What a document (or a supplier's own fields) says identifies a seller, in compared form. */
export type SellerIdentity = {
  vat: string | null;
  registration: { value: string; scheme: string } | null;
  peppolId: string | null;
  name: string;
};

/** Everything known of one supplier: its own fields and its documents' sellers. */
export type KnownSupplier = {
  vats: string[];
  registrations: { value: string; scheme: string }[];
  peppolIds: string[];
  names: string[];
};

/**
 * Legal-form suffixes set aside when names are compared, written as `nameKey` leaves them (dots
 * removed, lower case): German, Austrian, Swiss, Benelux, French, Italian, Spanish, Nordic, Polish,
 * Czech, British, Irish and American forms. "GmbH & Co. KG" is three of them in a row.
 */
export const LEGAL_FORMS = new Set([
  // DE, AT, CH
  "gmbh", "mbh", "ag", "kg", "ohg", "gbr", "ug", "ev", "eg", "kgaa", "co", "haftungsbeschränkt",
  // BE, NL, LU
  "bv", "nv", "vof", "cv", "bvba", "cvba", "vzw", "asbl", "sprl", "scrl", "srl", "sc", "scs", "commv",
  // FR
  "sa", "sarl", "sas", "sasu", "eurl", "snc", "sca", "sci", "scop",
  // IT, ES, PT
  "spa", "sapa", "srls", "sl", "slu", "lda",
  // Nordic, PL, CZ, SK, HU, EU
  "ab", "as", "asa", "aps", "oy", "oyj", "sp", "zoo", "sro", "kft", "se",
  // UK, IE, US
  "ltd", "limited", "plc", "llp", "llc", "lp", "inc", "incorporated", "corp", "corporation", "company",
]);

/**
 * A name as names are compared: Unicode-folded (NFKC, lower case), dots removed ("B.V." → "bv"),
 * every other punctuation or symbol a space, spaces collapsed, and trailing legal forms removed
 * while a word is left ("Meier GmbH & Co. KG" → "meier"; "[Seller name]" → "seller name").
 */
export function nameKey(name: string): string {
  const words = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\./g, "")
    .replace(/[\p{P}\p{S}\s]+/gu, " ")
    .trim()
    .split(" ")
    .filter(Boolean);
  while (words.length > 1 && LEGAL_FORMS.has(words.at(-1)!)) words.pop();
  return words.join(" ");
}

/** The one rule (this file's header): is the seller `doc` the supplier `known`? */
export function sameSupplier(doc: SellerIdentity, known: KnownSupplier): boolean {
  if (doc.vat !== null && known.vats.length > 0) return known.vats.includes(doc.vat);
  if (doc.registration !== null && known.registrations.length > 0) return known.registrations.some((r) => sameRegistration(r, doc.registration!));
  if (doc.peppolId !== null && known.peppolIds.includes(doc.peppolId)) return true;
  return known.names.includes(doc.name);
}

/** The same registration number, under the same scheme when both name one. */
const sameRegistration = (a: { value: string; scheme: string }, b: { value: string; scheme: string }) =>
  a.value === b.value && (a.scheme === "" || b.scheme === "" || a.scheme === b.scheme);

/** A document's seller as `sameSupplier` compares it; an EndpointID counts only as a Peppol participant id (never scheme EM). */
export function documentIdentity(party: {
  name: string;
  vatNumber: string | null;
  companyId: string | null;
  companyIdScheme: string | null;
  endpoint: { scheme: string | null; id: string } | null;
}): SellerIdentity {
  const vat = party.vatNumber?.trim() ? compactVatNumber(party.vatNumber) : null;
  const registration = party.companyId?.trim() ? { value: compactVatNumber(party.companyId), scheme: party.companyIdScheme?.trim() ?? "" } : null;
  return { vat, registration, peppolId: peppolIdOf(party.endpoint), name: nameKey(party.name) };
}

/** The EndpointID as a Peppol participant id when its scheme is an EAS code (and the id one Kontor accepts), else null: "EM" is an e-mail address. */
export function peppolIdOf(endpoint: { scheme: string | null; id: string } | null): string | null {
  if (endpoint === null || endpoint.scheme === null) return null;
  const id = `${endpoint.scheme}:${endpoint.id}`;
  return isPeppolId(id) ? id : null;
}

type SupplierRow = typeof suppliers.$inferSelect;

/** A supplier's own fields as identifiers (its VAT number and registration compact, its name keyed). */
function ownIdentity(row: Pick<SupplierRow, "vatNumber" | "companyNumber" | "peppolId" | "name">): SellerIdentity {
  return {
    vat: row.vatNumber?.trim() ? compactVatNumber(row.vatNumber) : null,
    registration: row.companyNumber?.trim() ? { value: compactVatNumber(row.companyNumber), scheme: "" } : null,
    peppolId: row.peppolId,
    name: nameKey(row.name),
  };
}

function rowsOf(orgId: string, supplierId: string, identity: SellerIdentity, source: "supplier" | "document") {
  const base = { organizationId: orgId, supplierId, source };
  const rows: (typeof supplierIdentifiers.$inferInsert)[] = [];
  if (identity.vat !== null) rows.push({ ...base, id: newId(), kind: "vat", value: identity.vat, scheme: "" });
  if (identity.registration !== null) rows.push({ ...base, id: newId(), kind: "registration", value: identity.registration.value, scheme: identity.registration.scheme });
  if (identity.peppolId !== null) rows.push({ ...base, id: newId(), kind: "peppol", value: identity.peppolId, scheme: "" });
  if (identity.name !== "") rows.push({ ...base, id: newId(), kind: "name", value: identity.name, scheme: "" });
  return rows;
}

/** Rewrites the identifiers a supplier's own fields give (after it is created or updated). */
export async function refreshOwnIdentifiers(tx: Tx, row: SupplierRow): Promise<void> {
  await tx.delete(supplierIdentifiers)
    .where(and(eq(supplierIdentifiers.supplierId, row.id), eq(supplierIdentifiers.source, "supplier")));
  const rows = rowsOf(row.organizationId, row.id, ownIdentity(row), "supplier");
  if (rows.length > 0) await tx.insert(supplierIdentifiers).values(rows).onConflictDoNothing();
}

/** Adds what a document filed under the supplier says of its seller. */
export async function rememberDocumentIdentity(tx: Tx, orgId: string, supplierId: string, identity: SellerIdentity): Promise<void> {
  const rows = rowsOf(orgId, supplierId, identity, "document");
  if (rows.length > 0) await tx.insert(supplierIdentifiers).values(rows).onConflictDoNothing();
}

/**
 * The oldest supplier of the organisation that `sameSupplier` says the seller is, or null. The
 * candidates are the suppliers sharing at least one identifier with the document (one index probe
 * each, supplier_identifiers_org_value); each candidate is then judged on all it is known by.
 */
export async function findSupplier(tx: Tx, orgId: string, doc: SellerIdentity): Promise<string | null> {
  const probes: SQL[] = [];
  const probe = (kind: "vat" | "registration" | "peppol" | "name", value: string) =>
    probes.push(and(eq(supplierIdentifiers.kind, kind), eq(supplierIdentifiers.value, value))!);
  if (doc.vat !== null) probe("vat", doc.vat);
  if (doc.registration !== null) probe("registration", doc.registration.value);
  if (doc.peppolId !== null) probe("peppol", doc.peppolId);
  if (doc.name !== "") probe("name", doc.name);
  if (probes.length === 0) return null;
  const candidateIds = [
    ...new Set(
      (await tx
        .select({ supplierId: supplierIdentifiers.supplierId })
        .from(supplierIdentifiers)
        .where(and(eq(supplierIdentifiers.organizationId, orgId), or(...probes))))
        .map((r) => r.supplierId),
    ),
  ];
  if (candidateIds.length === 0) return null;
  const known = new Map<string, KnownSupplier>();
  for (const r of (await tx.select().from(supplierIdentifiers).where(inArray(supplierIdentifiers.supplierId, candidateIds)))) {
    const k = known.get(r.supplierId) ?? { vats: [], registrations: [], peppolIds: [], names: [] };
    if (r.kind === "vat") k.vats.push(r.value);
    else if (r.kind === "registration") k.registrations.push({ value: r.value, scheme: r.scheme });
    else if (r.kind === "peppol") k.peppolIds.push(r.value);
    else k.names.push(r.value);
    known.set(r.supplierId, k);
  }
  const oldestFirst = await tx
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.organizationId, orgId), inArray(suppliers.id, candidateIds)))
    .orderBy(asc(suppliers.createdAt), asc(suppliers.id));
  return oldestFirst.find((s) => sameSupplier(doc, known.get(s.id)!))?.id ?? null;
}

/** Data migration: every existing supplier's own identifiers (a database from before the table). */
export async function backfillSupplierIdentifiers(tx: Tx): Promise<void> {
  for (const row of (await tx.select().from(suppliers))) await refreshOwnIdentifiers(tx, row);
}
