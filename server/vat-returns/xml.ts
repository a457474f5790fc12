/**
 * The Intervat `VATConsignment` of a periodic VAT return (FPS Finance schema NewTVA-in_v0_9.xsd):
 * one declaration, its declarant, its period, the grids with an amount plus 71 or 72, whether a
 * client listing follows and whether a restitution is asked. Pure: the figures in, the file out.
 */
import { el, xmlDocument, type Xml } from "../documents/xml-writer.ts";
import { declarantXml, INPUT_COMMON_NS, type Declarant } from "./declarant.ts";
import type { VatPeriodName } from "../lib/vat-period.ts";
import { shownGrids } from "./grids.ts";

/** An amount as the schema writes it: positive, two decimals, a dot. */
const amount = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

export function vatConsignmentXml(input: {
  declarant: Declarant;
  period: VatPeriodName;
  /** grid → cents, 71 or 72 included; a negative grid cannot be written (the caller refuses to file it) */
  grids: Record<string, number>;
  clientListingNihil: boolean;
  askRestitution: boolean;
}): string {
  const { declarant, period } = input;
  const amounts: Xml[] = shownGrids(input.grids).map(([grid, cents]) => {
    if (cents < 0) throw new Error(`vatConsignmentXml: grid ${grid} is negative`);
    return el("ns2:Amount", { GridNumber: String(Number(grid)) }, amount(cents))!;
  });
  const periodEl = el(
    "ns2:Period",
    null,
    period.kind === "monthly" ? el("ns2:Month", null, String(period.index)) : el("ns2:Quarter", null, String(period.index)),
    el("ns2:Year", null, String(period.year)),
  );
  const reference = period.kind === "monthly" ? `${period.year}M${String(period.index).padStart(2, "0")}` : `${period.year}Q${period.index}`;
  const root = el(
    "ns2:VATConsignment",
    { xmlns: INPUT_COMMON_NS, "xmlns:ns2": "http://www.minfin.fgov.be/VATConsignment", VATDeclarationsNbr: "1" },
    el(
      "ns2:VATDeclaration",
      { SequenceNumber: "1", DeclarantReference: reference },
      declarantXml("ns2", declarant),
      periodEl,
      el("ns2:Data", null, ...amounts),
      el("ns2:ClientListingNihil", null, input.clientListingNihil ? "YES" : "NO"),
      { lines: [`<ns2:Ask Restitution="${input.askRestitution ? "YES" : "NO"}" Payment="NO"/>`] },
    ),
  );
  return xmlDocument(root);
}
