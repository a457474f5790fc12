/** The Belgian listings as the API shows them (reporting.view): JSON, or the Intervat XML at `/xml`. */
import { t } from "elysia";
import { Money, Nullable, ResponseSchema, Uuid } from "../lib/schemas.ts";

const Warning = t.Object(
  {
    code: t.String({
      description:
        "invalid_vat_number (a Belgian-looking VAT number failing mod 97), missing_vat_number (a Belgian business invoiced without one), other_currency (not converted: no exchange rates), no_client (nothing to file), no_vat_number (a 44/46 customer without a valid EU VAT number), negative_line (credit notes exceed the period's supplies)",
    }),
    message: t.String(),
    customer_id: Nullable(Uuid),
    customer_name: Nullable(t.String()),
  },
  { title: "ListingWarning" },
);

const ClientRow = t.Object(
  {
    vat_number: t.String({ description: "The customer's Belgian VAT number as issued on its documents, compact (BE and 10 digits)", examples: ["BE0417497106"] }),
    name: t.String({ description: "The buyer's name on its latest document of the year" }),
    customer_ids: t.Array(Uuid, { description: "The customer records invoiced under this VAT number (added up before the threshold)" }),
    documents: t.Integer({ description: "Invoices and credit notes of the year counted" }),
    turnover: t.String({ ...Money, description: "Net turnover without VAT: invoices less credit notes issued in the year" }),
    vat_amount: t.String({ ...Money, description: "Belgian VAT charged, less the VAT of credit notes" }),
  },
  { title: "ClientListingRow" },
);

const Declarant = t.Object({ vat_number: t.String({ examples: ["BE0477472701"] }), name: t.String() }, { title: "ListingDeclarant" });

const IntraLine = t.Object(
  {
    vat_number: t.String({ description: "The customer's VAT number as issued, compact, with its country prefix", examples: ["NL999999999B01"] }),
    country: t.String({ description: "The member state that issued it, as Intervat names it (Greece EL)", examples: ["NL"] }),
    number: t.String({ description: "The number after the country prefix, as the listing writes it", examples: ["999999999B01"] }),
    code: t.UnionEnum(["L", "S", "T"], { description: "L: intra-Community supply of goods (grid 46); S: services taxed in the customer's state (grid 44); T: triangular supply (not produced by Kontor)" }),
    amount: t.String({ ...Money, description: "The base of the period, less the credit notes on it (grid 48), without VAT" }),
    name: t.String(),
    customer_ids: t.Array(Uuid),
  },
  { title: "IntraListingRow" },
);

export const ListingModel = {
  yearParams: t.Object({ year: t.String({ description: "The calendar year, e.g. 2025; it must have ended" }) }),
  periodParams: t.Object({ period: t.String({ description: "The VAT period after the organisation's vat_period: YYYY-Qn (quarterly) or YYYY-MM (monthly); it must have ended", examples: ["2026-Q1"] }) }),
  clients: t.Object(
    {
      year: t.Integer(),
      declarant: Declarant,
      threshold: t.String({ ...Money, description: "A VAT number is listed when its turnover is more than this (250.00 exactly is not listed)" }),
      customers: t.Array(ClientRow, { description: "The listed customers, by VAT number" }),
      totals: t.Object({ clients: t.Integer(), turnover: Money, vat_amount: Money }, { description: "ClientsNbr, TurnOverSum and VATAmountSum of the listing" }),
      below_threshold: t.Array(ClientRow, { description: "Belgian VAT numbers invoiced in the year whose turnover is 250.00 or less: not listed" }),
      warnings: t.Array(Warning),
    },
    { title: "ClientListing" },
  ),
  intra: t.Object(
    {
      period: t.String({ examples: ["2026-Q1"] }),
      kind: t.UnionEnum(["monthly", "quarterly"], { description: "The organisation's vat_period" }),
      year: t.Integer(),
      index: t.Integer({ description: "The quarter (1–4) or the month (1–12)" }),
      from: t.String({ format: "date" }),
      to: t.String({ format: "date" }),
      declarant: Declarant,
      lines: t.Array(IntraLine, { description: "One line per customer VAT number and code; a net 0.00 is left out" }),
      totals: t.Object(
        {
          clients: t.Integer({ description: "ClientsNbr: the number of lines" }),
          amount: t.String({ ...Money, description: "AmountSum: the sum of the lines" }),
          unlisted: t.String({ ...Money, description: "What the return's 44 and 46 (less 48) hold for customers without a valid EU VAT number: named in the warnings, not listed" }),
          grid_44: t.String({ ...Money, description: "The return's grid 44 of the period" }),
          grid_46: t.String({ ...Money, description: "The return's grid 46 of the period" }),
          grid_48_on_44_46: t.String({ ...Money, description: "The part of the return's grid 48 that credits supplies of grids 44 and 46" }),
        },
        { description: "amount + unlisted = grid_44 + grid_46 − grid_48_on_44_46" },
      ),
      warnings: t.Array(Warning),
    },
    { title: "IntraListing" },
  ),
};

export const IntervatXml = (what: string) => ResponseSchema(t.String({ description: `The Intervat ${what} XML, to upload to Intervat`, "x-media-type": "application/xml", "x-attachment": true }));
