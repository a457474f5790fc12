/**
 * An organisation's reminder policy (docs/reminders.md#reminder-policy): `GET`/`PUT /api/v1/reminder-policy`. Until it is
 * saved, the defaults of texts.ts, disabled: an upgrade reminds nobody's customers unasked.
 */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { reminderPolicies } from "../../db/schema.ts";
import { DOCUMENT_LANGUAGES, type ReminderChannel, type ReminderLevel } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { nowIso } from "../lib/time.ts";
import type { ReminderPolicyUpdate, ShownReminderPolicy } from "./model.ts";
import { DEFAULT_LEVELS, defaultTexts } from "./texts.ts";
import { firstRow } from "../../db/client.ts";

export type ReminderPolicy = { enabled: boolean; channel: ReminderChannel; levels: ReminderLevel[]; updatedAt: string | null };

/** The stored policy, or the defaults (disabled, by e-mail). */
export async function readPolicy(tx: Tx, orgId: string): Promise<ReminderPolicy> {
  const row = await firstRow(tx.select().from(reminderPolicies).where(eq(reminderPolicies.organizationId, orgId)));
  if (!row) return { enabled: false, channel: "email", levels: DEFAULT_LEVELS, updatedAt: null };
  return { enabled: row.enabled, channel: row.channel, levels: row.levels, updatedAt: row.updatedAt };
}

/** The policy with every level's texts in every language (the defaults where none was set). */
function presentPolicy(policy: ReminderPolicy): ShownReminderPolicy {
  return {
    enabled: policy.enabled,
    channel: policy.channel,
    levels: policy.levels.map((level, i) => {
      const defaults = defaultTexts(policy.levels, i);
      return {
        days_after_due: level.days_after_due,
        charge_interest: level.charge_interest,
        charge_compensation: level.charge_compensation,
        texts: Object.fromEntries(DOCUMENT_LANGUAGES.map((language) => [language, level.texts?.[language] ?? defaults[language]])) as ShownReminderPolicy["levels"][number]["texts"],
      };
    }),
    is_default: policy.updatedAt === null,
    updated_at: policy.updatedAt,
  };
}

export async function showPolicy(scope: Scope): Promise<ShownReminderPolicy> {
  return await snapshot(scope.db, async (tx) => presentPolicy(await readPolicy(tx, scope.org.id)));
}

/** Replaces the policy as a whole. Levels come in increasing days, each day once: a level's index is its identity. */
export async function updatePolicy(scope: Scope, input: ReminderPolicyUpdate): Promise<ShownReminderPolicy> {
  const bag = new FieldErrorBag();
  if (input.channel === "peppol") {
    bag.add("channel", "A reminder does not travel over Peppol (Peppol BIS Billing 3.0 carries invoices and credit notes, not letters): use email, preferred (whose Peppol customers get their reminders by e-mail) or manual.");
  }
  input.levels.forEach((level, i) => {
    if (i > 0 && level.days_after_due <= input.levels[i - 1]!.days_after_due) {
      bag.add(`levels.${i}.days_after_due`, "The levels' days_after_due must increase from one level to the next, each day once.");
    }
  });
  bag.throwIfAny();
  const levels: ReminderLevel[] = input.levels.map((level) => ({
    days_after_due: level.days_after_due,
    charge_interest: level.charge_interest,
    charge_compensation: level.charge_compensation,
    ...(level.texts && Object.keys(level.texts).length > 0 ? { texts: level.texts } : {}),
  }));
  return await unitOfWork(scope.db, async (tx) => {
    const now = nowIso();
    const values = { enabled: input.enabled, channel: input.channel, levels, updatedAt: now };
    await tx.insert(reminderPolicies)
      .values({ organizationId: scope.org.id, ...values, createdAt: now })
      .onConflictDoUpdate({ target: reminderPolicies.organizationId, set: values });
    await recordChange(tx, scope, { action: "reminder_policy.updated", resource: { type: "reminder_policy", id: scope.org.id } });
    return presentPolicy(await readPolicy(tx, scope.org.id));
  });
}
