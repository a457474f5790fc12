/**
 * What an interest note says, in the document's language: its lines (a period of interest, the
 * compensation or a consumer's damages), and its remark (the late invoice, and the law the claim
 * applied). The claim records the law as facts (`LawNote`), written here in each language; the
 * API's `law` is their English. Dates and amounts are written as the document writes them
 * (documents/i18n.ts); the English keeps its ISO dates, as the API's `law` has always said them.
 */
import { formatMoney, formatNumber, LABELS } from "../documents/i18n.ts";
import type { DocumentLanguage } from "../documents/model.ts";

/** Why the claim charges what it charges, as facts: each is a sentence of the claim's `law`. */
export type LawNote =
  | { kind: "business"; country: string }
  | { kind: "consumer_elsewhere"; country: string }
  | { kind: "consumer_no_reminder" }
  | { kind: "consumer"; acceptedOn: string; termEnds: string; from: string }
  | { kind: "no_table"; country: string }
  | { kind: "missing_rates"; periods: { from: string; to: string }[] }
  | { kind: "no_compensation"; currency: string };

/** One period of interest, as an interest note's line charges it. */
export type InterestPeriod = { from: string; to: string; days: number; rateBp: number; baseCents: number };

type Words = {
  interest: (p: InterestPeriod, currency: string) => string;
  compensation: string;
  damages: string;
  /** the note's remark: the invoice it charges interest on */
  late: (number: string, issueDate: string, dueDate: string) => string;
  law: (note: LawNote) => string;
};

const isoDays = (periods: { from: string; to: string }[]) => periods.map((p) => `${p.from}–${p.to}`).join(", ");

const EN: Words = {
  interest: (p, currency) => `Interest ${p.from}–${p.to} at ${(p.rateBp / 100).toFixed(2)} % on ${(p.baseCents / 100).toFixed(2)} ${currency} (${p.days} ${p.days === 1 ? "day" : "days"})`,
  compensation: "Fixed compensation for recovery costs",
  damages: "Damages for late payment (Code of Economic Law, art. XIX.4)",
  late: (number, issueDate, dueDate) => `Late payment of invoice ${number} of ${issueDate}, due on ${dueDate}.`,
  law: (n) => {
    switch (n.kind) {
      case "business":
        return `Business customer: late payment in commercial transactions (Directive 2011/7/EU; ${n.country === "BE" ? "Belgian law of 2 August 2002, art. 5 and 6" : `the law of ${n.country} transposing it`}): interest from the day after the due date at the published rate, actual/365, and the fixed compensation once per invoice.`;
      case "consumer_elsewhere":
        return `Consumer: Kontor knows no consumer late-payment rule for ${n.country}; nothing is charged.`;
      case "consumer_no_reminder":
        return "Consumer (Code of Economic Law, Book XIX): nothing is chargeable before the first, free reminder was sent and its 14-day term expired (art. XIX.2); no reminder was sent yet.";
      case "consumer":
        return `Consumer (Code of Economic Law, Book XIX): the first reminder was accepted on ${n.acceptedOn}, its 14-day term ends on ${n.termEnds} (art. XIX.2); interest from ${n.from} at most at the rate of the law of 2 August 2002, damages at the cap of art. XIX.4, no fixed compensation.`;
      case "no_table":
        return `No statutory interest rates are known for ${n.country} (kontor rates add): no interest is computed.`;
      case "missing_rates":
        return `No published rate for ${isoDays(n.periods)}: no interest for those days until the rate is added (kontor rates add).`;
      case "no_compensation":
        return `No compensation is set for ${n.currency} invoices (Kontor keeps no exchange rates): none is charged.`;
    }
  },
};

