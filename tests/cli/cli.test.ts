/**
 * The CLI contract (contract section 2) and the server as real processes: `bun cli/main.ts`
 * for the commands, and the compiled binary copied alone into an empty folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openDatabase } from "../../db/client.ts";
import { createAuthenticator } from "../../server/auth/authenticate.ts";
import { createToken } from "../../server/tokens/service.ts";
import { runCli } from "../helpers.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const dir = mkdtempSync(join(tmpdir(), "kontor-cli-"));
const db = join(dir, "cli.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli([...args, "--db", db]);
const cliJson = async (...args: string[]) => {
  const r = await cli(...args, "--json");
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** Starts a server process and reads the lines it prints until the listening line. */
async function startServer(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn(command, {
    cwd: options.cwd,
    env: { ...process.env, KONTOR_ENV: "test", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 20_000;
  while (!/Kontor listening on (\S+)/.test(output) || (output.includes("Default organisation") && !output.includes("curl"))) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}${await new Response(proc.stderr).text()}`);
    output += new TextDecoder().decode(value);
  }
  await Bun.sleep(50); // the rest of the bootstrap message
  const more = await Promise.race([reader.read(), Bun.sleep(200).then(() => null)]);
  if (more && !more.done) output += new TextDecoder().decode(more.value);
  reader.releaseLock();
  const url = /Kontor listening on (\S+)/.exec(output)![1]!;
  return { proc, url, output };
}

describe("the organisation's own bank accounts (issue 26 item 2)", () => {
  const organization = (name: string) => {
    const d = new Database(db, { readonly: true });
    try {
      return {
        org: d.query("SELECT default_bank_account_id AS def FROM organizations WHERE name = ?").get(name) as { def: string | null },
        banks: d.query("SELECT b.id, b.iban, b.name, b.bank_name, b.is_active, a.code FROM bank_accounts b JOIN accounts a ON a.id = b.account_id JOIN organizations o ON o.id = b.organization_id WHERE o.name = ? ORDER BY a.code").all(name) as any[],
      };
    } finally {
      d.close();
    }
  };

  test("org create without --iban: no bank account, and it says how to add one", async () => {
    const r = await cli("org", "create", "--name", "Bankless");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Bankless has no bank account");
    expect(r.stdout).toContain('kontor bank-account add --org "Bankless"');
    expect(organization("Bankless")).toEqual({ org: { def: null }, banks: [] });
  });

  test("org create --iban: that account, linked to 1110, is the default; a wrong IBAN is refused and creates nothing", async () => {
    const org = await cliJson("org", "create", "--name", "Banked", "--iban", "be68 5390 0754 7034", "--bank-name", "Argenta");
    expect(org.payment_instructions).toBe(true);
    const { org: row, banks } = organization("Banked");
    expect(banks).toEqual([{ id: row.def, iban: "BE68539007547034", name: "Current account", bank_name: "Argenta", is_active: 1, code: "1110" }]);
    const wrong = await cli("org", "create", "--name", "Typo", "--iban", "BE68539007547035");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("check digits");
    expect((await cliJson("org", "list")).map((o: any) => o.name)).not.toContain("Typo");
  });

  test("bank-account add | set | default | deactivate", async () => {
    const added = await cliJson("bank-account", "add", "--org", "Banked", "--name", "Savings", "--iban", "NL91ABNA0417164300", "--currency", "EUR");
    expect(organization("Banked").banks.map((b) => b.code)).toEqual(["1110", "1111"]);
    const renamed = await cliJson("bank-account", "set", "NL91 ABNA 0417 1643 00", "--org", "Banked", "--name", "Reserve", "--bank-name", "ABN AMRO");
    expect(renamed).toMatchObject({ id: added.id, name: "Reserve", bank_name: "ABN AMRO", iban: "NL91ABNA0417164300" });
    expect((await cliJson("bank-account", "set", added.id, "--org", "Banked", "--bank-name", "")).bank_name).toBeNull();

    expect((await cliJson("bank-account", "default", added.id, "--org", "Banked")).id).toBe(added.id);
    expect(organization("Banked").org.def).toBe(added.id);
    const off = await cliJson("bank-account", "deactivate", added.id, "--org", "Banked");
    expect(off.is_active).toBe(false);
    expect(organization("Banked").org.def).toBeNull();
    // an inactive account cannot be the default; an unknown one is a 404 (exit 1)
    const refused = await cli("bank-account", "default", added.id, "--org", "Banked");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not active");
    expect((await cli("bank-account", "deactivate", "BE71096123456769", "--org", "Banked")).code).toBe(1);
    // add --default makes the new one the default at once
    const third = await cliJson("bank-account", "add", "--org", "Bankless", "--name", "Current account", "--iban", "BE68539007547034", "--default");
    expect(organization("Bankless").org.def).toBe(third.id);
  });

  test("BIC (ISO 9362): org create --bic, bank-account add --bic, set --bic (empty clears it); a wrong one is refused and stores nothing", async () => {
    const accountIds = (name: string) => organization(name).banks.map((b) => b.id);
    const bics = (name: string) => {
      const d = new Database(db, { readonly: true });
      try {
        return d.query("SELECT b.iban, b.bic FROM bank_accounts b JOIN organizations o ON o.id = b.organization_id WHERE o.name = ? ORDER BY b.iban").all(name);
      } finally {
        d.close();
      }
    };
    await cliJson("org", "create", "--name", "Bicced", "--iban", "BE68539007547034", "--bic", "gkcc bebb", "--bank-name", "Belfius");
    expect(bics("Bicced")).toEqual([{ iban: "BE68539007547034", bic: "GKCCBEBB" }]);
    // wrong shape, a country that is none, a BIC without an IBAN: exit 1 naming the BIC, no organisation
    for (const [bic, message] of [["GKCCBEB", "8 or 11 characters"], ["GKCCBEBBX", "8 or 11 characters"], ["GKCC1EBB", "8 or 11 characters"], ["GKCCZZBB", "ZZ is not an ISO 3166-1 country code"]] as const) {
      const r = await cli("org", "create", "--name", "Wrong BIC", "--iban", "BE68539007547034", "--bic", bic);
      expect(r.code, bic).toBe(1);
      expect(r.stderr).toContain(message);
    }
    const alone = await cli("org", "create", "--name", "Wrong BIC", "--bic", "GKCCBEBB");
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain("--iban");
    expect((await cliJson("org", "list")).map((o: any) => o.name)).not.toContain("Wrong BIC");

    const added = await cliJson("bank-account", "add", "--org", "Bicced", "--name", "Deutsche Bank", "--iban", "DE89370400440532013000", "--bic", "COBADEFFXXX");
    expect(added.bic).toBe("COBADEFFXXX");
    const wrong = await cli("bank-account", "add", "--org", "Bicced", "--name", "Typo", "--iban", "NL91ABNA0417164300", "--bic", "ABNA-NL-2A");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("BIC");
    expect(accountIds("Bicced")).toHaveLength(2);
    expect((await cliJson("bank-account", "set", added.id, "--org", "Bicced", "--bic", "deutdeff500")).bic).toBe("DEUTDEFF500");
    const refused = await cli("bank-account", "set", added.id, "--org", "Bicced", "--bic", "DEUT", "--name", "Renamed");
    expect(refused.code).toBe(1);
    expect(bics("Bicced")).toEqual([{ iban: "BE68539007547034", bic: "GKCCBEBB" }, { iban: "DE89370400440532013000", bic: "DEUTDEFF500" }]);
    expect(organization("Bicced").banks.find((b) => b.id === added.id)?.name).toBe("Deutsche Bank");
    expect((await cliJson("bank-account", "set", added.id, "--org", "Bicced", "--bic", "")).bic).toBeNull();
  });
});

describe("organisations, users and tokens", () => {
  test("org create/list/api-access with --json and human tables", async () => {
    const org = await cliJson("org", "create", "--name", "Globex", "--currency", "USD", "--country", "NL");
    expect(Object.keys(org).sort()).toEqual(["api_access", "country", "currency", "id", "name", "payment_instructions"]);
    expect(org.payment_instructions).toBe(false);
    expect(org).toMatchObject({ name: "Globex", currency: "USD", country: "NL", api_access: true });
    const closed = await cliJson("org", "create", "--name", "Initech", "--no-api-access");
    expect(closed.api_access).toBe(false);

    const list = await cliJson("org", "list");
    expect(list.map((o: any) => o.name)).toEqual(expect.arrayContaining(["Globex", "Initech"]));
    const table = await cli("org", "list");
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("Globex");
    expect(table.stdout.split("\n")[0]).toMatch(/ID|NAME/i);

    const toggled = await cliJson("org", "api-access", "Initech", "on");
    expect(toggled.api_access).toBe(true);
  });

  test("user create/list/role/remove and tokens, by name or id", async () => {
    const user = await cliJson("user", "create", "--org", "Globex", "--email", "ann@globex.test", "--name", "Ann", "--role", "accountant");
    expect(Object.keys(user).sort()).toEqual(["email", "id", "name", "role"]);
    expect((await cliJson("user", "list", "--org", "Globex")).map((u: any) => u.email)).toContain("ann@globex.test");
    expect((await cliJson("user", "role", "ann@globex.test", "admin")).role).toBe("admin");

    const personal = await cliJson("token", "create", "--org", "Globex", "--user", user.id, "--name", "ann-laptop", "--abilities", "contacts.view,invoicing.view", "--expires-in-days", "7");
    expect(Object.keys(personal).sort()).toEqual(["abilities", "expires_at", "id", "token"]);
    expect(personal.abilities).toEqual(["contacts.view", "invoicing.view"]);
    expect(personal.token).toStartWith(`${personal.id}|`);
    const orgToken = await cliJson("token", "create", "--org", "Globex", "--organisation", "--name", "erp", "--abilities", "*");
    expect(orgToken.abilities).toEqual(["*"]);
    expect(orgToken.expires_at).toBeNull();

    const tokens = await cli("token", "list", "--org", "Globex");
    expect(tokens.stdout).toContain("ann-laptop");
    expect(tokens.stdout).not.toContain(personal.token.split("|")[1]);

    const removed = await cli("user", "remove", "ann@globex.test");
    expect(removed.code).toBe(0);
    const remaining = await cliJson("token", "list", "--org", "Globex");
    expect(remaining.map((t: any) => t.name)).toEqual(["erp"]);
    expect((await cli("token", "revoke", orgToken.id)).code).toBe(0);
    expect(await cliJson("token", "list", "--org", "Globex")).toEqual([]);
  });

  test("control characters in names, typed arguments and errors are printed escaped", async () => {
    const evil = "\u001b[31mevil\u0007\u009b2J\u202e";
    await cliJson("org", "create", "--name", "Escapes");
    const made = await cliJson("token", "create", "--org", "Escapes", "--organisation", "--name", evil);
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;
    const table = await cli("token", "list", "--org", "Escapes");
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(raw);
    expect(table.stdout).toContain("\\x1b[31mevil\\x07\\x9b2J\\u202e");
    // --json: the same name, JSON-escaped (parsing gives it back exactly)
    const json = await cli("token", "list", "--org", "Escapes", "--json");
    expect(json.stdout).not.toMatch(raw);
    expect(JSON.parse(json.stdout).find((t: any) => t.id === made.id).name).toBe(evil);

    await cliJson("user", "create", "--org", "Escapes", "--email", "esc@example.test", "--name", evil, "--role", "viewer");
    const users = await cli("user", "list", "--org", "Escapes");
    expect(users.stdout).not.toMatch(raw);
    expect(users.stdout).toContain("\\x1b[31mevil");
    // what was typed comes back in errors: from our messages and from commander's
    for (const args of [["token", "revoke", evil], ["user", "list", "--org", evil], ["org", "list", `--${evil}`]]) {
      const r = await cli(...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("\\x1b[31mevil");
      expect(r.stderr + r.stdout).not.toMatch(raw);
    }
  });

  test("token list shows who created each token; revoke --cascade revokes what a token minted", async () => {
    await cliJson("org", "create", "--name", "Lineage");
    const owner = await cliJson("user", "create", "--org", "Lineage", "--email", "owner@lineage.test", "--name", "Owner", "--role", "owner");
    const personal = await cliJson("token", "create", "--org", "Lineage", "--user", owner.id, "--name", "laptop");
    // the API mints from a token; here the same service does it against the CLI's database
    const database = openDatabase(db);
    const mint = async (parent: string, name: string) => {
      const auth = (await createAuthenticator(database)(`Bearer ${parent}`))!;
      const scope = { db: database, org: auth.org, actor: { type: "token" as const, id: auth.tokenId, ip: null, requestId: null } };
      return await createToken(scope, { auth }, "organization", { userId: null, createdByUserId: auth.userId }, { name, abilities: ["contacts.view"] });
    };
    let child: { id: string; token: string };
    let grandchild: { id: string; token: string };
    try {
      child = await mint(personal.token, "child");
      grandchild = await mint(child.token, "grandchild");
    } finally {
      database.$client.close();
    }
    const listed = await cliJson("token", "list", "--org", "Lineage");
    const createdBy = (id: string) => listed.find((t: any) => t.id === id).created_by;
    expect(createdBy(personal.id)).toEqual({ user_id: owner.id, token_id: null });
    expect(createdBy(child.id)).toEqual({ user_id: owner.id, token_id: personal.id });
    expect(createdBy(grandchild.id)).toEqual({ user_id: owner.id, token_id: child.id });
    const table = (await cli("token", "list", "--org", "Lineage")).stdout;
    expect(table.split("\n")[0]).toContain("CREATED BY");
    expect(table.split("\n").find((l) => l.startsWith(grandchild.id))).toContain(`owner@lineage.test via token ${child.id}`);

    // without --cascade what it minted keeps working; with it, the rest goes too
    expect((await cliJson("token", "revoke", personal.id)).revoked).toBe(true);
    expect((await cliJson("token", "list", "--org", "Lineage")).map((t: any) => t.id).sort()).toEqual([child.id, grandchild.id].sort());
    const cascaded = await cliJson("token", "revoke", personal.id, "--cascade");
    expect(cascaded).toEqual({ id: personal.id, revoked: true, minted_revoked: [child.id, grandchild.id] });
    expect(await cliJson("token", "list", "--org", "Lineage")).toEqual([]);
    const human = await cli("token", "revoke", personal.id, "--cascade");
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("and 0 token(s) minted from it");
    expect((await cli("token", "revoke", personal.id)).code).toBe(1);
  });

  test("exit codes: 1 for user errors (stderr), 2 for usage errors", async () => {
    const unknownOrg = await cli("user", "list", "--org", "Nope Inc");
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr.length).toBeGreaterThan(0);
    expect(unknownOrg.stdout).toBe("");

    const badRole = await cli("user", "create", "--org", "Globex", "--email", "x@y.z", "--name", "X", "--role", "emperor");
    expect(badRole.code).not.toBe(0);
    const personalStar = await cli("token", "create", "--org", "Globex", "--user", "nobody@x.y", "--name", "x");
    expect(personalStar.code).toBe(1);

    const badCurrency = await cli("org", "create", "--name", "Bad Money", "--currency", "XYZ");
    expect(badCurrency.code).toBe(1);
    expect(badCurrency.stderr).toContain("ISO 4217");

    expect((await cli("frobnicate")).code).toBe(2);
    expect((await cli("org", "create")).code).toBe(2); // --name is required
    expect((await cli("token", "create", "--org", "Globex", "--name", "x")).code).toBe(2); // --user or --organisation
    expect((await runCli(["serve", "--port", "http"])).code).toBe(2);
  });

  test("migrate is idempotent", async () => {
    const fresh = join(dir, "migrate.db");
    const first = await runCli(["migrate", "--db", fresh, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).applied).toBeGreaterThan(0);
    const again = await runCli(["migrate", "--db", fresh, "--json"]);
    expect(JSON.parse(again.stdout).applied).toBe(0);
  });
});

describe("kontor serve", () => {
  test("bootstraps an empty database, prints a working token and curl line, stops on SIGTERM", async () => {
    const serveDb = join(dir, "serve.db");
    const { proc, url, output } = await startServer(["bun", join(TESTS_ROOT, "../cli/main.ts"), "serve", "--db", serveDb, "--port", "0", "--no-worker"]);
    try {
      const token = /\b([0-9a-f-]{36}\|[A-Za-z0-9_-]{40,})(?![A-Za-z0-9_-])/.exec(output)?.[1];
      expect(token, output).toBeDefined();
      // the printed curl line works when pasted into a shell
      const curl = output.split("\n").find((l) => l.trim().startsWith("curl "))!.trim();
      expect(curl).toContain(token!);
      const pasted = Bun.spawnSync(["sh", "-c", curl], { stdout: "pipe" });
      expect(pasted.exitCode).toBe(0);
      expect(JSON.parse(pasted.stdout.toString())).toMatchObject({ data: [], meta: { total: 0 } });
      const r = await fetch(`${url}/api/v1/customers`, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      // the default organisation has no bank account until one is added (never a seeded placeholder)
      const organization = (await (await fetch(`${url}/api/v1/organization`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
      expect(organization.data).toMatchObject({ default_bank_account_id: null, payment_instructions: false });
      // the CLI works on the same database while the server runs (WAL)
      const minted = JSON.parse((await runCli(["token", "create", "--db", serveDb, "--org", "Default organisation", "--organisation", "--name", "side", "--abilities", "contacts.view", "--json"])).stdout);
      expect((await fetch(`${url}/api/v1/customers`, { headers: { authorization: `Bearer ${minted.token}` } })).status).toBe(200);
      // a second start does not bootstrap again
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const again = await startServer(["bun", join(TESTS_ROOT, "../cli/main.ts"), "serve", "--db", serveDb, "--port", "0", "--no-worker"]);
    again.proc.kill("SIGTERM");
    await again.proc.exited;
    expect(again.output).not.toContain("Bearer");
  });
});

describe("kontor serve: the first start", () => {
  test("its token and curl line are printed before /health answers, with two HTTP threads", async () => {
    const probe = Bun.serve({ port: 0, fetch: () => new Response() });
    const port = probe.port!;
    await probe.stop(true);
    const firstDb = join(dir, "first", "kontor.db");
    const proc = Bun.spawn(["bun", join(TESTS_ROOT, "../cli/main.ts"), "serve", "--db", firstDb, "--port", String(port), "--no-worker"], {
      env: { ...process.env, KONTOR_ENV: "test", KONTOR_HTTP_THREADS: "2" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
      if (up) break;
      if (Date.now() > deadline) throw new Error("no /health");
      await Bun.sleep(5);
    }
    // what a script reads once /health answers: nothing printed later may count
    proc.kill("SIGKILL");
    await proc.exited;
    const output = await new Response(proc.stdout).text();
    expect(output).toMatch(/\b[0-9a-f-]{36}\|[A-Za-z0-9_-]{40,}\b/);
    expect(output).toContain("curl -H 'Authorization: Bearer");

    // the data folder and the database files are its owner's alone, whatever the umask
    const { statSync } = await import("node:fs");
    expect(statSync(join(dir, "first")).mode & 0o777).toBe(0o700);
    for (const file of [firstDb, `${firstDb}-wal`, `${firstDb}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
  });

  test("a database left readable by others is made private when opened", async () => {
    const { chmodSync, statSync, writeFileSync } = await import("node:fs");
    const loose = join(dir, "loose.db");
    writeFileSync(loose, "");
    chmodSync(loose, 0o644);
    expect((await runCli(["migrate", "--db", loose])).code).toBe(0);
    expect(statSync(loose).mode & 0o777).toBe(0o600);
  });
});

