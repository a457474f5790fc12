/**
 * The requests of the README's "Five minutes with the API", of docs/api.md and of the payments
 * in docs/invoicing.md, written as an integrator writes them with a client generated from the
 * served document (openapi-typescript + openapi-fetch). tests/openapi/openapi-served.test.ts generates
 * `./kontor-api.ts` from the document a real server serves, type-checks this file with
 * `tsc --strict` against it, and runs it against that server. Not type-checked with the rest of
 * the repository (tsconfig.json excludes this folder): the types exist only once generated.
 */
import createClient from "openapi-fetch";
import type { paths } from "./kontor-api.ts";

/** What the examples read back, for the test to compare with what the guides say. */
export type Seen = { status: string; total: string; number: string; payment_reference: string; paid: string; pdf: string; erpTokenType: string; auditAction: string };

export async function readmeExamples(baseUrl: string, token: string): Promise<Seen> {
  const kontor = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const must = <T>(answer: { data?: T; error?: unknown; response: Response }): T => {
    if (answer.data === undefined) throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
    return answer.data;
  };

  // README: without a token
  must(await kontor.GET("/api/v1"));
  const health = must(await kontor.GET("/health"));
  if (health.status !== "ok") throw new Error(`health: ${health.status}`);

  // README: a customer, the 21 % rate, a draft invoice with its lines, finalized, its PDF
  const customer = must(
    await kontor.POST("/api/v1/customers", {
      body: { name: "Brouwerij De Koninck NV", email: "billing@dekoninck.be", country: "BE", vat_number: "BE0417497106" },
    }),
  ).data;
  const rate = must(await kontor.GET("/api/v1/vat-rates")).data.find((r) => r.rate === "21.00");
  if (!rate) throw new Error("no 21 % rate");
  const draft = must(
    await kontor.POST("/api/v1/invoices", {
      body: {
        customer_id: customer.id,
        issue_date: "2026-11-23",
        lines: [
          { description: "Consulting", quantity: "12.5", unit_price: "95.00", vat_rate_id: rate.id },
          { description: "Travel", quantity: 1, unit_price: "60.00", vat_rate_id: rate.id },
        ],
      },
    }),
  ).data;
  const id = draft.id;
  const finalized = must(await kontor.POST("/api/v1/invoices/{id}/finalize", { params: { path: { id } } })).data;
  const pdf = await kontor.GET("/api/v1/invoices/{id}/pdf", { params: { path: { id } }, parseAs: "arrayBuffer" });
  const pdfStart = new TextDecoder().decode(must(pdf).slice(0, 5));

  // docs/invoicing.md: two payments, the first with an Idempotency-Key; payment_method left to the server
  must(
    await kontor.POST("/api/v1/invoices/{id}/record-payment", {
      params: { path: { id }, header: { "Idempotency-Key": `pay-${id}-1` } },
      body: { amount: "1000.00", payment_date: "2026-11-30" },
    }),
  );
  const paid = must(
    await kontor.POST("/api/v1/invoices/{id}/record-payment", {
      params: { path: { id } },
      body: { amount: "509.48", payment_date: "2026-12-05", reference: finalized.payment_reference ?? undefined },
    }),
  ).data;

  // docs/api.md: abilities, a list with sort, filter and search, an ERP token, revoked with what it minted
  must(await kontor.GET("/api/v1/meta/abilities"));
  must(await kontor.GET("/api/v1/customers", { params: { query: { sort: "-created_at", per_page: 50, "filter[country]": "BE", search: "acme" } } }));
  const refused = await kontor.POST("/api/v1/customers", {
    // @ts-expect-error a field the endpoint does not take: the generated types refuse it before the server does (422)
    body: { nmae: "Acme" },
  });
  if (refused.response.status !== 422 || !refused.error) throw new Error(`nmae: ${refused.response.status}`);
  const erp = must(
    await kontor.POST("/api/v1/org-tokens", { body: { name: "erp-sync", abilities: ["contacts.view", "invoicing.view"], expires_in_days: 90 } }),
  );
  const erpClient = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${erp.token}` } });
  must(await erpClient.GET("/api/v1/customers"));
  const forbidden = await erpClient.GET("/api/v1/expenses");
  if (forbidden.response.status !== 403) throw new Error(`expenses with the ERP token: ${forbidden.response.status}`);
  const revoked = await kontor.DELETE("/api/v1/org-tokens/{id}", { params: { path: { id: erp.id }, query: { cascade: "true" } } });
  if (revoked.response.status !== 204) throw new Error(`revoke: ${revoked.response.status}`);
  must(await kontor.GET("/api/v1/org-tokens"));

  // docs/api.md: a retry with the same Idempotency-Key gets the first answer
  for (let attempt = 0; attempt < 2; attempt++) {
    must(await kontor.POST("/api/v1/customers", { params: { header: { "Idempotency-Key": "import-2026-11-23-row-17" } }, body: { name: "Bakkerij Alpha" } }));
  }
  const audit = must(
    await kontor.GET("/api/v1/audit-log", { params: { query: { "filter[resource_type]": "customer", "filter[action]": "customer.created" } } }),
  ).data;

  return {
    status: draft.status,
    total: draft.total,
    number: finalized.number ?? "",
    payment_reference: finalized.payment_reference ?? "",
    paid: paid.status,
    pdf: pdfStart,
    erpTokenType: erp.type,
    auditAction: audit[0]?.action ?? "",
  };
}
