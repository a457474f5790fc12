/**
 * Test harness: the real app on a fresh SQLite file per test file, driven through
 * `app.handle(new Request(...))`, plus organisations, users and tokens made by the same
 * services the CLI uses. No mocks of our own database.
 */
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db, Tx } from "../db/client.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { createApp, type App } from "../server/app.ts";
import { silentLogger } from "../server/log.ts";
import { createRuntime, openConfiguredDatabase } from "../server/runtime.ts";
import { loadConfig, type Config } from "../server/config.ts";
import { CLI_ACTOR, createOrganization, createUser } from "../server/orgs/service.ts";
import type { Organization } from "../server/lib/scope.ts";
import { createToken } from "../server/tokens/service.ts";
import type { Role } from "../server/auth/abilities.ts";
import { createContractChecker, type ContractChecker } from "./contract.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "./postgres-database.ts";

/**
 * The test organisations' bank account, given explicitly (an organisation has no bank account
 * unless it gives one): the IBAN the statement fixtures (tests/banking, tests/inbound) name.
 */
export const TEST_IBAN = "BE71096123456769";

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers; text: string; bytes: Uint8Array };

export type TestEnv = {
  db: Db;
  app: App;
  config: Config;
  dir: string;
  /** organisation token with `*` in the first organisation */
  token: string;
  org: Organization;
  request: (method: string, path: string, options?: RequestOptions) => Promise<ApiResponse>;
  /** shorthand: JSON request with the given token (default: the `*` token) */
  api: (method: string, path: string, body?: unknown, token?: string | null) => Promise<ApiResponse>;
  /** An organisation with the bank account TEST_IBAN (what the statement fixtures name) unless `iban` says otherwise; null: none. */
  newOrg: (name?: string, options?: { apiAccess?: boolean; country?: string; currency?: string; iban?: string | null }) => Promise<{ org: Organization; token: string }>;
  orgToken: (abilities: string[], org?: Organization) => Promise<string>;
  userToken: (role: Role, abilities?: string[], org?: Organization) => Promise<{ token: string; userId: string }>;
  close: () => Promise<void>;
};

export type RequestOptions = { body?: unknown; rawBody?: string | Uint8Array; token?: string | null; headers?: Record<string, string> };

let contractChecker: Promise<ContractChecker> | null = null;

/**
 * On PostgreSQL, what a child process (the CLI, `kontor serve`) needs to reach a test's database,
 * by the SQLite path the test names it with (`--db` or KONTOR_DB): the test's config.dbPath.
 */
const postgresEnvOf = new Map<string, Record<string, string>>();

/** What a process started by hand (Bun.spawn) needs to reach the test database named `dbPath`: KONTOR_DB, and on PostgreSQL its URL and key file. */
export function databaseEnv(dbPath: string): Record<string, string> {
  return { KONTOR_DB: dbPath, ...postgresEnvOf.get(dbPath) };
}

/** `env` with what reaches the database of the `--db` argument or KONTOR_DB on PostgreSQL, when the suite runs there. */
function withEngine(args: string[], env: Record<string, string>): Record<string, string> {
  const flag = args.indexOf("--db");
  const path = flag >= 0 ? args[flag + 1] : env.KONTOR_DB;
  const postgres = path === undefined ? undefined : postgresEnvOf.get(path);
  return postgres === undefined ? env : { ...postgres, ...env };
}

let counter = 0;

