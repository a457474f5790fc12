// Preloaded by bun test (bunfig.toml): quiet, deterministic configuration for every test file.
process.env.KONTOR_ENV = "test";
import "../server/http/elysia-production.ts";
// The tests' timeout is on the command line (`bun run test` = `bun test --timeout 30000`): tests
// start servers and CLI processes, and on a busy 2-core machine a test of several of them needs
// more than bun's default 5 s. setDefaultTimeout here did not reach the other files' tests.
