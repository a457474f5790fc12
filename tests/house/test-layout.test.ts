/**
 * Tests follow the features: every test file sits in a folder named for what it tests
 * (`tests/invoices/`, `tests/reminders/`, …, mostly mirroring `server/<feature>/`), never loose at
 * the top of tests/, where nobody could tell which feature it covers (docs/development.md#tests).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const TESTS = join(import.meta.dir, "..");

describe("the tests' layout", () => {
  test("no test file at the top of tests/: each in its feature's folder", () => {
    expect(readdirSync(TESTS).filter((name) => name.endsWith(".test.ts"))).toEqual([]);
  });

  test("most feature folders of server/ have a test folder of the same name", () => {
    const features = readdirSync(join(TESTS, "..", "server"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    const tested = new Set(readdirSync(TESTS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));
    const untested = features.filter((f) => !tested.has(f));
    // each one left is tested through the features that use it (named here so a new one is a decision)
    expect(untested.sort()).toEqual(["bank-accounts", "contacts", "meta", "tokens", "vat-rates"].filter((f) => features.includes(f)).sort());
  });
});
