/**
 * What both floors (bench/floor.ts on SQLite, bench/floor-postgres.ts) answer with: Kontor's JSON
 * of an invoice page or one invoice, built from rows, and the sealed cursor of the next page. A
 * module of its own: each floor's file starts its threads when loaded in one.
 */
import { createCipheriv, createHmac } from "node:crypto";
import { encodeCursor, sealContext } from "../server/lib/list.ts";
import { formatCents } from "../server/lib/money.ts";

export type Row = Record<string, any>;

/** What both floors answer with: Kontor's JSON of an invoice and its relations, built from rows. */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const lineOrder = (a: Row, b: Row) => a.sort_order - b.sort_order || byText(a.id, b.id);
export const creationOrder = (a: Row, b: Row) => byText(a.created_at, b.created_at) || byText(a.id, b.id);

const person = (p: Row) => ({
  id: p.id,
  first_name: p.first_name,
  last_name: p.last_name,
  full_name: `${p.first_name} ${p.last_name}`.trim(),
  email: p.email,
  phone: p.phone,
  position: p.position,
  is_primary: p.is_primary === 1,
  notes: p.notes,
  created_at: p.created_at,
  updated_at: p.updated_at,
});
const customer = (c: Row, persons: Row[]) => ({
  id: c.id,
  type: c.vat_number ? "organization" : "individual",
  name: c.name,
  email: c.email,
  phone: c.phone,
  address: c.address,
  city: c.city,
  postal_code: c.postal_code,
  country: c.country,
  vat_number: c.vat_number,
  company_number: c.company_number,
  currency: c.currency,
  payment_terms: c.payment_terms,
  peppol_id: c.peppol_id,
  language: c.language,
  external_id: c.external_id,
  metadata: JSON.parse(c.metadata),
  created_at: c.created_at,
  updated_at: c.updated_at,
  // what a customer has beyond a party (issues 29, 30, 31)
  buyer_reference: c.buyer_reference,
  einvoice_profile: c.einvoice_profile,
  preferred_channel: c.preferred_channel,
  reminders_paused: c.reminders_paused === 1,
  reminders_paused_reason: c.reminders_paused_reason,
  contact_persons: persons.map(person),
});
const line = (l: Row) => ({
  id: l.id,
  description: l.description,
  quantity: formatCents(l.quantity_cents),
  unit_code: l.unit_code,
  unit_price: formatCents(l.unit_price_cents),
  amount: formatCents(l.amount_cents),
  vat_rate_id: l.vat_rate_id,
  vat_rate: formatCents(l.vat_rate_bp),
  vat_amount: formatCents(l.vat_cents),
  discount_percent: l.discount_percent_bp === null ? null : formatCents(l.discount_percent_bp),
  discount_amount: formatCents(l.discount_cents),
  discount_reason: l.discount_reason,
  sort_order: l.sort_order,
  supply_type: l.supply_type,
});
const payment = (p: Row) => ({
  id: p.id,
  amount: formatCents(p.amount_cents),
  payment_date: p.payment_date,
  payment_method: p.payment_method,
  reference: p.reference,
  bank_account_id: p.bank_account_id,
  created_at: p.created_at,
});
const party = (p: Row) => ({
  name: p.name,
  address: p.address,
  city: p.city,
  postal_code: p.postalCode,
  country: p.country,
  vat_number: p.vatNumber,
  company_number: p.companyNumber,
  email: p.email,
  phone: p.phone,
  peppol_id: p.peppolId,
});
export const invoice = (i: Row, c: Row | undefined, persons: Row[], lines: Row[], payments: Row[]) => {
  // the parties as issued, frozen at finalize (JSON), as Kontor shows them
  const issued = i.issued_parties ? JSON.parse(i.issued_parties) : null;
  return {
  id: i.id,
  number: i.number,
  status: i.status,
  type: i.type,
  related_invoice_id: i.related_invoice_id,
  customer: c ? customer(c, persons) : null,
  seller: issued ? party(issued.seller) : null,
  buyer: issued ? party(issued.buyer) : null,
  payee: issued?.payee ? { iban: issued.payee.iban, bic: issued.payee.bic, account_name: issued.payee.accountName } : null,
  issue_date: i.issue_date,
  due_date: i.due_date,
  prices_include_vat: i.prices_include_vat === 1,
  line_total: formatCents(i.subtotal_cents + i.allowance_cents - i.charge_cents),
  allowance_total: formatCents(i.allowance_cents),
  charge_total: formatCents(i.charge_cents),
  subtotal: formatCents(i.subtotal_cents),
  vat_amount: formatCents(i.vat_cents),
  total: formatCents(i.total_cents),
  currency: i.currency,
  notes: i.notes,
  payment_terms: i.payment_terms,
  buyer_reference: i.buyer_reference,
  order_reference: i.order_reference,
  payment_reference: i.payment_reference,
  amount_paid: formatCents(i.paid_cents),
  amount_credited: formatCents(i.credited_cents),
  amount_due: formatCents(i.total_cents - i.paid_cents - i.credited_cents),
  lines: lines.map(line),
  // the seeded invoices are net-priced without allowances or charges: Kontor reads none for them either
  allowances_charges: [],
  payments: payments.map(payment),
  service_period_start: i.service_period_start,
  service_period_end: i.service_period_end,
  delivery_date: i.delivery_date,
  recurring_invoice_id: i.recurring_invoice_id,
  finalized_at: i.finalized_at,
  sent_at: i.sent_at,
  reminders_paused: i.reminders_paused === 1,
  reminders_paused_reason: i.reminders_paused_reason,
  external_id: i.external_id,
  metadata: JSON.parse(i.metadata),
  created_at: i.created_at,
  updated_at: i.updated_at,
  };
};
export const group = (rows: Row[], key: string, order: (a: Row, b: Row) => number) => {
  const by = new Map<string, Row[]>();
  for (const r of rows) {
    const list = by.get(r[key]);
    if (list) list.push(r);
    else by.set(r[key], [r]);
  }
  for (const list of by.values()) if (list.length > 1) list.sort(order);
  return by;
};
export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });





