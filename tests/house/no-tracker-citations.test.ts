/**
 * The code explains itself without the tracker: no comment or string in server/, cli/ or db/
 * cites an issue ("issue 30", "(issue 27 item 2)"), a section of the old contract ("contract
 * section 4", "contract 7.3") or of the API specification it was built from ("api-spec 6.1",
 * "api-spec section 5"): a newcomer can open none of them. It states the rule briefly instead, or
 * links the guide section that does (docs/*.md#anchor). Generated migration files
 * (db/migrations/meta, db/migrations/index.ts) are not scanned.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const SCANNED = ["server", "cli", "db"];
const SKIPPED = new Set(["db/migrations/meta", "db/migrations/index.ts"]);
const CITATION = /\bissue\s+#?\d+|\bcontract\s+(?:sections?\b|\d)|\bapi[- ]?spec\b/i;

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path).split("\\").join("/");
    if (SKIPPED.has(rel)) continue;
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.isFile() && /\.(ts|sql)$/.test(entry.name)) files.push(rel);
  }
  return files;
}

describe("tracker citations", () => {
  test("the pattern catches what it should, and not an issue date", () => {
    for (const cited of ["(issue 30)", "issue 27: files", "Issue #12", "contract section 4", "contract sections 3 and 4", "contract 7.3", "(api-spec 6.1)", "api-spec section 5", "API spec 2.3"]) {
      expect(CITATION.test(cited)).toBe(true);
    }
    for (const plain of ["its issue date", "issued 2 days ago", "the contract's terms", "a contractor 5", "the OpenAPI specification", "openapi spec 3.1"]) {
      expect(CITATION.test(plain)).toBe(false);
    }
  });

  test("server/, cli/ and db/ cite no issue, no contract section and no api-spec section", () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const file of files) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (CITATION.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
