/**
 * A connector's import against the real `kontor serve` (issue 28, items 4 and 5): 300 customers
 * and 1,000 invoices, issued, three ways — one request per resource and per finalize, one per
 * resource with `finalize: true`, and batches of 100 — each on a fresh server with the rate limit
 * raised out of the way. Prints the requests and seconds of each, and the time the same requests
 * take at the default limit (60 a minute), computed from the count, not waited for. Then the
 * bytes of a page of 100 invoices, plain and gzip-compressed, and of its 304.
 *
 *   bun bench/connector-import.ts [--customers 300] [--invoices 1000]
 */
import { startFreshServer, type FreshServer } from "./fresh-server.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(argv[argv.indexOf(name) + 1] ?? fallback) || fallback;
const CUSTOMERS = option("--customers", 300);
const INVOICES = option("--invoices", 1000);
const BATCH = 100;
const DEFAULT_RATE_LIMIT = 60;

type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

function client(server: FreshServer): Api & { requests: number } {
  const api = (async (method, path, body, headers = {}) => {
    api.requests++;
    const r = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }) as Api & { requests: number };
  api.requests = 0;
  return api;
}

const customer = (i: number) => ({ name: `Shop Customer ${i}`, email: `customer${i}@example.test`, city: "Gent", country: "BE" });
const order = (i: number, customerId: string) => ({
  customer_id: customerId,
  issue_date: "2026-03-02",
  order_reference: `ORDER-${i}`,
  lines: [
    { description: "Coffee beans, 1 kg", quantity: String(1 + (i % 3)), unit_price: "18.50" },
    { description: "Shipping", quantity: "1", unit_price: "6.95" },
  ],
});

