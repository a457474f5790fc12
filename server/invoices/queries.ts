/**
 * The invoices' reads as units (`GET /invoices`, `GET /invoices/{id}`, `GET /invoices/{id}/deliveries`):
 * each one snapshot, presented by read.ts. A missing invoice is a 404.
 */
import { invoices } from "../../db/schema.ts";
import { listPage, type ListQuery } from "../lib/list.ts";
import { findInOrg, snapshot, type Scope } from "../lib/scope.ts";
import { listDeliveries } from "./deliveries.ts";
import { invoiceList } from "./list.ts";
import { presentInvoices, showInvoice, type ShownInvoice } from "./read.ts";
import { shownReadinessOf, type Readiness } from "./readiness.ts";

/** A page of invoices and credit notes, with `filter`, `sort` and `q` (list.ts). */
export function listInvoices(scope: Scope, query: ListQuery, url: string) {
  return listPage(scope, invoiceList, query, url, (rows, tx) => presentInvoices(tx, scope.org.id, rows));
}

/** With a draft's readiness (readiness.ts): it reads the document, so the list and the events leave it out. */
export async function showInvoiceById(scope: Scope, id: string): Promise<ShownInvoice & { readiness: Readiness | null }> {
  return await snapshot(scope.db, async (tx) => {
    const shown = await showInvoice(tx, scope.org.id, id);
    return { ...shown, readiness: shown.status === "draft" ? await shownReadinessOf(tx, scope.org.id, id) : null };
  });
}

/** The document's deliveries, newest first (404 for no such invoice). */
export async function invoiceDeliveries(scope: Scope, id: string, query: ListQuery, url: string) {
  await snapshot(scope.db, (tx) => findInOrg(tx, invoices, scope.org.id, id));
  return listDeliveries(scope, id, query, url);
}
