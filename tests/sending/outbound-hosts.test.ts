/**
 * One rule for every outbound URL's host: what a webhook may never point at (a cloud metadata
 * service, whatever KONTOR_WEBHOOK_ALLOW_PRIVATE says) is refused in the same words for an
 * organisation's SMTP server and Peppol access point (`kontor org set`, the real CLI) and for the
 * server's KONTOR_SMTP_URL. Private addresses stay allowed for mail: a relay on the private
 * network is ordinary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestEnv, runCli } from "../helpers.ts";

const env = await createTestEnv({ KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
afterAll(() => env.close());

/** Each metadata host as a URL would write it, and the address or name the refusal names. */
const HOSTS: [string, string][] = [
  ["169.254.169.254", "169.254.169.254"],
  ["metadata.google.internal", "metadata.google.internal"],
  ["METADATA.goog.", "metadata.goog"],
  ["[fd00:ec2::254]", "fd00:ec2::254"],
  ["100.100.100.200", "100.100.100.200"],
  // the same address in the spellings the system resolver reads: decimal, hexadecimal, IPv4-mapped
  ["2852039166", "169.254.169.254"],
  ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
  ["[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe"],
];

const refusal = (field: string, host: string) => `The ${field} must not point to a cloud metadata service (${host}): it hands out the server's credentials.`;

describe("cloud metadata hosts, refused for every outbound URL in the webhook's words", () => {
  test("POST /webhooks, kontor org set --smtp-url and --peppol-base-url refuse each, naming the host, and change nothing", async () => {
    const db = { KONTOR_DB: env.config.dbPath };
    for (const [written, named] of HOSTS) {
      const hook = await env.api("POST", "/api/v1/webhooks", { url: `http://${written}/latest/meta-data/`, events: ["customer.created"] });
      expect(hook.status, written).toBe(422);
      expect(hook.body.errors.url, written).toEqual([refusal("url", named)]);

      const smtp = await runCli(["org", "set", env.org.id, "--smtp-url", `smtp://user:pw@${written}:25`], db);
      expect(smtp.code, written).not.toBe(0);
      expect(smtp.stderr, written).toContain(refusal("--smtp-url", named));

      const peppol = await runCli(
        ["org", "set", env.org.id, "--peppol-provider", "recommand", "--peppol-api-key", "k", "--peppol-api-secret", "s", "--peppol-company-id", "c", "--peppol-base-url", `https://${written}/api/v1`],
        db,
      );
      expect(peppol.code, written).not.toBe(0);
      expect(peppol.stderr, written).toContain(refusal("peppol_base_url", named));
    }
    const shown = (await env.api("GET", "/api/v1/organization")).body.data;
    expect([shown.own_smtp, shown.peppol_provider]).toEqual([false, null]);
  }, 120_000);

  test("a mail relay on the private network or this machine, and a near name, are accepted", async () => {
    for (const url of ["smtp://10.0.0.25:25", "smtp://127.0.0.1:2525", "smtps://metadata.example.com:465"]) {
      const r = await runCli(["org", "set", env.org.id, "--smtp-url", url, "--json"], { KONTOR_DB: env.config.dbPath });
      expect(r.code, `${url}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).own_smtp).toBe(true);
    }
  }, 60_000);

  test("KONTOR_SMTP_URL on a metadata host stops kontor serve at start, in the same words", async () => {
    const proc = Bun.spawn(["bun", join(import.meta.dir, "../../cli/main.ts"), "serve", "--port", "0"], {
      env: { ...process.env, KONTOR_ENV: "test", KONTOR_DB: env.config.dbPath, KONTOR_SMTP_URL: "smtp://169.254.169.254:25" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill(9), 15_000);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    expect(code).not.toBe(0);
    expect(stderr).toContain(refusal("KONTOR_SMTP_URL", "169.254.169.254"));
  }, 30_000);
});
