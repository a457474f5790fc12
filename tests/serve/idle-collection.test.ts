/**
 * A thread collects its garbage once it is quiet after answering requests, and never while
 * requests keep coming (server/http/idle-collection.ts).
 */
import { expect, test } from "bun:test";
import { idleCollector } from "../../server/http/idle-collection.ts";

test("no collection while requests keep coming; one once a tick passes with none; none again while idle; one after the next burst", () => {
  let answered = 0;
  let collections = 0;
  const { tick } = idleCollector(() => answered, () => collections++);
  for (let i = 0; i < 6; i++) {
    answered += 3; // busy: requests answered between every two ticks
    tick();
  }
  expect(collections).toBe(0);
  tick(); // the first whole tick with no request
  expect(collections).toBe(1);
  tick();
  tick(); // still quiet: nothing new to give back
  expect(collections).toBe(1);
  answered += 1;
  tick(); // a request since the last tick: busy again
  expect(collections).toBe(1);
  tick();
  expect(collections).toBe(2);
});

test("a thread that answered nothing since it started never collects", () => {
  let collections = 0;
  const { tick } = idleCollector(() => 7, () => collections++);
  for (let i = 0; i < 5; i++) tick();
  expect(collections).toBe(0);
});

test("the server's threads count what they answer: the counter the collector reads moves with each request", async () => {
  const { createThreadMetrics } = await import("../../server/metrics/thread.ts");
  const metrics = createThreadMetrics();
  expect(metrics.answered()).toBe(0);
  metrics.request("GET", "/api/v1/invoices", 200, 0.001);
  metrics.request("GET", "/api/v1/invoices", 401, 0.001);
  expect(metrics.answered()).toBe(2);
});
