/**
 * The grids of the Belgian periodic VAT return (form 625), decided in one place: which grid a sale
 * line, a purchase and their VAT go to, how 71/72 follow, and the plausibility checks. Pure: no
 * database, no clock. Each table below is a row per rule, in the order an accountant reads the
 * form, after the shared grid rules (docs/books.md#the-vat-return); a rule marked `verify` was not
 * checked against the FPS Finance instructions, and the guide names it so.
 */
import type { Chart, SupplyType, VatCategory } from "../../db/values.ts";
import { isFixedAsset } from "../ledger/accounts.ts";
import { vatCents } from "../lib/money.ts";

export type Grid =
  | "00" | "01" | "02" | "03" | "44" | "45" | "46" | "47" | "48" | "49"
  | "54" | "55" | "56" | "57" | "59" | "61" | "62" | "63" | "64" | "71" | "72"
  | "81" | "82" | "83" | "84" | "85" | "86" | "87" | "88";

/** Where a party is, seen from a Belgian declarant. */
export type Region = "BE" | "EU" | "non-EU";

/** The member states of the EU, Kontor's one list (ISO 3166-1 alpha-2; Greece is GR here, EL in VAT numbers and Intervat: intervatCountry). */
export const EU_COUNTRIES = new Set([
  "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
]);

/** A party's region; a party without a country is taken to be Belgian (a consumer without an address). */
export function regionOf(country: string | null | undefined): Region {
  const c = (country ?? "BE").toUpperCase();
  if (c === "BE") return "BE";
  return EU_COUNTRIES.has(c) ? "EU" : "non-EU";
}

/** What a line supplies when it does not say: a `K` line (intra-EU supply) goods, any other services. */
export const defaultSupplyType = (category: VatCategory): SupplyType => (category === "K" ? "goods" : "services");

// ---------------------------------------------------------------------------------------------
// Sales (part II): the base of an invoice line by its category, rate, buyer and supply type

export type SalesRule = {
  category: VatCategory;
  /** only at this rate (basis points); absent: any */
  rateBp?: number;
  /** only to a buyer there; absent: anywhere */
  buyer?: Region;
  /** only for goods or services; absent: both */
  supply?: SupplyType;
  /** the base's grid; null: outside the return */
  grid: Grid | null;
  /** the code the intra-Community listing gives it (44: S, 46: L) */
  intraCode?: "L" | "S";
  why: string;
  verify?: boolean;
  /** reported, and named in the return's warnings */
  warning?: string;
};

/**
 * The first row that matches decides. Credit notes issued go by the same rows to 48 (what would be
 * 44 or 46) or 49 (everything else, 47 included, as the schema's grid 48 names only 44 and 46);
 * the VAT of a sale goes to 54, of a credit note issued to 64.
 */
export const SALES_RULES: readonly SalesRule[] = [
  { category: "O", grid: null, why: "outside the scope of VAT (interest notes): not on the return" },
  { category: "S", rateBp: 600, grid: "01", why: "domestic supply at 6 %" },
  { category: "S", rateBp: 1200, grid: "02", why: "domestic supply at 12 %" },
  { category: "S", rateBp: 2100, grid: "03", why: "domestic supply at 21 %" },
  { category: "S", grid: "00", why: "a standard-rated supply at another rate", warning: "is at a standard rate the Belgian return has no grid for (6, 12 or 21 %): reported in 00", verify: true },
  { category: "Z", grid: "00", why: "zero-rated supply (0 %)" },
  { category: "E", grid: "47", why: "exempt supply (art. 44, no right to deduct)", verify: true },
  { category: "AE", buyer: "BE", grid: "45", why: "domestic reverse charge: the Belgian co-contractor owes the VAT" },
  { category: "AE", buyer: "EU", supply: "services", grid: "44", intraCode: "S", why: "services to a taxable customer in another member state (art. 21 §2)" },
  { category: "AE", buyer: "EU", supply: "goods", grid: "46", intraCode: "L", why: "goods to a customer registered in another member state, reverse charged there" },
  { category: "AE", buyer: "non-EU", grid: "47", why: "supply to a customer outside the EU: its place is abroad" },
  { category: "K", buyer: "EU", supply: "goods", grid: "46", intraCode: "L", why: "exempt intra-Community supply of goods" },
  { category: "K", buyer: "EU", supply: "services", grid: "44", intraCode: "S", why: "intra-Community services (EN 16931's K covers goods and services)" },
  { category: "K", buyer: "non-EU", grid: "47", why: "an intra-Community category to a customer outside the EU: reported as a supply abroad", warning: "is an intra-Community supply (K) to a buyer outside the EU: reported in 47" },
  { category: "K", buyer: "BE", grid: "00", why: "an intra-Community category to a Belgian buyer", warning: "is an intra-Community supply (K) to a Belgian buyer: reported in 00", verify: true },
  { category: "G", grid: "47", why: "export outside the EU" },
];

export type SaleLine = { category: VatCategory; rateBp: number; buyer: Region; supply: SupplyType };

