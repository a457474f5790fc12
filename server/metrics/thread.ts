/**
 * What one thread counts for `/metrics`: its requests by route and status, their latency, and its
 * rate-limit refusals, in plain counters of its own (the thread's app counts into them:
 * `createApp(runtime, metrics)`). The first thread of a server asks the others for their
 * snapshots when it is scraped and adds them up (server/metrics/server.ts): totals across
 * threads, with no lock and no counter shared between them. A snapshot is what prom-client's
 * `getMetricsAsJSON()` gives, so prom-client's aggregator adds them; but only the scraping thread
 * loads prom-client: every other HTTP thread counts without it (a library and its dependencies
 * less on each thread's heap).
 */

/** Seconds; from a cached read (a millisecond) to a large PDF or a slow write turn. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route of a request no route matched: its raw path would make a label per URL a client sends. */
export const UNMATCHED_ROUTE = "(unmatched)";

type Labels = Record<string, string | number>;
/** One metric as prom-client's `getMetricsAsJSON()` writes it. */
export type MetricJson = { name: string; help: string; type: "counter" | "histogram"; aggregator: "sum"; values: { value: number; labels: Labels; metricName?: string }[] };

export type ThreadMetrics = {
  /** the thread's counters, as prom-client's JSON */
  snapshot(): MetricJson[];
  /** one answered request; `route` the matched pattern (`/api/v1/invoices/:id`) */
  request(method: string, route: string, status: number, seconds: number): void;
  rateLimited(): void;
  /** how many requests the thread has answered */
  answered(): number;
};

const REQUESTS = { name: "kontor_http_requests_total", help: "HTTP requests answered, by method, matched route and status" };
const LATENCY = { name: "kontor_http_request_duration_seconds", help: "Time from a request's arrival to its answer, by method and matched route" };
const REFUSED = { name: "kontor_rate_limit_refusals_total", help: "Requests refused with 429 by the rate limit" };

export function createThreadMetrics(): ThreadMetrics {
  /** "method route status" → count */
  const requests = new Map<string, { labels: Labels; count: number }>();
  /** "method route" → per-bucket counts (not cumulative), sum and count */
  const latency = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  let refused = 0;
  let answered = 0;
  return {
    answered: () => answered,
    request(method, route, status, seconds) {
      answered++;
      const key = `${method} ${route} ${status}`;
      const counted = requests.get(key);
      if (counted) counted.count++;
      else requests.set(key, { labels: { method, route, status: String(status) }, count: 1 });
      const timedKey = `${method} ${route}`;
      let timed = latency.get(timedKey);
      if (!timed) latency.set(timedKey, (timed = { labels: { method, route }, buckets: new Array(LATENCY_BUCKETS.length).fill(0), sum: 0, count: 0 }));
      const bucket = LATENCY_BUCKETS.findIndex((le) => seconds <= le);
      if (bucket !== -1) timed.buckets[bucket]!++;
      timed.sum += seconds;
      timed.count++;
    },
    rateLimited: () => void refused++,
    snapshot() {
      const histogram: MetricJson["values"] = [];
      for (const { labels, buckets, sum, count } of latency.values()) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += buckets[i]!;
          histogram.push({ value: cumulative, labels: { le, ...labels }, metricName: `${LATENCY.name}_bucket` });
        });
        histogram.push({ value: count, labels: { le: "+Inf", ...labels }, metricName: `${LATENCY.name}_bucket` });
        histogram.push({ value: sum, labels, metricName: `${LATENCY.name}_sum` });
        histogram.push({ value: count, labels, metricName: `${LATENCY.name}_count` });
      }
      return [
        { ...REQUESTS, type: "counter", aggregator: "sum", values: [...requests.values()].map(({ labels, count }) => ({ value: count, labels })) },
        { ...LATENCY, type: "histogram", aggregator: "sum", values: histogram },
        { ...REFUSED, type: "counter", aggregator: "sum", values: [{ value: refused, labels: {} }] },
      ];
    },
  };
}