export const PER_PAGE = 20;

/** The page a list request asks for. */
export const pageOf = (url: URL) => Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);

/** A list page as Kontor answers it: the invoices with their relations, links and meta. */
export function listResponse(
  url: URL,
  pageNo: number,
  n: number,
  rows: Row[],
  related: { customers: Map<string, Row>; persons: Map<string, Row[]>; lines: Map<string, Row[]>; payments: Map<string, Row[]> },
  nextCursor: (last: Row, shown: number) => string,
): Response {
  const lastPage = Math.max(1, Math.ceil(n / PER_PAGE));
  const from = rows.length ? (pageNo - 1) * PER_PAGE + 1 : null;
  const pageUrl = (p: number) => {
    const u = new URL(url);
    u.searchParams.set("page", String(p));
    return u.toString();
  };
  return json({
    data: rows.map((r) =>
      invoice(r, related.customers.get(r.customer_id), related.persons.get(r.customer_id) ?? [], related.lines.get(r.id) ?? [], related.payments.get(r.id) ?? []),
    ),
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: pageNo > 1 ? pageUrl(Math.min(pageNo - 1, lastPage)) : null,
      next: pageNo < lastPage ? pageUrl(pageNo + 1) : null,
    },
    meta: {
      current_page: pageNo,
      from,
      last_page: lastPage,
      per_page: PER_PAGE,
      to: from === null ? null : from + rows.length - 1,
      total: n,
      next_cursor: rows.length === PER_PAGE && pageNo < lastPage ? nextCursor(rows[PER_PAGE - 1]!, pageNo * PER_PAGE) : null,
    },
  });
}

/** The sealed cursor of the next page of the default list, as Kontor writes it (server/lib/list.ts, server/lib/cursor-seal.ts: AES-256-GCM, the nonce a MAC of the content, under the database's key). */
export function cursorSealer(cursorKey: Buffer, orgId: string) {
  const defaultList = { page: 1, perPage: PER_PAGE, sort: "-issue_date", filters: {}, updatedSince: null, search: null, metadata: {}, after: null, byCursor: false };
  const context = sealContext("invoices", orgId);
  const seal = (plain: string) => {
    const iv = createHmac("sha256", cursorKey).update("nonce\u0000").update(context).update("\u0000").update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv("aes-256-gcm", cursorKey, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
  };
  return (last: Row, shown: number) => seal(encodeCursor(defaultList as never, `invoices\u0000${orgId}`, [last.issue_date, last.id], shown));
}

/** One invoice as Kontor's GET shows it (the floors leave a draft's readiness out). */
export const showResponse = (row: Row, customer: Row | undefined, persons: Row[], lines: Row[], payments: Row[]) =>
  json({ data: { ...invoice(row, customer, persons.sort(creationOrder), lines.sort(lineOrder), payments.sort(creationOrder)), readiness: null } });

