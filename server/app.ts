/** Assembles the Kontor HTTP application from its feature modules. */
import "./http/elysia-production.ts";
import { Elysia } from "elysia";
import { accountRoutes } from "./accounts/routes.ts";
import { auditRoutes } from "./audit/routes.ts";
import { bankAccountRoutes } from "./bank-accounts/routes.ts";
import { bankingRoutes } from "./banking/routes.ts";
import { eventRoutes } from "./changes/routes.ts";
import { customerRoutes } from "./customers/routes.ts";
import { docsRoutes, servedDocument, type ServedDocument } from "./docs/openapi.ts";
import { expenseCategoryRoutes } from "./expense-categories/routes.ts";
import { expenseRoutes, receivedDocumentRoutes } from "./expenses/routes.ts";
import { fiscalYearRoutes } from "./fiscal-years/routes.ts";
import { createKernel } from "./http/kernel.ts";
import { invoiceRoutes } from "./invoices/routes.ts";
import { touchCustomerDrafts } from "./invoices/drafts.ts";
import { interestRoutes } from "./interest/routes.ts";
import { journalRoutes } from "./journal/routes.ts";
import { metaRoutes } from "./meta/routes.ts";
import { organizationRoutes } from "./orgs/routes.ts";
import { paymentRunRoutes } from "./payment-runs/routes.ts";
import { recurringInvoiceRoutes } from "./recurring/routes.ts";
import { reminderRoutes } from "./reminders/routes.ts";
import { reportRoutes } from "./reports/routes.ts";
import { listingRoutes } from "./listings/routes.ts";
import { vatReturnRoutes } from "./vat-returns/routes.ts";
import { supplierRoutes } from "./suppliers/routes.ts";
import { tokenRoutes } from "./tokens/routes.ts";
import { vatRateRoutes } from "./vat-rates/routes.ts";
import { createThreadMetrics, type ThreadMetrics } from "./metrics/thread.ts";
import type { Runtime } from "./runtime.ts";
import { VERSION } from "./version.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { t, type TSchema } from "elysia";
import type { EventResource } from "./changes/events.ts";
import { InvoiceModel } from "./invoices/model.ts";
import { ContactPersonModel, CustomerModel } from "./customers/model.ts";
import { SupplierModel } from "./suppliers/model.ts";
import { OrganizationModel } from "./orgs/model.ts";
import { ExpenseModel } from "./expenses/model.ts";
import { FiscalYearModel } from "./fiscal-years/model.ts";
import { BankingModel } from "./banking/model.ts";
import { AccountModel } from "./accounts/model.ts";
import { VatReturnModel } from "./vat-returns/model.ts";
import { ReminderSent } from "./reminders/model.ts";

/**
 * What each event's `data` is, for the typed `Event` of the OpenAPI document: the resource as
 * its GET shows it. A resource type without its schema here does not compile.
 */
const EVENT_DATA = {
  invoice: InvoiceModel.invoice,
  customer: CustomerModel.customerWithContacts,
  supplier: SupplierModel.supplier,
  // with the customer it belongs to (its own GET is under the customer's path)
  contact_person: t.Composite([ContactPersonModel.contactPerson, t.Object({ customer_id: t.String({ format: "uuid", description: "The customer it belongs to" }) })], {
    title: "ContactPersonOfCustomer",
  }),
  organization: OrganizationModel.organization,
  expense: ExpenseModel.expense,
  fiscal_year: FiscalYearModel.fiscalYear,
  bank_transaction: BankingModel.transaction,
  account: AccountModel.account,
  vat_return: VatReturnModel.vatReturn,
} satisfies Record<EventResource, TSchema>;

/** invoice.reminder_sent: the invoice, and the reminder that was sent. */
const INVOICE_WITH_REMINDER = t.Composite([InvoiceModel.invoice, t.Object({ reminder: ReminderSent })], { title: "InvoiceWithReminder" });

/**
 * The HTTP application of one thread, on its runtime (server/runtime.ts). It counts its requests
 * in `metrics`: those a server's /metrics adds up (server/serve.ts); by default a registry of
 * the app's own, which nothing reads.
 */
export function createApp(runtime: Runtime, metrics: ThreadMetrics = createThreadMetrics()) {
  const kernel = createKernel(runtime, metrics);
  let document: ServedDocument | undefined;
  // normalize: false — unknown body fields must be a 422 naming them, not silently dropped
  const app = new Elysia({ normalize: false })
    .use(kernel)
    .use(docsRoutes(() => document!))
    .use(metaRoutes(kernel, VERSION))
    .use(organizationRoutes(kernel))
    .use(tokenRoutes(kernel))
    // a customer's drafts embed it live: its changes are theirs (docs/api.md#embedded-data)
    .use(customerRoutes(kernel, touchCustomerDrafts))
    .use(invoiceRoutes(kernel))
    .use(interestRoutes(kernel))
    .use(vatRateRoutes(kernel))
    .use(webhookRoutes(kernel, runtime.secrets))
    .use(supplierRoutes(kernel))
    .use(expenseRoutes(kernel))
    .use(receivedDocumentRoutes(kernel))
    .use(accountRoutes(kernel))
    .use(bankAccountRoutes(kernel))
    .use(bankingRoutes(kernel))
    .use(paymentRunRoutes(kernel))
    .use(journalRoutes(kernel))
    .use(expenseCategoryRoutes(kernel))
    .use(fiscalYearRoutes(kernel))
    .use(reportRoutes(kernel))
    .use(vatReturnRoutes(kernel))
    .use(listingRoutes(kernel))
    .use(auditRoutes(kernel))
    .use(eventRoutes(kernel, EVENT_DATA, { "invoice.reminder_sent": INVOICE_WITH_REMINDER }))
    .use(recurringInvoiceRoutes(kernel))
    .use(reminderRoutes(kernel));
  kernel.setRouteTable(app.routes);
  // now, before the app answers anything: answering changes the route table's schemas
  document = servedDocument(app.routes, VERSION);
  return app;
}

export type App = ReturnType<typeof createApp>;
