/**
 * First start on an empty database: a "Default organisation" (api_access on, as
 * self-hosted, and no bank account: it has none of its own yet), an owner user and an
 * organisation token with `*`, printed once.
 */
import { count } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { organizations } from "../db/schema.ts";
import { CLI_ACTOR, createOrganization, createUser } from "./orgs/service.ts";
import { createToken } from "./tokens/service.ts";
import { firstRow, unitOfWork } from "../db/client.ts";

export type Bootstrap = { organizationId: string; userEmail: string; token: string };

export async function bootstrapIfEmpty(db: Db): Promise<Bootstrap | null> {
  // one unit: of servers starting at once on one PostgreSQL database, one makes it, the others find it made
  return unitOfWork(db, async (tx) => {
    const existing = (await firstRow(tx.select({ n: count() }).from(organizations)))!.n;
    if (existing > 0) return null;
    return bootstrap(db);
  });
}

async function bootstrap(db: Db): Promise<Bootstrap> {
  const org = await createOrganization(db, { name: "Default organisation", currency: "EUR", country: "BE", apiAccess: true });
  const owner = await createUser(db, org, { email: "owner@kontor.local", name: "Owner", role: "owner" });
  const token = await createToken(
    { db, org, actor: CLI_ACTOR },
    { cli: true },
    "organization",
    { userId: null, createdByUserId: owner.id },
    { name: "bootstrap", abilities: ["*"] },
  );
  return { organizationId: org.id, userEmail: owner.email, token: token.token };
}

export function bootstrapMessage(b: Bootstrap, baseUrl: string): string {
  return [
    "",
    "Kontor created a default organisation, an owner user and an organisation token with every ability (*).",
    "This token is shown only once; store it now:",
    "",
    `  ${b.token}`,
    "",
    "Try it:",
    "",
    `  curl -H 'Authorization: Bearer ${b.token}' ${baseUrl}/api/v1/customers`,
    "",
    "The organisation has no bank account: its documents carry no payment instructions (no IBAN, no QR code) until you add one:",
    "",
    `  kontor bank-account add --org "Default organisation" --name "Current account" --iban <IBAN> --default`,
    "",
  ].join("\n");
}