/** The rule a sale line follows (the first that matches). */
export function salesRule(line: SaleLine): SalesRule {
  const rule = SALES_RULES.find(
    (r) => r.category === line.category && (r.rateBp === undefined || r.rateBp === line.rateBp) && (r.buyer === undefined || r.buyer === line.buyer) && (r.supply === undefined || r.supply === line.supply),
  );
  if (!rule) throw new Error(`salesRule: no row for ${line.category} ${line.rateBp} ${line.buyer} ${line.supply}`);
  return rule;
}

/** The grids a sale line's base and VAT go to: an invoice's, or a credit note's (48/49 and 64). Null: outside the return. */
export function saleGrids(line: SaleLine, creditNote: boolean): { base: Grid; vat: Grid; intraCode: "L" | "S" | null; rule: SalesRule } | null {
  const rule = salesRule(line);
  if (rule.grid === null) return null;
  if (!creditNote) return { base: rule.grid, vat: "54", intraCode: rule.intraCode ?? null, rule };
  const intra = rule.grid === "44" || rule.grid === "46";
  return { base: intra ? "48" : "49", vat: "64", intraCode: intra ? (rule.intraCode ?? null) : null, rule };
}

// ---------------------------------------------------------------------------------------------
// Purchases (part III): what was bought, by the account its expense category posts to

/** The two charts Kontor seeds: the generic one and the Belgian minimum chart (PCMN). */
export type ChartKind = Chart;

/** The account a purchase posted to, as the table reads it. */
export type PurchaseAccount = { code: string; type: string; systemAccount?: string | null };

export type PurchaseRule = {
  chart: ChartKind | "any";
  what: string;
  test: (account: PurchaseAccount, chart: ChartKind) => boolean;
  grid: "81" | "82" | "83";
  /** an intra-EU acquisition of it is of goods (86) or services (88) */
  goods: boolean;
  warning?: string;
};

/** The first row that matches decides. */
export const PURCHASE_RULES: readonly PurchaseRule[] = [
  { chart: "any", what: "a fixed asset: PCMN class 2 (be), 1600–1699 (generic), an asset account without a system role", test: isFixedAsset, grid: "83", goods: true },
  { chart: "be", what: "PCMN class 60: goods for resale, raw materials, consumables", test: (a) => a.code.startsWith("60"), grid: "81", goods: true },
  { chart: "be", what: "PCMN classes 61 to 64: services and sundry goods", test: (a) => /^6[1-4]/.test(a.code), grid: "82", goods: false },
  { chart: "be", what: "PCMN class 65: financial charges (bank charges, 657200): services", test: (a) => a.code.startsWith("65"), grid: "82", goods: false },
  { chart: "generic", what: "6100 Cost of goods sold (PCMN 604, goods for resale)", test: (a) => a.code === "6100", grid: "81", goods: true },
  { chart: "generic", what: "6200 to 6900: rent, office, travel, general expenses, bank charges (PCMN 61)", test: (a) => /^6[2-9]\d\d$/.test(a.code), grid: "82", goods: false },
  { chart: "any", what: "any other account", test: () => true, grid: "82", goods: false, warning: "posts to an account the return has no rule for: reported in 82" },
];

export function purchaseRule(account: PurchaseAccount, chart: ChartKind): PurchaseRule {
  return PURCHASE_RULES.find((r) => (r.chart === "any" || r.chart === chart) && r.test(account, chart))!;
}

/** The reverse charge received: which grid the base goes to beside 81–83, and where the self-assessed VAT is due. */
export type ReverseChargeRule = { category: VatCategory; supplier: Region; goods?: boolean; grid: "86" | "87" | "88"; due: "55" | "56"; why: string; warning?: string; verify?: boolean };

export const REVERSE_CHARGE_RULES: readonly ReverseChargeRule[] = [
  { category: "K", supplier: "EU", goods: true, grid: "86", due: "55", why: "intra-Community acquisition of goods" },
  { category: "K", supplier: "EU", goods: false, grid: "88", due: "55", why: "intra-Community services received (art. 21 §2)" },
  { category: "AE", supplier: "EU", goods: true, grid: "86", due: "55", why: "goods from another member state, reverse charged" },
  { category: "AE", supplier: "EU", goods: false, grid: "88", due: "55", why: "services from another member state (art. 21 §2)" },
  { category: "AE", supplier: "BE", grid: "87", due: "56", why: "domestic reverse charge received (co-contractor)" },
  { category: "AE", supplier: "non-EU", grid: "87", due: "56", why: "services from outside the EU" },
  { category: "K", supplier: "non-EU", grid: "87", due: "56", why: "an intra-Community category from outside the EU", warning: "is an intra-Community purchase (K) from a supplier outside the EU: reported in 87", verify: true },
  { category: "K", supplier: "BE", goods: true, grid: "86", due: "55", why: "an intra-Community category from a Belgian (or unknown) supplier", warning: "is an intra-Community purchase (K) from a supplier not known to be in another member state: reported in 86" },
  { category: "K", supplier: "BE", goods: false, grid: "88", due: "55", why: "an intra-Community category from a Belgian (or unknown) supplier", warning: "is an intra-Community purchase (K) from a supplier not known to be in another member state: reported in 88" },
];

