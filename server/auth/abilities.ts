/** Abilities, `<area>.<action>`, each a token's permission for a set of routes, and what each role grants (docs/api.md#tokens-and-abilities). */
export const ABILITIES = [
  "accounting.view", "accounting.create", "accounting.edit", "accounting.delete", "accounting.close-year", "accounting.reopen-year",
  "banking.view", "banking.create", "banking.edit", "banking.delete", "banking.import", "banking.reconcile",
  "contacts.view", "contacts.create", "contacts.edit", "contacts.delete",
  "expenses.view", "expenses.create", "expenses.edit", "expenses.delete", "expenses.approve",
  "invoicing.view", "invoicing.create", "invoicing.edit", "invoicing.delete", "invoicing.finalize", "invoicing.record-payment",
  "organization.view", "organization.edit", "organization.manage-users", "organization.delete", "organization.view-audit-log",
  "reporting.view",
  "payroll.view", "payroll.create", "payroll.edit", "payroll.delete",
  "migration.import",
] as const;

export type Ability = (typeof ABILITIES)[number];
export const WILDCARD = "*";

import type { Role } from "../../db/values.ts";
export { ROLES, type Role } from "../../db/values.ts";

const views = ABILITIES.filter((a) => a.endsWith(".view"));
const ROLE_ABILITIES: Record<Role, ReadonlySet<string>> = {
  owner: new Set(ABILITIES),
  admin: new Set(ABILITIES),
  accountant: new Set(
    ABILITIES.filter((a) => !["organization.edit", "organization.manage-users", "organization.delete"].includes(a)),
  ),
  member: new Set([
    ...views,
    "contacts.create", "contacts.edit",
    "invoicing.create", "invoicing.edit",
    "expenses.create", "expenses.edit",
  ]),
  viewer: new Set(views),
};

export function roleAbilities(role: Role): ReadonlySet<string> {
  return ROLE_ABILITIES[role];
}

export function isAbility(value: string): value is Ability {
  return (ABILITIES as readonly string[]).includes(value);
}

/**
 * What a token may do: an organisation token its own abilities (`*` is all); a personal token
 * its own ∩ its user's role, so a demoted user's tokens lose power at once.
 */
export function effectiveAbilities(tokenAbilities: string[], role: Role | null): Set<string> {
  const own = tokenAbilities.includes(WILDCARD) ? new Set<string>(ABILITIES) : new Set(tokenAbilities);
  if (role === null) return own;
  const granted = roleAbilities(role);
  return new Set([...own].filter((a) => granted.has(a)));
}
