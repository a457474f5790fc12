/**
 * Belgium's statutory late-payment interest rates for commercial transactions, as published
 * (law of 2 August 2002 on combating late payment in commercial transactions, art. 5, as amended
 * by the law of 22 November 2013 transposing Directive 2011/7/EU): the ECB's rate on its most
 * recent main refinancing operation before the half year, plus 8 points, rounded up to the next
 * half point. The FPS Finance (Treasury) publishes each half year's figure as a notice in the
 * Belgian Official Journal (Moniteur belge / Belgisch Staatsblad), "Taux d'intérêt applicable en
 * cas de retard de paiement dans les transactions commerciales".
 *
 * Written offline, from the published notices as known, each figure checked against the rule
 * (the ECB rate in the comment): where the exact publication date of a notice is not known here,
 * the source says so rather than invent one. Migration 0036 seeds these rows; later half years
 * are added with `kontor rates add`.
 *
 * The transitional regime of 2013–2015 (contracts concluded before 16 March 2013 kept the old
 * 7-point rate until 16 March 2015) is not in the table: the rows are those of contracts
 * concluded from 16 March 2013, and before that date the 7-point rate of the law as it stood.
 */
export type PublishedRate = { from: string; to: string; rateBp: number; source: string };

const notice = (half: string, published: string) =>
  `FPS Finance notice, Belgian Official Journal: "Taux d'intérêt applicable en cas de retard de paiement dans les transactions commerciales", ${half} (law of 2 August 2002, art. 5); ${published}`;
const UNDATED = "publication date not verified offline";

export const BELGIAN_RATES: readonly PublishedRate[] = [
  // ECB 0.75 % + 7 points (the law before its 2013 amendment), rounded up: 8.00 %
  { from: "2013-01-01", to: "2013-03-15", rateBp: 800, source: notice("first half of 2013 (contracts concluded before 16 March 2013)", UNDATED) },
  // ECB 0.75 % + 8 points = 8.75 %, rounded up: 9.00 % (law of 22 November 2013, retroactive to 16 March 2013)
  { from: "2013-03-16", to: "2013-06-30", rateBp: 900, source: notice("16 March to 30 June 2013", "Belgian Official Journal of 23 January 2014, p. 5765, no. 2014/03032") },
  // ECB 0.50 % + 8 = 8.50 %
  { from: "2013-07-01", to: "2013-12-31", rateBp: 850, source: notice("second half of 2013", "Belgian Official Journal of 23 January 2014, p. 5765, no. 2014/03032") },
  // ECB 0.25 % + 8 = 8.25 % → 8.50 %
  { from: "2014-01-01", to: "2014-06-30", rateBp: 850, source: notice("first half of 2014", "Belgian Official Journal of 23 January 2014, p. 5765, no. 2014/03033") },
  // ECB 0.15 % + 8 = 8.15 % → 8.50 %
  { from: "2014-07-01", to: "2014-12-31", rateBp: 850, source: notice("second half of 2014", UNDATED) },
  // ECB 0.05 % + 8 = 8.05 % → 8.50 % (three half years)
  { from: "2015-01-01", to: "2015-06-30", rateBp: 850, source: notice("first half of 2015", UNDATED) },
  { from: "2015-07-01", to: "2015-12-31", rateBp: 850, source: notice("second half of 2015", UNDATED) },
  { from: "2016-01-01", to: "2016-06-30", rateBp: 850, source: notice("first half of 2016", UNDATED) },
  // ECB 0.00 % (from 16 March 2016) + 8 = 8.00 %, until the second half of 2022 (the ECB raised its rate on 27 July 2022)
  ...(["2016", "2017", "2018", "2019", "2020", "2021", "2022"] as const).flatMap((year) => [
    ...(year === "2016" ? [] : [{ from: `${year}-01-01`, to: `${year}-06-30`, rateBp: 800, source: notice(`first half of ${year}`, UNDATED) }]),
    {
      from: `${year}-07-01`,
      to: `${year}-12-31`,
      rateBp: 800,
      source: notice(`second half of ${year}`, year === "2018" ? "Belgian Official Journal of 25 July 2018" : UNDATED),
    },
  ]),
  // ECB 2.50 % (from 21 December 2022) + 8 = 10.50 %
  { from: "2023-01-01", to: "2023-06-30", rateBp: 1050, source: notice("first half of 2023", UNDATED) },
  // ECB 4.00 % (from 21 June 2023) + 8 = 12.00 %
  { from: "2023-07-01", to: "2023-12-31", rateBp: 1200, source: notice("second half of 2023", UNDATED) },
  // ECB 4.50 % + 8 = 12.50 %
  { from: "2024-01-01", to: "2024-06-30", rateBp: 1250, source: notice("first half of 2024", UNDATED) },
  // ECB 4.25 % (from 12 June 2024) + 8 = 12.25 % → 12.50 %
  { from: "2024-07-01", to: "2024-12-31", rateBp: 1250, source: notice("second half of 2024", UNDATED) },
  // ECB 3.15 % (from 18 December 2024) + 8 = 11.15 % → 11.50 %
  { from: "2025-01-01", to: "2025-06-30", rateBp: 1150, source: notice("first half of 2025", UNDATED) },
  // ECB 2.15 % (from 11 June 2025) + 8 = 10.15 % → 10.50 %
  { from: "2025-07-01", to: "2025-12-31", rateBp: 1050, source: notice("second half of 2025", UNDATED) },
  // ECB 2.15 % + 8 = 10.15 % → 10.50 % (the figure docs/reminders.md#statutory-interest quotes)
  { from: "2026-01-01", to: "2026-06-30", rateBp: 1050, source: notice("first half of 2026", UNDATED) },
];