function must(ok: boolean, what: string, body: unknown) {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(body).slice(0, 500)}`);
}

/** The organisation a fresh server starts with, given what an issued invoice needs (its PDF's seller and payee). */
async function readyOrganisation(api: Api) {
  const r = await api("PUT", "/api/v1/organization", { address: "Veldstraat 1", postal_code: "9000", city: "Gent", vat_number: "BE0417497106" });
  must(r.status === 200, "PUT /organization", r.body);
}

type Way = { name: string; run: (api: Api) => Promise<void> };

const WAYS: Way[] = [
  {
    name: "one request per resource, then one per finalize",
    async run(api) {
      const ids: string[] = [];
      for (let i = 0; i < CUSTOMERS; i++) {
        const r = await api("POST", "/api/v1/customers", customer(i));
        must(r.status === 201, "POST /customers", r.body);
        ids.push(r.body.data.id);
      }
      for (let i = 0; i < INVOICES; i++) {
        const created = await api("POST", "/api/v1/invoices", order(i, ids[i % ids.length]!));
        must(created.status === 201, "POST /invoices", created.body);
        const finalized = await api("POST", `/api/v1/invoices/${created.body.data.id}/finalize`);
        must(finalized.status === 200, "POST /invoices/{id}/finalize", finalized.body);
      }
    },
  },
  {
    name: "one request per resource, finalize: true",
    async run(api) {
      const ids: string[] = [];
      for (let i = 0; i < CUSTOMERS; i++) {
        const r = await api("POST", "/api/v1/customers", customer(i));
        must(r.status === 201, "POST /customers", r.body);
        ids.push(r.body.data.id);
      }
      for (let i = 0; i < INVOICES; i++) {
        const r = await api("POST", "/api/v1/invoices", { ...order(i, ids[i % ids.length]!), finalize: true });
        must(r.status === 201 && r.body.data.status === "finalized", "POST /invoices finalize: true", r.body);
      }
    },
  },
  {
    name: `batches of ${BATCH}, finalize: true`,
    async run(api) {
      const ids: string[] = [];
      for (let from = 0; from < CUSTOMERS; from += BATCH) {
        const items = Array.from({ length: Math.min(BATCH, CUSTOMERS - from) }, (_, k) => customer(from + k));
        const r = await api("POST", "/api/v1/customers/batch", { items }, { "idempotency-key": `customers-${from}` });
        must(r.status === 200 && r.body.data.every((d: { status: number }) => d.status === 201), "POST /customers/batch", r.body);
        ids.push(...r.body.data.map((d: { data: { id: string } }) => d.data.id));
      }
      for (let from = 0; from < INVOICES; from += BATCH) {
        const items = Array.from({ length: Math.min(BATCH, INVOICES - from) }, (_, k) => ({ ...order(from + k, ids[(from + k) % ids.length]!), finalize: true }));
        const r = await api("POST", "/api/v1/invoices/batch", { items }, { "idempotency-key": `invoices-${from}` });
        must(r.status === 200 && r.body.data.every((d: { status: number }) => d.status === 201), "POST /invoices/batch", r.body);
      }
    },
  },
];

/** Minutes at `limit` a minute: the first window's budget at once, then a window per `limit` more. */
const minutesAt = (requests: number, limit: number) => Math.max(0, Math.ceil(requests / limit) - 1);

async function main() {
  console.log(`Importing ${CUSTOMERS} customers and ${INVOICES} invoices (issued) into a fresh kontor serve, sequentially, rate limit raised\n`);
  console.log(`| way | requests | seconds | at ${DEFAULT_RATE_LIMIT}/min (computed) |\n|---|---:|---:|---:|`);
  let pageServer: FreshServer | null = null;
  for (const [n, way] of WAYS.entries()) {
    // one request line each would drown the figures
    const server = await startFreshServer({ KONTOR_LOG_LEVEL: "warn" }, { worker: false });
    try {
      const api = client(server);
      await readyOrganisation(api);
      const setup = api.requests;
      const t0 = performance.now();
      await way.run(api);
      const seconds = (performance.now() - t0) / 1000;
      const requests = api.requests - setup;
      console.log(`| ${way.name} | ${requests.toLocaleString("en")} | ${seconds.toFixed(1)} | ${minutesAt(requests, DEFAULT_RATE_LIMIT)} min |`);
    } finally {
      if (n === WAYS.length - 1) pageServer = server;
      else await server.stop();
    }
  }

  // the last server holds the import: a page of 100 invoices, as a sync reads it
  const server = pageServer!;
  try {
    const page = (headers: Record<string, string>) =>
      // decompress: false, so the bytes counted are those on the wire
      fetch(`${server.url}/api/v1/invoices?per_page=100`, { headers: { authorization: `Bearer ${server.token}`, ...headers }, decompress: false } as RequestInit);
    const plain = await page({ "accept-encoding": "identity" });
    const plainBytes = (await plain.arrayBuffer()).byteLength;
    const t0 = performance.now();
    const gzipped = await page({ "accept-encoding": "gzip" });
    const gzipBytes = (await gzipped.arrayBuffer()).byteLength;
    const gzipMs = performance.now() - t0;
    const notModified = await page({ "accept-encoding": "gzip", "if-none-match": gzipped.headers.get("etag")! });
    const notModifiedBytes = (await notModified.arrayBuffer()).byteLength;
    console.log(`\nA page of 100 invoices (GET /api/v1/invoices?per_page=100):\n`);
    console.log(`| answer | status | body bytes |\n|---|---:|---:|`);
    console.log(`| plain | ${plain.status} | ${plainBytes.toLocaleString("en")} |`);
    console.log(`| Accept-Encoding: gzip (${gzipped.headers.get("content-encoding")}, ${gzipMs.toFixed(0)} ms) | ${gzipped.status} | ${gzipBytes.toLocaleString("en")} (${((100 * gzipBytes) / plainBytes).toFixed(1)} %) |`);
    console.log(`| If-None-Match: its ETag | ${notModified.status} | ${notModifiedBytes} |`);
  } finally {
    await server.stop();
  }
}

await main();
