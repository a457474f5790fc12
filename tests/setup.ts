// Preloaded by bun test (bunfig.toml): quiet, deterministic configuration for every test file.
process.env.KONTOR_ENV = "test";
import "../server/http/elysia-production.ts";
