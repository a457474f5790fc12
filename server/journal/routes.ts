import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { DateString, IdParams, ResponseSchema, withoutDefault, Wrapped } from "../lib/schemas.ts";
import { csvResponse, download } from "../http/csv.ts";
import { EXPORT_FORMATS, exportFilename, exportJournal } from "./export.ts";
import { JournalModel } from "../ledger/model.ts";
import { journalList, journalService } from "./service.ts";

const tags = ["Journal"];
/** What one export request may hold: about 30 MB of Beancount, built in a few seconds. */
const MAX_EXPORT_ENTRIES = 100_000;
const Entry = Wrapped(JournalModel.entry);
const JournalExport = ResponseSchema(
  t.String({ description: "format=csv: a row per line; format=beancount: a Beancount ledger", "x-media-type": "text/csv", "x-alternatives": { "text/plain": "Beancount (format=beancount)" } }),
);

export const journalRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/journal-entries" })
    .use(kernel)
    .get("", ({ scope, query, url }) => journalService.list(scope, query, url), {
      ability: "accounting.view",
      query: listQuerySchema(journalList),
      response: { 200: listResponse(JournalModel.entry), ...errors(422) },
      detail: { tags, summary: "List journal entries, with their lines" },
    })
    .get(
      "/export",
      async ({ scope, query }) => {
        const body = await exportJournal(scope, query.format, query, { maxEntries: MAX_EXPORT_ENTRIES });
        const filename = exportFilename(query.format, scope.org.id);
        if (query.format === "csv") return csvResponse(filename, body);
        return download(filename, body, "text/plain; charset=utf-8");
      },
      {
        ability: "accounting.view",
        query: t.Object(
          {
            format: withoutDefault(t.UnionEnum([...EXPORT_FORMATS], { description: "csv or beancount" })),
            from: t.Optional(t.String({ ...DateString, description: "First day; what was posted before is carried in as opening balances (beancount)" })),
            to: t.Optional(t.String({ ...DateString, description: "Last day; default today" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: JournalExport, ...errors(422) },
        detail: {
          tags,
          summary:
            "Export the journal for an accountant: CSV, or a Beancount file that bean-check accepts, ending with balance assertions equal to the trial balance; at most 100,000 entries a request (422 on from otherwise)",
        },
      },
    )
    .get("/:id", async ({ scope, params }) => ({ data: await journalService.get(scope, params.id) }), {
      ability: "accounting.view",
      params: IdParams,
      response: { 200: Entry, ...errors(404) },
      detail: { tags, summary: "Show a journal entry" },
    })
    .post(
      "",
      ({ scope, body, set, once }) => once(async () => {
        const entry = await journalService.create(scope, body);
        return created(set, `/api/v1/journal-entries/${entry.id}`, entry);
      }),
      {
        ability: "accounting.create",
        body: JournalModel.create,
        response: { 201: Entry, ...errors(409, 422) },
        detail: { tags, summary: "Post a manual entry: balanced, at least two lines, accounts of the organisation (409 in a closed fiscal year)" },
      },
    )
    .post(
      "/:id/reverse",
      ({ scope, params, body, set, once }) => once(async () => {
        const reversal = await journalService.reverse(scope, params.id, body);
        return created(set, `/api/v1/journal-entries/${reversal.id}`, reversal);
      }),
      {
        ability: "accounting.create",
        params: IdParams,
        body: t.Optional(JournalModel.reverse),
        response: { 201: Entry, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary:
            "Reverse a manual entry: 201 with the reversing entry (every debit a credit), dated as asked or as the entry; an automatic entry is corrected by its document (409)",
        },
      },
    );