/** The words of a language other than English, with its dates, rates and amounts. */
function localWords(language: Exclude<DocumentLanguage, "en">): Words {
  const l = LABELS[language];
  const d = l.date;
  const days = (periods: { from: string; to: string }[]) => periods.map((p) => `${d(p.from)} – ${d(p.to)}`).join(", ");
  // no-break spaces, as the documents write amounts and rates: a wrapped line keeps "1 000,00 €" whole
  const rate = (bp: number) => `${formatNumber(l, bp)}\u00a0%`;
  const money = (cents: number, currency: string) => formatMoney(l, cents, currency);
  if (language === "nl") {
    return {
      interest: (p, c) => `Nalatigheidsintrest van ${d(p.from)} tot en met ${d(p.to)} tegen ${rate(p.rateBp)} op ${money(p.baseCents, c)} (${p.days} ${p.days === 1 ? "dag" : "dagen"})`,
      compensation: "Forfaitaire vergoeding voor invorderingskosten",
      damages: "Schadevergoeding wegens laattijdige betaling (Wetboek van economisch recht, art. XIX.4)",
      late: (number, issueDate, dueDate) => `Laattijdige betaling van factuur ${number} van ${d(issueDate)}, vervallen op ${d(dueDate)}.`,
      law: (n) => {
        switch (n.kind) {
          case "business":
            return `Zakelijke klant: betalingsachterstand bij handelstransacties (Richtlijn 2011/7/EU; ${n.country === "BE" ? "Belgische wet van 2 augustus 2002, art. 5 en 6" : `de wet van ${n.country} die ze omzet`}): intrest vanaf de dag na de vervaldag tegen de bekendgemaakte rentevoet, werkelijke dagen/365, en de forfaitaire vergoeding eenmaal per factuur.`;
          case "consumer_elsewhere":
            return `Consument: Kontor kent geen regel voor laattijdige betaling door consumenten in ${n.country}; er wordt niets aangerekend.`;
          case "consumer_no_reminder":
            return "Consument (Wetboek van economisch recht, boek XIX): er kan niets worden aangerekend voordat de eerste, kosteloze herinnering is verstuurd en de termijn van 14 dagen is verstreken (art. XIX.2); er werd nog geen herinnering verstuurd.";
          case "consumer":
            return `Consument (Wetboek van economisch recht, boek XIX): de eerste herinnering werd verstuurd op ${d(n.acceptedOn)}, de termijn van 14 dagen eindigt op ${d(n.termEnds)} (art. XIX.2); intrest vanaf ${d(n.from)} ten hoogste tegen de rentevoet van de wet van 2 augustus 2002, schadevergoeding ten hoogste het plafond van art. XIX.4, geen forfaitaire vergoeding.`;
          case "no_table":
            return `Voor ${n.country} zijn geen wettelijke rentevoeten bekend: er wordt geen intrest berekend.`;
          case "missing_rates":
            return `Geen bekendgemaakte rentevoet voor ${days(n.periods)}: geen intrest voor die dagen.`;
          case "no_compensation":
            return `Voor facturen in ${n.currency} is geen forfaitaire vergoeding ingesteld: er wordt er geen aangerekend.`;
        }
      },
    };
  }
  if (language === "fr") {
    return {
      interest: (p, c) => `Intérêts de retard du ${d(p.from)} au ${d(p.to)} au taux de ${rate(p.rateBp)} sur ${money(p.baseCents, c)} (${p.days} ${p.days === 1 ? "jour" : "jours"})`,
      compensation: "Indemnité forfaitaire pour frais de recouvrement",
      damages: "Dommages et intérêts pour retard de paiement (Code de droit économique, art. XIX.4)",
      late: (number, issueDate, dueDate) => `Retard de paiement de la facture ${number} du ${d(issueDate)}, échue le ${d(dueDate)}.`,
      law: (n) => {
        switch (n.kind) {
          case "business":
            return `Client professionnel : retards de paiement dans les transactions commerciales (directive 2011/7/UE ; ${n.country === "BE" ? "loi belge du 2 août 2002, art. 5 et 6" : `la loi de ${n.country} qui la transpose`}) : intérêts à compter du lendemain de l’échéance au taux publié, jours exacts/365, et l’indemnité forfaitaire une fois par facture.`;
          case "consumer_elsewhere":
            return `Consommateur : Kontor ne connaît aucune règle de retard de paiement des consommateurs pour ${n.country} ; rien n’est facturé.`;
          case "consumer_no_reminder":
            return "Consommateur (Code de droit économique, livre XIX) : rien ne peut être réclamé avant l’envoi du premier rappel gratuit et l’expiration de son délai de 14 jours (art. XIX.2) ; aucun rappel n’a encore été envoyé.";
          case "consumer":
            return `Consommateur (Code de droit économique, livre XIX) : le premier rappel a été envoyé le ${d(n.acceptedOn)}, son délai de 14 jours prend fin le ${d(n.termEnds)} (art. XIX.2) ; intérêts à compter du ${d(n.from)} au plus au taux de la loi du 2 août 2002, dommages et intérêts au plafond de l’art. XIX.4, pas d’indemnité forfaitaire.`;
          case "no_table":
            return `Aucun taux d’intérêt légal n’est connu pour ${n.country} : aucun intérêt n’est calculé.`;
          case "missing_rates":
            return `Aucun taux publié pour ${days(n.periods)} : pas d’intérêts pour ces jours.`;
          case "no_compensation":
            return `Aucune indemnité n’est fixée pour les factures en ${n.currency} : aucune n’est facturée.`;
        }
      },
    };
  }
  return {
    interest: (p, c) => `Verzugszinsen vom ${d(p.from)} bis ${d(p.to)} zu ${rate(p.rateBp)} auf ${money(p.baseCents, c)} (${p.days} ${p.days === 1 ? "Tag" : "Tage"})`,
    compensation: "Pauschale für Beitreibungskosten",
    damages: "Schadensersatz wegen verspäteter Zahlung (Wirtschaftsgesetzbuch, Art. XIX.4)",
    late: (number, issueDate, dueDate) => `Verspätete Zahlung der Rechnung ${number} vom ${d(issueDate)}, fällig am ${d(dueDate)}.`,
    law: (n) => {
      switch (n.kind) {
        case "business":
          return `Geschäftskunde: Zahlungsverzug im Geschäftsverkehr (Richtlinie 2011/7/EU; ${n.country === "BE" ? "belgisches Gesetz vom 2. August 2002, Art. 5 und 6" : `das Gesetz von ${n.country}, das sie umsetzt`}): Zinsen ab dem Tag nach Fälligkeit zum veröffentlichten Satz, tatsächliche Tage/365, und die Pauschale einmal je Rechnung.`;
        case "consumer_elsewhere":
          return `Verbraucher: Kontor kennt keine Verzugsregel für Verbraucher in ${n.country}; es wird nichts berechnet.`;
        case "consumer_no_reminder":
          return "Verbraucher (Wirtschaftsgesetzbuch, Buch XIX): Vor der ersten, kostenlosen Mahnung und dem Ablauf ihrer Frist von 14 Tagen kann nichts berechnet werden (Art. XIX.2); es wurde noch keine Mahnung versandt.";
        case "consumer":
          return `Verbraucher (Wirtschaftsgesetzbuch, Buch XIX): Die erste Mahnung wurde am ${d(n.acceptedOn)} versandt, ihre Frist von 14 Tagen endet am ${d(n.termEnds)} (Art. XIX.2); Zinsen ab dem ${d(n.from)} höchstens zum Satz des Gesetzes vom 2. August 2002, Schadensersatz höchstens bis zur Obergrenze von Art. XIX.4, keine Pauschale.`;
        case "no_table":
          return `Für ${n.country} sind keine gesetzlichen Zinssätze bekannt: Es werden keine Zinsen berechnet.`;
        case "missing_rates":
          return `Kein veröffentlichter Zinssatz für ${days(n.periods)}: keine Zinsen für diese Tage.`;
        case "no_compensation":
          return `Für Rechnungen in ${n.currency} ist keine Pauschale festgelegt: Es wird keine berechnet.`;
      }
    },
  };
}

const WORDS: Record<DocumentLanguage, Words> = { en: EN, nl: localWords("nl"), fr: localWords("fr"), de: localWords("de") };

/** The interest note's words in `language` (English for a language Kontor does not write). */
export const interestWords = (language: DocumentLanguage): Words => WORDS[language] ?? EN;

/** The claim's `law`, in `language`: its facts, one sentence each. */
export const lawText = (notes: readonly LawNote[], language: DocumentLanguage = "en"): string => notes.map((n) => interestWords(language).law(n)).join(" ");