export async function createTestEnv(env: Record<string, string> = {}): Promise<TestEnv> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-test-"));
  // on PostgreSQL, a database of the test file's own
  const postgres = TEST_DATABASE_URL === null ? null : await freshPostgresDatabase();
  const engineEnv: Record<string, string> = postgres === null ? {} : { KONTOR_DATABASE_URL: postgres.url, KONTOR_SECRET_KEY_FILE: join(dir, "kontor.key") };
  // a key file the caller names is kept (a test of the key itself)
  const config = loadConfig({ KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "100000", ...engineEnv, ...env, ...(postgres === null ? {} : { KONTOR_DATABASE_URL: postgres.url }), KONTOR_DB: join(dir, "kontor.db") });
  const db = openConfiguredDatabase(config);
  await migrateDatabase(db);
  if (postgres !== null) postgresEnvOf.set(config.dbPath, { KONTOR_DATABASE_URL: postgres.url, KONTOR_SECRET_KEY_FILE: config.secretKeyFile! });
  const app = createApp(createRuntime(config, { db, log: silentLogger }));

  const orgToken = async (abilities: string[], org: Organization = first.org) =>
    (await createToken({ db, org, actor: CLI_ACTOR }, { cli: true }, "organization", { userId: null, createdByUserId: null }, { name: `t${++counter}`, abilities })).token;
  const userToken = async (role: Role, abilities?: string[], org: Organization = first.org) => {
    const user = await createUser(db, org, { email: `user${++counter}@example.test`, name: `User ${counter}`, role });
    const token = (await createToken({ db, org, actor: CLI_ACTOR }, { cli: true }, "personal", { userId: user.id, createdByUserId: user.id }, {
      name: `p${counter}`,
      abilities,
    })).token;
    return { token, userId: user.id };
  };
  const newOrg = async (name = `Org ${++counter}`, options: { apiAccess?: boolean; country?: string; currency?: string; iban?: string | null } = {}) => {
    const org = await createOrganization(db, { name, iban: TEST_IBAN, ...options });
    return { org, token: await orgToken(["*"], org) };
  };
  const first = { org: null as unknown as Organization };
  first.org = await createOrganization(db, { name: "Acme", country: "BE", currency: "EUR", iban: TEST_IBAN });
  const token = await orgToken(["*"]);

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.token === undefined ? token : options.token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let body: string | Uint8Array | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    // the bytes too: a PDF is not text
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown = undefined;
    const contentType = response.headers.get("content-type") ?? "";
    if (text && contentType.includes("json")) parsed = JSON.parse(text);
    // every response of the suite must match the published OpenAPI document (tests/contract.ts)
    contractChecker ??= createContractChecker((r) => app.handle(r));
    (await contractChecker)(method, `http://localhost${path}`, response.status, parsed, contentType, response.headers);
    return { status: response.status, body: parsed, headers: response.headers, text, bytes };
  };

  return {
    db,
    app,
    config,
    dir,
    token,
    org: first.org,
    request,
    api: (method, path, body, bearer) => request(method, path, { body, token: bearer }),
    newOrg,
    orgToken,
    userToken,
    close: async () => {
      await db.connection.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs a CLI command as a real process; returns exit code and output. */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../cli/main.ts"), ...args], {
    env: { ...process.env, KONTOR_ENV: "test", ...withEngine(args, env) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * Starts `kontor serve` as a real process and waits for its listening line; stderr (the log) is
 * collected, so a test can read it and a full pipe never stalls the server.
 */
export async function serveProcess(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../cli/main.ts"), "serve", "--port", "0", ...args], {
    env: { ...process.env, KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "1000000", ...withEngine(args, env) },
    stdout: "pipe",
    stderr: "pipe",
  });
  let log = "";
  const logDone = (async () => {
    for await (const chunk of proc.stderr) log += new TextDecoder().decode(chunk);
  })();
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/listening on (\S+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${out}${log}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void proc.stdout.pipeTo(new WritableStream());
  return {
    proc,
    url: /listening on (\S+)/.exec(out)![1]!,
    output: out,
    /** what the server logged so far */
    log: () => log,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      await logDone;
      return log;
    },
  };
}

/**
 * The test's own connection as a transaction, for reading or arranging rows directly: a test
 * runs one thing at a time on its connection, so no other unit of work can be open meanwhile.
 */
export const asTx = (db: Db): Tx => db as Tx;

/**
 * A CLI command started as a real process and not awaited: for a test that kills it in the
 * middle or runs several at once. `children` collects it, for the test file's afterAll to kill.
 */
export function startCli(args: string[], env: Record<string, string>, children: Bun.Subprocess[]) {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../cli/main.ts"), ...args], {
    env: { ...process.env, KONTOR_ENV: "test", ...withEngine(args, env) },
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(proc);
  return proc;
}

/** What a CLI process started by startCli printed as JSON, once it has exited 0. */
export async function jsonWhenDone(proc: Bun.Subprocess<"ignore", "pipe", "pipe">) {
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(code, err).toBe(0);
  return JSON.parse(out);
}
