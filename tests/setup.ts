// Preloaded by bun test (bunfig.toml): quiet, deterministic configuration for every test file.
process.env.KONTOR_ENV = "test";
import "../server/http/elysia-production.ts";
// The tests' timeout is on the command line (`bun run test` = `bun test --timeout 30000`): tests
// start servers and CLI processes, and on a busy 2-core machine a test of several of them needs
// more than bun's default 5 s. setDefaultTimeout here did not reach the other files' tests.
// On PostgreSQL (KONTOR_TEST_DATABASE_URL) the whole test process is, from its first query to its
// last: SQL spelled per engine renders for PostgreSQL even in a file that opens no database.
import { useEngine } from "../db/engine.ts";
if (process.env.KONTOR_TEST_DATABASE_URL) useEngine("postgres");
