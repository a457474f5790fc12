/**
 * An organisation's Peppol access point (docs/sending.md#peppol-through-an-access-point): which provider, and its credentials sealed
 * with the server's secret box (server/lib/secret-box.ts) as webhook secrets are, bound to the
 * organisation ("peppol:" + its id) so that a sealed value copied onto another row does not open.
 * Set by an administrator through the CLI only (`kontor org set … --peppol-provider …`); the API
 * shows the provider's name (`peppol_provider`), never the credentials.
 */
import { and, eq, isNotNull } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { organizations } from "../../../db/schema.ts";
import { PEPPOL_PROVIDERS, type PeppolProvider } from "../../../db/values.ts";
import { recordChange } from "../../changes/record.ts";
import { FieldErrorBag, NotFound, validValues } from "../../lib/errors.ts";
import { metadataHostRefusal } from "../../lib/hosts.ts";
import { unitOfWork, type Scope } from "../../lib/scope.ts";
import { SecretUnreadable, type SecretBox } from "../../lib/secret-box.ts";
import { nowIso } from "../../lib/time.ts";
import type { AccessPoint } from "./access-point.ts";
import { RECOMMAND_BASE_URL, RecommandAccessPoint, type RecommandCredentials } from "./recommand.ts";
import { firstRow } from "../../../db/client.ts";

/** What `kontor org set` passes: `provider` "none" removes the access point. */
export type PeppolSettingsInput = { provider?: string; apiKey?: string; apiSecret?: string; companyId?: string; baseUrl?: string };

/** What the sealed JSON holds (Recommand's shape: the one provider so far). */
type StoredCredentials = RecommandCredentials;

const sealContext = (orgId: string) => `peppol:${orgId}`;

/** Hosts where credentials may travel over plain HTTP: this machine only (a local test or relay). */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function baseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "The peppol_base_url field must be an absolute URL, e.g. https://app.recommand.eu/api/v1.";
  }
  const metadata = metadataHostRefusal("peppol_base_url", url.hostname);
  if (metadata) return metadata;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "The peppol_base_url field must be an https URL (credentials travel only over TLS; plain http only to this machine).";
}

/**
 * Sets or removes the organisation's access point. Setting a provider needs every credential of
 * it, unless the organisation has that provider already: then only the given ones change.
 * Audited (organization.peppol_access_point_set / _removed); no event, nothing shown of the secrets.
 */
export async function setPeppolAccessPoint(scope: Scope, secrets: SecretBox, input: PeppolSettingsInput): Promise<{ peppol_provider: PeppolProvider | null }> {
  const errors = new FieldErrorBag();
  const provider = input.provider;
  if (provider === "none") {
    for (const [field, value] of [["peppol_api_key", input.apiKey], ["peppol_api_secret", input.apiSecret], ["peppol_company_id", input.companyId], ["peppol_base_url", input.baseUrl]] as const) {
      if (value !== undefined) errors.add(field, `The ${field} field cannot be given with --peppol-provider none.`);
    }
    errors.throwIfAny();
    return await unitOfWork(scope.db, async (tx) => {
      await tx.update(organizations).set({ peppolProvider: null, peppolCredentials: null, updatedAt: nowIso() }).where(eq(organizations.id, scope.org.id));
      await recordChange(tx, scope, { action: "organization.peppol_access_point_removed", resource: { type: "organization", id: scope.org.id } });
      return { peppol_provider: null };
    });
  }
  if (provider !== undefined && !(PEPPOL_PROVIDERS as readonly string[]).includes(provider)) {
    errors.add("peppol_provider", `The selected peppol_provider is invalid. ${validValues([...PEPPOL_PROVIDERS, "none"])}`);
    errors.throwIfAny();
  }
  return await unitOfWork(scope.db, async (tx) => {
    const row = await firstRow(tx.select({ provider: organizations.peppolProvider, credentials: organizations.peppolCredentials }).from(organizations).where(eq(organizations.id, scope.org.id)));
    if (!row) throw new NotFound();
    const chosen = (provider ?? row.provider) as PeppolProvider | null;
    if (chosen === null) {
      errors.add("peppol_provider", "The organisation has no Peppol access point: give --peppol-provider with its credentials.");
      errors.throwIfAny();
    }
    // the same provider again: the stored credentials are the defaults of what is not given
    // (unless they no longer open, sealed with another key: then everything must be given anew)
    let previous: Partial<StoredCredentials> = {};
    if (row.provider === chosen && row.credentials) {
      try {
        previous = JSON.parse(secrets.open(row.credentials, sealContext(scope.org.id)));
      } catch (error) {
        if (!(error instanceof SecretUnreadable)) throw error;
      }
    }
    const credentials = {
      apiKey: input.apiKey ?? previous.apiKey,
      apiSecret: input.apiSecret ?? previous.apiSecret,
      companyId: input.companyId ?? previous.companyId,
      baseUrl: input.baseUrl ?? previous.baseUrl ?? RECOMMAND_BASE_URL,
    };
    for (const [field, value] of [["peppol_api_key", credentials.apiKey], ["peppol_api_secret", credentials.apiSecret], ["peppol_company_id", credentials.companyId]] as const) {
      if (value === undefined || value.trim() === "") errors.add(field, `The ${field} field is required for the ${chosen} access point.`);
      else if (/[\u0000-\u001f\u007f]/.test(value)) errors.add(field, `The ${field} field must not contain control characters.`);
    }
    const urlProblem = baseUrlProblem(credentials.baseUrl);
    if (urlProblem) errors.add("peppol_base_url", urlProblem);
    errors.throwIfAny();
    await tx.update(organizations)
      .set({ peppolProvider: chosen, peppolCredentials: secrets.seal(JSON.stringify(credentials), sealContext(scope.org.id)), updatedAt: nowIso() })
      .where(eq(organizations.id, scope.org.id));
    await recordChange(tx, scope, { action: "organization.peppol_access_point_set", resource: { type: "organization", id: scope.org.id } });
    return { peppol_provider: chosen };
  });
}


/**
 * The organisation's access point, ready to call; null when it has none. Throws SecretUnreadable
 * when its credentials do not open with this server's key (another key file).
 */
export async function accessPointFor(db: Db, secrets: SecretBox, orgId: string, options: { timeoutMs?: number } = {}): Promise<AccessPoint | null> {
  const row = await firstRow(db.select({ provider: organizations.peppolProvider, credentials: organizations.peppolCredentials }).from(organizations).where(eq(organizations.id, orgId)));
  if (!row?.provider || !row.credentials) return null;
  const credentials = JSON.parse(secrets.open(row.credentials, sealContext(orgId))) as StoredCredentials;
  switch (row.provider) {
    case "recommand":
      return new RecommandAccessPoint(credentials, options.timeoutMs);
  }
}

/** The organisations that have an access point (the partial index organizations_peppol_provider). */
export async function organizationsWithAccessPoint(db: Db): Promise<string[]> {
  return (await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(isNotNull(organizations.peppolProvider), isNotNull(organizations.peppolCredentials))))
    .map((r) => r.id);
}
