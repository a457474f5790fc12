/**
 * The curl examples of README.md and the guides in docs/ run as written, in order, against a real
 * `kontor serve` (a process on 127.0.0.1, a free port, a fresh database per file), with bash and
 * the real curl. The convention (`<!-- run -->`, `# → NAME=.path`) is at the top of
 * docs/development.md; the runner is tests/docs/examples.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { blocksOf, ROOT, Session, startKontor, type Block } from "../docs/examples.ts";

/**
 * How many runnable blocks each file has. A block that loses its marker, or a file that gains
 * some, fails the test until this table says so.
 */
const RUNNABLE: Record<string, number> = {
  "README.md": 6,
  "docs/api.md": 13,
  "docs/invoicing.md": 11,
  "docs/einvoicing.md": 8,
  "docs/books.md": 13,
  "docs/banking.md": 11,
  "docs/payables.md": 3,
  "docs/webhooks.md": 5,
  "docs/events.md": 4,
  "docs/recurring.md": 2,
  "docs/reminders.md": 2,
};

const FILES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).sort().map((name) => `docs/${name}`)];
const blocks = new Map<string, Block[]>(FILES.map((file) => [file, blocksOf(file, readFileSync(join(ROOT, file), "utf8"))]));
const runnable = (file: string) => (blocks.get(file) ?? []).filter((block) => block.run);

describe("the documents' examples", () => {
  test("every runnable block is a sh or bash block, and every shell block using $KONTOR is marked", () => {
    const problems: string[] = [];
    for (const [file, found] of blocks) {
      for (const block of found) {
        const shell = block.language === "sh" || block.language === "bash";
        if (block.run && !shell) problems.push(`${file}:${block.line}: <!-- run --> before a \`\`\`${block.language} block`);
        if (shell && !block.marked && /\$\{?KONTOR\b/.test(block.code)) problems.push(`${file}:${block.line}: uses $KONTOR without <!-- run --> or <!-- no-run -->`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("the files have the runnable blocks this test expects", () => {
    const counts = Object.fromEntries(FILES.map((file) => [file, runnable(file).length]).filter(([, n]) => n !== 0));
    expect(counts).toEqual(RUNNABLE);
  });
});

for (const file of Object.keys(RUNNABLE)) {
  describe(file, () => {
    let server: Awaited<ReturnType<typeof startKontor>> | null = null;
    let session: Session | null = null;
    let failed: string | null = null;

    beforeAll(async () => {
      if (!Bun.which("curl") || !Bun.which("bash")) throw new Error("the documents' examples run with bash and curl (7.76 or later): install them");
      server = await startKontor();
      session = new Session({ KONTOR: server.url, TOKEN: server.token, KONTOR_DB: server.db });
    }, 90_000);

    afterAll(async () => {
      await server?.stop();
      session?.close();
    }, 30_000);

    for (const block of runnable(file)) {
      test(`line ${block.line}`, async () => {
        // the blocks build on each other: after a failure, the first one is the one to read
        if (failed) throw new Error(`skipped: ${failed} failed before`);
        try {
          await session!.run(block);
        } catch (error) {
          failed = `${file}:${block.line}`;
          throw error;
        }
      }, 60_000);
    }
  });
}