describe("kontor serve configuration", () => {
  test("KONTOR_HTTP_THREADS outside 1–64 stops the start with a message naming it", async () => {
    for (const threads of ["0", "65", "two"]) {
      const r = await runCli(["serve", "--db", join(dir, "threads.db"), "--port", "0", "--no-worker"], { KONTOR_HTTP_THREADS: threads });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`KONTOR_HTTP_THREADS must be a whole number from 1 to 64 (got "${threads}")`);
    }
  });
});

describe("the compiled binary", () => {
  test("bun run build → dist/kontor runs alone in an empty folder: migrations, API and docs assets embedded", async () => {
    const build = Bun.spawnSync(["bun", "run", "build"], { cwd: join(TESTS_ROOT, ".."), stdout: "pipe", stderr: "pipe" });
    expect(build.exitCode, build.stderr.toString()).toBe(0);
    const empty = mkdtempSync(join(tmpdir(), "kontor-bin-"));
    try {
      copyFileSync(join(TESTS_ROOT, "../dist/kontor"), join(empty, "kontor"));
      Bun.spawnSync(["chmod", "+x", join(empty, "kontor")]);
      const { proc, url, output } = await startServer(["./kontor", "serve", "--port", "0"], { cwd: empty });
      try {
        expect(existsSync(join(empty, "data/kontor.db"))).toBe(true);
        const token = /\b([0-9a-f-]{36}\|[A-Za-z0-9_-]{40,})(?![A-Za-z0-9_-])/.exec(output)![1]!;
        const created = await fetch(`${url}/api/v1/customers`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "From the binary" }),
        });
        expect(created.status).toBe(201);
        expect((await fetch(`${url}/health`)).status).toBe(200);
        for (const asset of ["/docs", "/docs/assets/viewer.js", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/openapi.yaml"]) {
          const r = await fetch(`${url}${asset}`);
          expect(r.status, asset).toBe(200);
          expect((await r.text()).length, asset).toBeGreaterThan(100);
        }
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
      const cliInBinary = Bun.spawnSync(["./kontor", "org", "list", "--json"], { cwd: empty, env: { ...process.env, KONTOR_ENV: "test" } });
      expect(cliInBinary.exitCode).toBe(0);
      expect(JSON.parse(cliInBinary.stdout.toString())[0].name).toBe("Default organisation");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
