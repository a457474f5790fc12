/**
 * Run as a process by tests/db/copy.test.ts: a SQLite test database holding one of everything
 * (tests/fixtures.ts seedFixture), left in place for the copy. Prints what the test needs as JSON.
 * Always on SQLite, whatever the suite's engine: the source of `kontor db copy` is a SQLite file.
 */
import { createTestEnv } from "../helpers.ts";
import { seedFixture } from "../fixtures.ts";

const env = await createTestEnv();
const fixture = await seedFixture(env);
await env.db.connection.close();
process.stdout.write(JSON.stringify({ dbPath: env.config.dbPath, token: env.token, fixture }));
