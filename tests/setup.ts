// Preloaded by bun test (bunfig.toml): quiet, deterministic configuration for every test file.
process.env.KONTOR_ENV = "test";
import "../server/http/elysia-production.ts";
// tests start servers and CLI processes (a CLI process takes about half a second to start): on a
// busy 2-core machine a test of several of them needs more than bun's default 5 s
import { setDefaultTimeout } from "bun:test";
setDefaultTimeout(30_000);
