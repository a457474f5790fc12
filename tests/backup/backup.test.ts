/**
 * Backup and restore (docs/operations.md, "Running Kontor in production"). While clients write through the
 * API of a real `kontor serve`, `kontor backup` runs again and again as its own process; each
 * backup is restored into a fresh data folder and served: every change acknowledged before that
 * backup began is there (and found by search), and the server answered writes while backups ran.
 * `kontor restore` refuses while a server holds the database and refuses a file that is not an
 * intact Kontor database, and keeps the database it replaces.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, serveProcess } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// backup and restore of the SQLite file (on PostgreSQL, kontor backup and restore point to its own tools: pg_dump, pg_restore)
sqliteOnly.describe("backup and restore of the SQLite file", () => {
  test("backups taken under load hold every acknowledged change, and each restores to a serving database", async () => {
    const db = join(dir, "live", "kontor.db");
    await runCli(["org", "create", "--name", "Backed Up", "--db", db]);
    const token = JSON.parse((await runCli(["token", "create", "--org", "Backed Up", "--organisation", "--name", "b", "--abilities", "*", "--json", "--db", db])).stdout).token;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const server = await serveProcess(["--db", db, "--no-worker"], { KONTOR_HTTP_THREADS: "2" });

    const acknowledged: string[] = []; // customer ids, in the order their 201 arrived
    let backupRunning = false;
    let acknowledgedDuringBackups = 0;
    let stop = false;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const r = await fetch(`${server.url}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: `Loaded ${n}-${i} Zyxbackup` }) });
        expect(r.status).toBe(201);
        acknowledged.push(((await r.json()) as any).data.id);
        if (backupRunning) acknowledgedDuringBackups++;
      }
    };
    const writers = Array.from({ length: 4 }, (_, n) => writer(n));

    const backups: { file: string; before: string[]; report: any }[] = [];
    try {
      for (let k = 0; k < 3; k++) {
        await Bun.sleep(300);
        const before = [...acknowledged];
        const file = join(dir, `backup-${k}.db`);
        backupRunning = true;
        const run = await runCli(["backup", "--to", file, "--db", db, "--json"]);
        backupRunning = false;
        expect(run.code, run.stderr).toBe(0);
        backups.push({ file, before, report: JSON.parse(run.stdout) });
      }
      // restore refuses to swap the database from under the running server
      const refused = await runCli(["restore", backups[0]!.file, "--db", db]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("kontor serve");
      expect(refused.stderr).toContain("stop it before restoring");
    } finally {
      stop = true;
      await Promise.all(writers);
      await server.stop();
    }
    expect(acknowledgedDuringBackups).toBeGreaterThan(0); // the server kept answering writes
    expect(backups[2]!.before.length).toBeGreaterThan(backups[0]!.before.length);

    for (const [k, { file, before, report }] of backups.entries()) {
      expect(report.path).toBe(file);
      expect(report.bytes).toBeGreaterThan(0);
      expect(report.last_change).toMatchObject({ action: "customer.created", resource_type: "customer" });
      expect(existsSync(`${file}-wal`)).toBe(false); // one self-contained file

      const restoredDb = join(dir, `restored-${k}`, "kontor.db");
      const restore = await runCli(["restore", file, "--db", restoredDb, "--json"]);
      expect(restore.code, restore.stderr).toBe(0);
      expect(JSON.parse(restore.stdout)).toMatchObject({ restored: restoredDb, replaced: null, last_change: report.last_change });
      const restored = await serveProcess(["--db", restoredDb, "--no-worker"]);
      try {
        const present = new Set<string>();
        for (let page = 1; ; page++) {
          const r = await fetch(`${restored.url}/api/v1/customers?per_page=100&page=${page}`, { headers });
          expect(r.status).toBe(200);
          const body = (await r.json()) as any;
          for (const c of body.data) present.add(c.id);
          if (page >= body.meta.last_page) break;
        }
        const missing = before.filter((id) => !present.has(id));
        expect(missing, `backup ${k}`).toEqual([]);
        // the search index came along with the rows it indexes
        const found = (await (await fetch(`${restored.url}/api/v1/customers?search=zyxbackup&per_page=1`, { headers })).json()) as any;
        expect(found.meta.total).toBe(present.size);
        // and the restored server takes writes
        expect((await fetch(`${restored.url}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: "After restore" }) })).status).toBe(201);
      } finally {
        await restored.stop();
      }
    }

    // restoring over a database keeps the replaced one aside, with its WAL
    const again = await runCli(["restore", backups[0]!.file, "--db", join(dir, "restored-2", "kontor.db"), "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const replaced = JSON.parse(again.stdout).replaced;
    expect(replaced).toMatch(/restored-2\/kontor\.db\.replaced-\d{8}T\d{6}Z$/);
    expect(existsSync(replaced)).toBe(true);
  }, 120_000);

  test("restore refuses a file that is not an intact Kontor database, and changes nothing", async () => {
    const db = join(dir, "target", "kontor.db");
    await runCli(["org", "create", "--name", "Kept", "--db", db]);
    const junk = join(dir, "junk.db");
    writeFileSync(junk, "SQLite format 3\0 but not really ".repeat(200));
    const r = await runCli(["restore", junk, "--db", db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: (not an SQLite database|cannot open it|the integrity check failed)/);
    const list = await runCli(["org", "list", "--json", "--db", db]);
    expect(JSON.parse(list.stdout).map((o: any) => o.name)).toEqual(["Kept"]);
    const missing = await runCli(["backup", "--to", join(dir, "x.db"), "--db", join(dir, "nowhere.db")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no database");
  }, 120_000);
});
