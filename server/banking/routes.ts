import { Elysia, t } from "elysia";
import { documentBody, documentOf, type Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, NoFields, ResponseSchema, Wrapped } from "../lib/schemas.ts";
import { MAX_DOCUMENT_BYTES } from "../inbound/decode.ts";
import { BankingModel } from "./model.ts";
import { bankTransactionList } from "./read.ts";
import { bookLine, unbookLine } from "./commands/book.ts";
import { ignoreLine } from "./commands/ignore.ts";
import { importStatement } from "./commands/import-statement.ts";
import { matchLine } from "./commands/match.ts";
import { reclassifyLine } from "./commands/reclassify.ts";
import { unmatchLine } from "./commands/unmatch.ts";
import { listBankTransactions, showBankTransactionById } from "./queries.ts";

const BankTransaction = Wrapped(BankingModel.transaction);
const StatementImportResponse = ResponseSchema(
  t.Object({ data: BankingModel.statement, statements: t.Array(BankingModel.statementImport, { description: "Every statement of the file, in the file's order" }) }),
);

export const bankingRoutes = (kernel: Kernel) =>
  new Elysia()
    .use(kernel)
    .post(
      "/api/v1/bank-accounts/:id/statements",
      // the parse holds a multiple of the file in memory: one of the server's import slots (503 when none frees within 10 s)
      ({ scope, params, body, set, once, importSlots }) =>
        importSlots.run(() =>
          once(async () => {
            const { created, statement, statements } = await importStatement(scope, params.id, () => documentOf(body));
            set.status = created ? 201 : 200;
            if (created) set.headers["location"] = `/api/v1/bank-transactions?filter[bank_account_id]=${params.id}`;
            return { data: statement, statements };
          }),
        ),
      {
        ability: "banking.import",
        params: IdParams,
        body: documentBody({
          mediaTypes: ["application/xml", "text/xml", "text/plain", "application/octet-stream", "application/zip", "application/x-zip-compressed"],
          maxBytes: MAX_DOCUMENT_BYTES,
          description:
            "An ISO 20022 camt.053 file (XML, camt.053.001.02 to .13), a Belgian CODA file (text, usually latin-1), or a ZIP archive of such files " +
            "(at most 100 files, 50 MB uncompressed); one or several statements, at least one of them of this account",
        }),
        response: { 200: StatementImportResponse, 201: StatementImportResponse, ...errors(404, 409, 422, 503) },
        detail: {
          tags: ["Bank accounts"],
          summary: "Import bank statements (CAMT.053, CODA, or a ZIP of them): 201 when lines were added; 200 when all was imported before (nothing added)",
          description:
            "`data` is this account's (latest) statement of the file, with its lines; `statements` says for every statement of the file whether it was " +
            "imported, already imported, or skipped and why: statements of the organisation's other bank accounts (by IBAN) are imported into those, " +
            "statements of accounts it does not hold are skipped; each account's statements are imported in date order. " +
            "A statement's currency must be its bank account's, its opening balance the closing balance of the account's last " +
            "imported statement, and its lines must add up to its closing balance: else a 422 naming the figures and the difference, and nothing of the file is imported. " +
            "The same statement again adds nothing (200); the same statement id with other content is a 409. Credit lines whose reference " +
            "is an open invoice's payment_reference (for at most its amount due) record that payment; see the matching rules in docs/banking.md. " +
            "At most KONTOR_IMPORT_CONCURRENCY files (default 2) are parsed at once by the server; a further upload waits up to 10 s, then is a 503 with Retry-After.",
        },
      },
    )
    .group("/api/v1/bank-transactions", (group) =>
      group
        .get("", ({ scope, query, url }) => listBankTransactions(scope, query, url), {
          ability: "banking.view",
          query: listQuerySchema(bankTransactionList),
          response: { 200: listResponse(BankingModel.transaction), ...errors(422) },
          detail: { tags: ["Bank transactions"], summary: "List bank transactions (search: counterparty, IBAN, communication, reference)" },
        })
        .get("/:id", async ({ scope, params }) => ({ data: await showBankTransactionById(scope, params.id) }), {
          ability: "banking.view",
          params: IdParams,
          response: { 200: BankTransaction, ...errors(404) },
          detail: { tags: ["Bank transactions"], summary: "Show a bank transaction" },
        })
        .post("/:id/match", ({ scope, params, body, once }) => once(async () => ({ data: await matchLine(scope, params.id, body) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: BankingModel.match,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: {
            tags: ["Bank transactions"],
            summary: "Match an unmatched or partially matched line: with one invoice, credit note or expense, or with allocations to several documents and accounts",
            description:
              "Each document allocation records its payment (or takes over one recorded by hand for the same money); each account allocation posts an entry. " +
              "The money moves out of the suspense account it waited in. What is not allocated stays in suspense: the line is partially_matched until " +
              "its allocations add up to its amount (matched). 409 when the line is matched, booked or ignored; 422 naming `allocations.{i}.amount`, " +
              "`allocations.{i}.invoice_id` … for a refused allocation (see docs/banking.md#suspense).",
          },
        })
        .post("/:id/reclassify", ({ scope, params, body, once }) => once(async () => ({ data: await reclassifyLine(scope, params.id, body) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: BankingModel.reclassify,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: {
            tags: ["Bank transactions"],
            summary: "Replace what holds a line (its allocations, its booking, an ignore) by new allocations, in one transaction",
            description:
              "The line's allocations are undone as by unmatch, a booking reversed as by unbook (a transfer between own accounts: 409, unbook it first), " +
              "then the allocations are made from suspense as by match. Refused allocations (422) leave everything as it was.",
          },
        })
        .post("/:id/unmatch", ({ scope, params, once }) => once(async () => ({ data: await unmatchLine(scope, params.id) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: NoFields,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: {
            tags: ["Bank transactions"],
            summary: "Undo every allocation of a line (payments they recorded are deleted and their postings reversed) or an ignore: the whole line is back in suspense",
          },
        })
        .post("/:id/book", ({ scope, params, body, once }) => once(async () => ({ data: await bookLine(scope, params.id, body) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: BankingModel.book,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: {
            tags: ["Bank transactions"],
            summary: "Book an unmatched line to an account of the chart (a fee, interest: with its VAT) or to another own bank account (a transfer, paired with that account's line)",
          },
        })
        .post("/:id/unbook", ({ scope, params, once }) => once(async () => ({ data: await unbookLine(scope, params.id) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: NoFields,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: { tags: ["Bank transactions"], summary: "Undo a booking: its entry is reversed (both lines of a transfer are unbooked) and the line is unmatched again" },
        })
        .post("/:id/ignore", ({ scope, params, once }) => once(async () => ({ data: await ignoreLine(scope, params.id) })), {
          ability: "banking.reconcile",
          params: IdParams,
          body: NoFields,
          response: { 200: BankTransaction, ...errors(404, 409, 422) },
          detail: {
            tags: ["Bank transactions"],
            summary: "Take an unmatched line off the list of lines to look at: its money stays in the suspense account (nothing is posted)",
          },
        }),
    );
