/**
 * The events feed's retention prune (docs/events.md#when-events-are-gone), run by a real
 * `kontor worker` at its start: killed with SIGKILL between two of its batches and started
 * again, and two workers pruning one database at once. Either way every event older than the
 * retention is gone exactly once, every younger one stays, the organisation's pruned position
 * is the highest pruned id (an `after` before it is a 410, from it the feed misses nothing).
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv, startCli } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
const sql = rawSql(env.db);
const children: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  await env.close();
});

/** More than two of the prune's batches of 5,000. */
const OLD = 12_000;
const DAY = 86_400_000;

/**
 * An organisation with OLD events 40 days old (ids 1…OLD, drawn from its counter as emit draws
 * them) and then two made now through the API (ids OLD + 1 and OLD + 2).
 */
async function organisationWithOldEvents(name: string) {
  const { org, token } = await env.newOrg(name);
  expect(await count(org.id)).toBe(0);
  const createdAt = new Date(Date.now() - 40 * DAY).toISOString();
  await sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${OLD})
     INSERT INTO events (organization_id, type, resource_type, resource_id, data, seq, created_at)
     SELECT ?, 'customer.created', 'customer', 'old-' || i, '{}', i, ? FROM n`,
    org.id,
    createdAt,
  );
  await sql.run("INSERT INTO number_sequences (organization_id, kind, year, last_value) VALUES (?, 'event', 0, ?)", org.id, OLD);
  const recent: string[] = [];
  for (const customer of ["Recent 1", "Recent 2"]) {
    const r = await env.api("POST", "/api/v1/customers", { name: customer }, token);
    expect(r.status).toBe(201);
    recent.push(r.body.data.id);
  }
  return { org, token, recent };
}

const count = async (orgId: string, where = "1 = 1") =>
  (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM events WHERE organization_id = ? AND ${where}`, orgId))!.n;
const prunedPosition = async (orgId: string) =>
  (await sql.get<{ v: number }>("SELECT last_value AS v FROM number_sequences WHERE organization_id = ? AND kind = 'event_pruned'", orgId))?.v ?? 0;

const worker = (extra: Record<string, string> = {}) => startCli(["worker", "--db", env.config.dbPath], { KONTOR_EVENT_RETENTION_DAYS: "30", ...extra }, children);

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** Once it says it runs (its prune at start done, its signal handler set): SIGTERM, then its exit code and its log. */
async function stop(proc: Bun.Subprocess<"ignore", "pipe", "pipe">) {
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("Kontor worker running")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  // the line is printed just before the signal handler is set: a moment for it to be in place
  await Bun.sleep(300);
  proc.kill("SIGTERM");
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, err };
}

async function expectPrunedOnce(o: Awaited<ReturnType<typeof organisationWithOldEvents>>) {
  expect(await count(o.org.id, "resource_id LIKE 'old-%'")).toBe(0);
  expect(await count(o.org.id)).toBe(2);
  expect(await prunedPosition(o.org.id)).toBe(OLD);
  // from the last pruned id the feed misses nothing; one before it, the events it needs are gone
  const feed = await env.api("GET", `/api/v1/events?after=${OLD}`, undefined, o.token);
  expect(feed.status).toBe(200);
  expect(feed.body.data.map((e: any) => [e.id, e.resource.id])).toEqual([
    [String(OLD + 1), o.recent[0]],
    [String(OLD + 2), o.recent[1]],
  ]);
  const gone = await env.api("GET", `/api/v1/events?after=${OLD - 1}`, undefined, o.token);
  expect(gone.status).toBe(410);
  expect(gone.body.code).toBe("events_expired");
}

test("a worker killed between two batches of its prune, started again: every old event pruned, the young kept, the position the highest pruned id", async () => {
  const o = await organisationWithOldEvents("Killed Prune BV");
  // a pause after each batch of 5,000: killed once the first has committed, before the last
  const killed = worker({ KONTOR_TEST_PRUNE_PAUSE_MS: "2000" });
  await until("the first batch", async () => (await count(o.org.id)) < OLD + 2);
  killed.kill("SIGKILL");
  await killed.exited;
  const left = await count(o.org.id, "resource_id LIKE 'old-%'");
  // one batch (or two) committed, not all: the kill was in the middle
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThan(OLD);
  expect((OLD - left) % 5000).toBe(0);
  // what was pruned is recorded with it, in the same transaction
  expect(await prunedPosition(o.org.id)).toBeGreaterThanOrEqual(OLD - left);
  expect(await count(o.org.id, "resource_id NOT LIKE 'old-%'")).toBe(2);

  const again = worker();
  await until("the rest pruned", async () => (await count(o.org.id)) === 2);
  const { code, err } = await stop(again);
  expect(code, err).toBe(0);
  expect(err).not.toContain("a scheduled run failed");
  await expectPrunedOnce(o);
}, 60_000);

test("two workers pruning one database at once: each old event pruned once, neither fails, the position the highest pruned id", async () => {
  const o = await organisationWithOldEvents("Twice Pruned BV");
  // each pauses after a batch, so that their batches interleave
  const both = [worker({ KONTOR_TEST_PRUNE_PAUSE_MS: "100" }), worker({ KONTOR_TEST_PRUNE_PAUSE_MS: "100" })];
  await until("all old events pruned", async () => (await count(o.org.id)) === 2);
  for (const w of both) {
    const { code, err } = await stop(w);
    expect(code, err).toBe(0);
    expect(err).not.toContain("a scheduled run failed");
  }
  await expectPrunedOnce(o);
}, 60_000);
