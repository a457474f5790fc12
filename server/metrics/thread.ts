/**
 * What one thread counts for `/metrics`: its requests by route and status, their latency, and its
 * rate-limit refusals, in a prom-client registry of its own (the thread's app counts into it:
 * `createApp(runtime, metrics)`). The first thread of a server asks the others for their
 * registries' JSON when it is scraped and adds them up (server/metrics/server.ts): totals across
 * threads, with no lock and no counter shared between them. Only a thread that serves HTTP
 * creates one: a CLI command or the worker never loads prom-client.
 */
import { Counter, Histogram, Registry } from "prom-client";

/** Seconds; from a cached read (a millisecond) to a large PDF or a slow write turn. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route of a request no route matched: its raw path would make a label per URL a client sends. */
export const UNMATCHED_ROUTE = "(unmatched)";

export type ThreadMetrics = {
  readonly registry: Registry;
  /** one answered request; `route` the matched pattern (`/api/v1/invoices/:id`) */
  request(method: string, route: string, status: number, seconds: number): void;
  rateLimited(): void;
};

export function createThreadMetrics(): ThreadMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: "kontor_http_requests_total",
    help: "HTTP requests answered, by method, matched route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "kontor_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method and matched route",
    labelNames: ["method", "route"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const refused = new Counter({
    name: "kontor_rate_limit_refusals_total",
    help: "Requests refused with 429 by the rate limit",
    registers: [registry],
  });
  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    rateLimited: () => refused.inc(),
  };
}
