import type { Tx } from "../../db/client.ts";
import { vatRates } from "../../db/schema.ts";
import { newId, nowIso } from "../lib/time.ts";

/** Standard rate first (it becomes the default), then reduced rates, in percent. */
const RATES_BY_COUNTRY: Record<string, number[]> = {
  BE: [21, 12, 6], NL: [21, 9], DE: [19, 7], FR: [20, 10, 5.5, 2.1], LU: [17, 14, 8, 3], GB: [20, 5],
  AT: [20, 13, 10], DK: [25], ES: [21, 10, 4], IT: [22, 10, 5, 4], IE: [23, 13.5, 9, 4.8], PT: [23, 13, 6],
  SE: [25, 12, 6], FI: [25.5, 14, 10], PL: [23, 8, 5], CZ: [21, 12], GR: [24, 13, 6], HU: [27, 18, 5],
  RO: [21, 11], SK: [23, 19, 5], SI: [22, 9.5, 5], HR: [25, 13, 5], BG: [20, 9], EE: [24, 9], LV: [21, 12, 5],
  LT: [21, 9, 5], CY: [19, 9, 5], MT: [18, 7, 5], CH: [8.1, 3.8, 2.6], NO: [25, 15, 12],
};

/** Seeds an organisation's VAT rates from its country; every organisation also gets 0 %. */
export function seedVatRates(tx: Tx, organizationId: string, country: string): void {
  const rates = RATES_BY_COUNTRY[country.toUpperCase()] ?? [];
  const now = nowIso();
  const rows = rates.map((rate, i) => ({
    id: newId(),
    organizationId,
    name: `${i === 0 ? "Standard" : "Reduced"} ${rate}%`,
    rateBp: Math.round(rate * 100),
    isDefault: i === 0,
    createdAt: now,
  }));
  rows.push({ id: newId(), organizationId, name: "Zero 0%", rateBp: 0, isDefault: rows.length === 0, createdAt: now });
  tx.insert(vatRates).values(rows).run();
}