/** The reverse-charge rule of a purchase at `category` (K or AE), or null for any other category. */
export function reverseChargeRule(category: VatCategory, supplier: Region, goods: boolean): ReverseChargeRule | null {
  return REVERSE_CHARGE_RULES.find((r) => r.category === category && r.supplier === supplier && (r.goods === undefined || r.goods === goods)) ?? null;
}

/**
 * The grids of a purchase's base and VAT. An invoice received: its base in 81/82/83 and, when it is
 * reverse charged, also in 86/87/88; its VAT (and the self-assessed VAT) deductible in 59, the
 * self-assessed VAT due in 55/56. A credit note received reduces 81/82/83 and goes to 84 (on
 * 86/88) or 85 (others); its VAT to 63; the self-assessed VAT it takes back reduces 55/56 and 59.
 */
export function purchaseGrids(
  input: { account: PurchaseAccount; chart: ChartKind; category: VatCategory; supplier: Region },
  creditNote: boolean,
): { nature: PurchaseRule; reverse: ReverseChargeRule | null; second: Grid | null; vat: Grid } {
  const nature = purchaseRule(input.account, input.chart);
  const reverse = input.category === "K" || input.category === "AE" ? reverseChargeRule(input.category, input.supplier, nature.goods) : null;
  if (!creditNote) return { nature, reverse, second: reverse?.grid ?? null, vat: "59" };
  return { nature, reverse, second: reverse && reverse.grid !== "87" ? "84" : "85", vat: "63" };
}

// ---------------------------------------------------------------------------------------------
// The balance (part VI) and the plausibility checks

/** XX = 54 + 55 + 56 + 57 + 61 + 63, YY = 59 + 62 + 64: 71 = XX − YY when positive, else 72 = YY − XX (71 = 0.00 when equal). */
export function withBalance(grids: Record<string, number>): Record<string, number> {
  const g = (n: string) => grids[n] ?? 0;
  const xx = g("54") + g("55") + g("56") + g("57") + g("61") + g("63");
  const yy = g("59") + g("62") + g("64");
  const out = { ...grids };
  delete out["71"];
  delete out["72"];
  if (xx >= yy) out["71"] = xx - yy;
  else out["72"] = yy - xx;
  return out;
}

export type GridCheck = { check: number; message: string; blocking: boolean };

/** `bp` basis points of `cents`, half-up in integers (server/lib/money.ts), exact for any amount of cents. */
const pct = (cents: number, bp: number) => Math.sign(cents) * vatCents(Math.abs(cents), bp);

/**
 * The plausibility checks Intervat runs (as the Noviat module models them): a negative grid blocks
 * filing (the schema refuses it); the others are warnings. Check 1 allows a cent of rounding per
 * 100 euro of base (verify).
 */
export function plausibility(grids: Record<string, number>): GridCheck[] {
  const g = (n: string) => grids[n] ?? 0;
  const out: GridCheck[] = [];
  for (const [grid, cents] of Object.entries(grids)) {
    if (cents < 0) out.push({ check: 0, message: `Grid ${grid} is negative (${(cents / 100).toFixed(2)}): the return cannot be filed until the books are corrected.`, blocking: true });
  }
  const expected54 = pct(g("01"), 600) + pct(g("02"), 1200) + pct(g("03"), 2100);
  const tolerance = Math.max(1, Math.ceil((g("01") + g("02") + g("03")) / 10000));
  if (Math.abs(expected54 - g("54")) > tolerance) out.push({ check: 1, message: "Grid 54 differs from 01 × 6 % + 02 × 12 % + 03 × 21 %.", blocking: false });
  if (pct(g("84") + g("86") + g("88"), 2100) < g("55")) out.push({ check: 2, message: "Grid 55 is more than 21 % of 84 + 86 + 88.", blocking: false });
  if (pct(g("85") + g("87"), 2100) < g("56") + g("57")) out.push({ check: 3, message: "Grids 56 + 57 are more than 21 % of 85 + 87.", blocking: false });
  if (pct(g("81") + g("82") + g("83") + g("84") + g("85"), 5000) < g("59")) out.push({ check: 4, message: "Grid 59 is more than 50 % of 81 + 82 + 83 + 84 + 85.", blocking: false });
  if (pct(g("85"), 2100) < g("63")) out.push({ check: 5, message: "Grid 63 is more than 21 % of 85.", blocking: false });
  if (pct(g("49"), 2100) < g("64")) out.push({ check: 6, message: "Grid 64 is more than 21 % of 49.", blocking: false });
  if (g("86") + g("88") > 0 && g("55") <= 0) out.push({ check: 7, message: "Grids 86 + 88 hold intra-Community acquisitions but 55 holds no VAT.", blocking: false });
  return out;
}

/** The grids as the return shows them: every grid with an amount, and 71 or 72 always, in grid order. */
export function shownGrids(grids: Record<string, number>): [string, number][] {
  return Object.entries(grids)
    .filter(([g, c]) => c !== 0 || g === "71" || g === "72")
    .sort(([a], [b]) => Number(a) - Number(b));
}
