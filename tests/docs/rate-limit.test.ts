/**
 * The rate-limit budget is described once, in docs/api.md#rate-limit, as the server counts it
 * (server/auth/authenticate.ts: per user for personal tokens, per token for organisation tokens;
 * server/http/kernel.ts: per IP unauthenticated); the README and docs/operations.md link there
 * and say nothing that contradicts it.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

test("docs/api.md says who a budget belongs to, as the server counts", () => {
  const section = read("docs/api.md").split("## Rate limit")[1]!.split("\n## ")[0]!.replace(/\s+/g, " ");
  expect(section).toContain("per user for personal tokens");
  expect(section).toContain("per token for organisation tokens");
  expect(section).toContain("per IP for unauthenticated requests");
});

test("the README and operations.md link the budget to docs/api.md and do not restate it otherwise", () => {
  for (const [file, link] of [
    ["README.md", "docs/api.md#rate-limit"],
    ["docs/operations.md", "api.md#rate-limit"],
  ] as const) {
    const text = read(file);
    const row = text.split("\n").find((line) => line.startsWith("| `KONTOR_RATE_LIMIT`"))!;
    expect(row, file).toContain(`(${link})`);
    // what the budget of an organisation token is said to be elsewhere than in api.md
    expect(text, file).not.toMatch(/count against the user who created/);
    expect(text, file).not.toMatch(/requests per minute per user\b/);
  }
});
