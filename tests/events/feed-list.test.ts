/**
 * The events feed pages like every list (docs/events.md#reading-it): `cursor=` starts a walk,
 * `meta` and `links` have the lists' fields, errors are keyed like theirs (`filter.type`), and
 * `per_page` takes integers only, there and on every list. An `after` whose following events
 * were pruned is a 410 `events_expired`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { pruneEvents } from "../../server/changes/feed.ts";
import { createTestEnv } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
const sql = rawSql(env.db);
afterAll(() => env.close());

const ok = async (method: string, path: string, token: string, body?: unknown) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
};
const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

describe("the feed as a list", () => {
  test("cursor= starts a walk; meta and links as every list's, counted by hand", async () => {
    const { token } = await env.newOrg("Walk BV");
    for (const name of ["A", "B", "C", "D", "E"]) await ok("POST", "/api/v1/customers", token, { name });

    // 5 events, 2 a page: pages of 2, 2 and 1
    const first = await ok("GET", "/api/v1/events?per_page=2&cursor=", token);
    expect(first.data.map((e: any) => e.id)).toEqual(["1", "2"]);
    expect(first.meta).toEqual({ current_page: 1, from: 1, last_page: 3, per_page: 2, to: 2, total: 5, next_cursor: "2", newest_id: "5" });
    expect(first.links.prev).toBeNull();
    expect(new URL(first.links.next).searchParams.get("cursor")).toBe("2");
    expect(new URL(first.links.first).searchParams.get("cursor")).toBe("");
    // the last page holds the 5th event: it starts after the 4th
    expect(new URL(first.links.last).searchParams.get("cursor")).toBe("4");
    const last = await ok("GET", pathOf(first.links.last), token);
    expect(last.data.map((e: any) => e.id)).toEqual(["5"]);
    expect(last.meta).toMatchObject({ current_page: 3, from: 5, to: 5, last_page: 3, next_cursor: null });

    const second = await ok("GET", pathOf(first.links.next), token);
    expect(second.data.map((e: any) => e.id)).toEqual(["3", "4"]);
    expect(second.meta).toEqual({ current_page: 2, from: 3, last_page: 3, per_page: 2, to: 4, total: 5, next_cursor: "4", newest_id: "5" });
    expect(pathOf(second.links.first)).toBe(pathOf(first.links.first));

    // a filter counts only what it matches
    await ok("PUT", `/api/v1/customers/${first.data[0].resource.id}`, token, { city: "Gent" });
    const updated = await ok("GET", "/api/v1/events?cursor=&filter[type]=customer.updated", token);
    expect(updated.meta).toMatchObject({ total: 1, from: 1, to: 1, last_page: 1 });
    // no position at all is the start too
    expect((await ok("GET", "/api/v1/events?per_page=100", token)).meta.total).toBe(6);
  });

  test("errors are keyed as every list's: filter.type", async () => {
    const { token } = await env.newOrg("Keys BV");
    const r = await env.api("GET", "/api/v1/events?filter[type]=invoice", undefined, token);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["filter.type"]);
    expect(r.body.errors["filter.type"][0]).toContain("invoice.*");
  });

  test("per_page takes integers only, on the feed and on every list", async () => {
    const { token } = await env.newOrg("Integers BV");
    for (const path of ["/api/v1/events", "/api/v1/customers", "/api/v1/invoices", "/api/v1/audit-log"]) {
      for (const bad of ["1e2", "0x64", "100.0", "1.5", " 100"]) {
        const r = await env.api("GET", `${path}?per_page=${encodeURIComponent(bad)}`, undefined, token);
        expect(r.status, `${path} per_page=${bad}`).toBe(422);
        expect(r.body.errors).toEqual({ per_page: ["The per_page field must be an integer."] });
      }
      expect((await env.api("GET", `${path}?per_page=100`, undefined, token)).status).toBe(200);
      expect((await env.api("GET", `${path}?per_page=-1`, undefined, token)).body.errors.per_page[0]).toBe("The per_page field must be between 1 and 100.");
    }
    expect((await env.api("GET", "/api/v1/customers?page=1e1", undefined, token)).body.errors).toEqual({ page: ["The page field must be an integer."] });
  });
});

describe("pruned events", () => {
  test("after=0 once the first events were pruned, or an after before the newest pruned, is a 410 events_expired that says how to resync", async () => {
    const { org, token } = await env.newOrg("Pruned BV");
    for (const name of ["A", "B", "C"]) await ok("POST", "/api/v1/customers", token, { name });
    expect((await env.api("GET", "/api/v1/events?after=0", undefined, token)).status).toBe(200);
    // events 1 and 2 age past the retention
    await sql.run("UPDATE events SET created_at = '2020-01-01T00:00:00.000000Z' WHERE organization_id = ? AND seq <= 2", org.id);
    expect(await pruneEvents(env.db, 30)).toBe(2);

    for (const query of ["after=0", "after=1", "cursor=1"]) {
      const r = await env.api("GET", `/api/v1/events?${query}`, undefined, token);
      expect(r.status, query).toBe(410);
      expect(r.body.code).toBe("events_expired");
      expect(r.body.message).toContain("events up to 2 were removed");
      expect(r.body.message).toContain("Copy what you need again through the lists");
    }
    // after the newest pruned id nothing is missing; a walk from the start reads what is kept
    expect((await ok("GET", "/api/v1/events?after=2", token)).data.map((e: any) => e.id)).toEqual(["3"]);
    expect((await ok("GET", "/api/v1/events?cursor=", token)).data.map((e: any) => e.id)).toEqual(["3"]);
    expect((await env.api("GET", "/api/v1/events/1", undefined, token)).status).toBe(404);
    // the counter outlives the prune: the next event is 4, never a reused id
    await ok("POST", "/api/v1/customers", token, { name: "D" });
    expect((await ok("GET", "/api/v1/events?after=3", token)).data.map((e: any) => e.id)).toEqual(["4"]);
  });

  test("when every event was pruned, an empty walk still names the newest id, where a fresh copy resumes without a 410", async () => {
    const { org, token } = await env.newOrg("All Pruned BV");
    const empty = await env.api("GET", "/api/v1/events?cursor=", undefined, token);
    expect(empty.body.meta.newest_id).toBe("0");
    for (const name of ["A", "B"]) await ok("POST", "/api/v1/customers", token, { name });
    await sql.run("UPDATE events SET created_at = '2020-01-01T00:00:00.000000Z' WHERE organization_id = ?", org.id);
    expect(await pruneEvents(env.db, 30)).toBe(2);
    const walk = await env.api("GET", "/api/v1/events?cursor=", undefined, token);
    expect(walk.status).toBe(200);
    expect(walk.body.data).toEqual([]);
    // two events were made (ids 1 and 2), both pruned: the newest is 2
    expect(walk.body.meta.newest_id).toBe("2");
    expect((await env.api("GET", "/api/v1/events?after=0", undefined, token)).status).toBe(410);
    expect((await env.api("GET", `/api/v1/events?after=${walk.body.meta.newest_id}`, undefined, token)).status).toBe(200);
  });
});
