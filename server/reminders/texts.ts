/**
 * The words of reminders: the default policy's subjects and bodies per level and language, the
 * information Book XIX requires in a consumer's first reminder, and the letter's own labels.
 * A text's `{placeholders}` are filled in by `fillText`.
 */
import type { DocumentLanguage, ReminderLevel, ReminderText } from "../../db/values.ts";

/** The values a text may name: `{number}` and so on. An unknown `{name}` stays as written. */
export type TextValues = {
  customer: string;
  organization: string;
  number: string;
  issue_date: string;
  due_date: string;
  amount_due: string;
  /** a consumer's last day to pay before anything may be charged (Book XIX), else the run's date + 14 */
  pay_by: string;
};

export function fillText(text: string, values: TextValues): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? values[name as keyof TextValues] : whole));
}

type LevelTexts = Record<DocumentLanguage, ReminderText>;

const FRIENDLY: LevelTexts = {
  en: {
    subject: "Invoice {number} falls due on {due_date}",
    body: "Dear {customer},\n\nA friendly note: invoice {number} of {issue_date}, {amount_due}, falls due on {due_date}. If you have already paid it, thank you, and please ignore this message.\n\nKind regards,\n{organization}",
  },
  nl: {
    subject: "Factuur {number} vervalt op {due_date}",
    body: "Beste {customer},\n\nEen vriendelijke herinnering: factuur {number} van {issue_date}, {amount_due}, vervalt op {due_date}. Hebt u ze al betaald, dan danken wij u en mag u dit bericht negeren.\n\nMet vriendelijke groeten,\n{organization}",
  },
  fr: {
    subject: "La facture {number} arrive à échéance le {due_date}",
    body: "Madame, Monsieur,\n\nPour rappel, la facture {number} du {issue_date}, d'un montant de {amount_due}, arrive à échéance le {due_date}. Si vous l'avez déjà réglée, nous vous en remercions et vous prions de ne pas tenir compte de ce message.\n\nMeilleures salutations,\n{organization}",
  },
  de: {
    subject: "Rechnung {number} ist am {due_date} fällig",
    body: "Sehr geehrte Damen und Herren,\n\neine freundliche Erinnerung: Rechnung {number} vom {issue_date} über {amount_due} ist am {due_date} fällig. Falls Sie sie bereits bezahlt haben, danken wir Ihnen und bitten Sie, diese Nachricht zu ignorieren.\n\nMit freundlichen Grüßen\n{organization}",
  },
};

const FIRST: LevelTexts = {
  en: {
    subject: "Reminder: invoice {number} is overdue",
    body: "Dear {customer},\n\nOur records show that invoice {number} of {issue_date}, due on {due_date}, is still unpaid: {amount_due}. Please pay it by {pay_by}. If your payment has crossed this reminder, please ignore it.\n\nKind regards,\n{organization}",
  },
  nl: {
    subject: "Herinnering: factuur {number} is vervallen",
    body: "Beste {customer},\n\nVolgens onze gegevens is factuur {number} van {issue_date}, vervallen op {due_date}, nog niet betaald: {amount_due}. Gelieve ze uiterlijk op {pay_by} te betalen. Is uw betaling onderweg, dan mag u deze herinnering negeren.\n\nMet vriendelijke groeten,\n{organization}",
  },
  fr: {
    subject: "Rappel : la facture {number} est échue",
    body: "Madame, Monsieur,\n\nSauf erreur de notre part, la facture {number} du {issue_date}, échue le {due_date}, reste impayée : {amount_due}. Nous vous prions de la régler au plus tard le {pay_by}. Si votre paiement a croisé ce rappel, veuillez ne pas en tenir compte.\n\nMeilleures salutations,\n{organization}",
  },
  de: {
    subject: "Zahlungserinnerung: Rechnung {number} ist überfällig",
    body: "Sehr geehrte Damen und Herren,\n\nnach unseren Unterlagen ist Rechnung {number} vom {issue_date}, fällig am {due_date}, noch offen: {amount_due}. Bitte begleichen Sie sie bis spätestens {pay_by}. Sollte sich Ihre Zahlung mit dieser Erinnerung überschnitten haben, betrachten Sie sie bitte als gegenstandslos.\n\nMit freundlichen Grüßen\n{organization}",
  },
};

const SECOND: LevelTexts = {
  en: {
    subject: "Second reminder: invoice {number}",
    body: "Dear {customer},\n\nDespite our reminder, invoice {number} of {issue_date}, due on {due_date}, is still unpaid: {amount_due}. Late-payment interest and, where the law allows it, compensation for recovery costs are now charged as set out below. Please pay by {pay_by}.\n\nKind regards,\n{organization}",
  },
  nl: {
    subject: "Tweede herinnering: factuur {number}",
    body: "Beste {customer},\n\nOndanks onze herinnering is factuur {number} van {issue_date}, vervallen op {due_date}, nog niet betaald: {amount_due}. Verwijlintresten en, waar de wet het toelaat, een vergoeding voor invorderingskosten worden nu aangerekend zoals hieronder vermeld. Gelieve te betalen uiterlijk op {pay_by}.\n\nMet vriendelijke groeten,\n{organization}",
  },
  fr: {
    subject: "Deuxième rappel : facture {number}",
    body: "Madame, Monsieur,\n\nMalgré notre rappel, la facture {number} du {issue_date}, échue le {due_date}, reste impayée : {amount_due}. Des intérêts de retard et, lorsque la loi le permet, une indemnité pour frais de recouvrement sont désormais réclamés comme indiqué ci-dessous. Nous vous prions de payer au plus tard le {pay_by}.\n\nMeilleures salutations,\n{organization}",
  },
  de: {
    subject: "Zweite Mahnung: Rechnung {number}",
    body: "Sehr geehrte Damen und Herren,\n\ntrotz unserer Erinnerung ist Rechnung {number} vom {issue_date}, fällig am {due_date}, weiterhin offen: {amount_due}. Verzugszinsen und, soweit gesetzlich zulässig, eine Entschädigung für Beitreibungskosten werden nun wie unten aufgeführt berechnet. Bitte zahlen Sie bis spätestens {pay_by}.\n\nMit freundlichen Grüßen\n{organization}",
  },
};

const FINAL: LevelTexts = {
  en: {
    subject: "Final reminder: invoice {number}",
    body: "Dear {customer},\n\nInvoice {number} of {issue_date}, due on {due_date}, remains unpaid: {amount_due}. This is our final reminder. Without payment by {pay_by} we will hand the claim over for collection without further notice.\n\nKind regards,\n{organization}",
  },
  nl: {
    subject: "Laatste herinnering: factuur {number}",
    body: "Beste {customer},\n\nFactuur {number} van {issue_date}, vervallen op {due_date}, blijft onbetaald: {amount_due}. Dit is onze laatste herinnering. Zonder betaling uiterlijk op {pay_by} dragen wij de vordering zonder verdere verwittiging over voor invordering.\n\nMet vriendelijke groeten,\n{organization}",
  },
  fr: {
    subject: "Dernier rappel : facture {number}",
    body: "Madame, Monsieur,\n\nLa facture {number} du {issue_date}, échue le {due_date}, reste impayée : {amount_due}. Ceci est notre dernier rappel. À défaut de paiement au plus tard le {pay_by}, nous confierons la créance au recouvrement sans autre avis.\n\nMeilleures salutations,\n{organization}",
  },
  de: {
    subject: "Letzte Mahnung: Rechnung {number}",
    body: "Sehr geehrte Damen und Herren,\n\nRechnung {number} vom {issue_date}, fällig am {due_date}, ist weiterhin offen: {amount_due}. Dies ist unsere letzte Mahnung. Ohne Zahlung bis spätestens {pay_by} übergeben wir die Forderung ohne weitere Ankündigung dem Inkasso.\n\nMit freundlichen Grüßen\n{organization}",
  },
};

/**
 * The default policy, lawful in Belgium: a friendly note 3 days before the due date; a first,
 * free reminder a week after it; a second 24 days after it, charging interest and the
 * compensation (for a consumer only what Book XIX allows, and only from 14 days after the first
 * reminder: 7 + 14 days, with 3 days for the first reminder's delivery); a final one at 45 days.
 */
export const DEFAULT_LEVELS: ReminderLevel[] = [
  { days_after_due: -3, charge_interest: false, charge_compensation: false, texts: FRIENDLY },
  { days_after_due: 7, charge_interest: false, charge_compensation: false, texts: FIRST },
  { days_after_due: 24, charge_interest: true, charge_compensation: true, texts: SECOND },
  { days_after_due: 45, charge_interest: true, charge_compensation: true, texts: FINAL },
];

/** A level's default texts: those of the default level it stands for (before the due date, first, second, final). */
export function defaultTexts(levels: readonly Pick<ReminderLevel, "days_after_due">[], index: number): LevelTexts {
  const level = levels[index]!;
  if (level.days_after_due <= 0) return FRIENDLY;
  const overdueBefore = levels.slice(0, index).filter((l) => l.days_after_due > 0).length;
  const overdueAfter = levels.slice(index + 1).filter((l) => l.days_after_due > 0).length;
  if (overdueBefore === 0) return FIRST;
  return overdueAfter === 0 ? FINAL : SECOND;
}

/**
 * What a consumer's first reminder must say (Code of Economic Law, art. XIX.2 §1, in force since
 * 1 September 2023): that it is free, the amount due, the due date, the term of at least 14
 * calendar days to pay before anything may be charged (counted from the day after it was sent
 * by e-mail, from the third working day after it was posted), and what may be charged after it
 * (art. XIX.2 §2: interest at most at the rate of art. 5 of the law of 2 August 2002, and a
 * fixed sum of at most €20 on a debt up to €150, €30 + 10 % of the part between €150.01 and
 * €500, €65 + 5 % of the part above €500, at most €2,000).
 */
export const CONSUMER_FIRST_REMINDER: Record<DocumentLanguage, (v: TextValues) => string> = {
  en: (v) =>
    `This first reminder is free of charge. Amount due: ${v.amount_due}; due date: ${v.due_date}. You have 14 calendar days, until ${v.pay_by}, to pay it without any cost. ` +
    "After that, the law (Code of Economic Law, art. XIX.2) allows us to charge late-payment interest at most at the rate of art. 5 of the law of 2 August 2002, " +
    "and a fixed compensation of at most €20 on a debt up to €150, €30 plus 10 % of the amount between €150.01 and €500, or €65 plus 5 % of the amount above €500, with a maximum of €2,000.",
  nl: (v) =>
    `Deze eerste herinnering is kosteloos. Verschuldigd bedrag: ${v.amount_due}; vervaldag: ${v.due_date}. U hebt 14 kalenderdagen, tot ${v.pay_by}, om zonder kosten te betalen. ` +
    "Daarna laat de wet (Wetboek van economisch recht, art. XIX.2) ons toe verwijlintresten aan te rekenen tegen ten hoogste de rentevoet van art. 5 van de wet van 2 augustus 2002, " +
    "en een forfaitaire schadevergoeding van ten hoogste € 20 voor een schuld tot € 150, € 30 plus 10 % van het bedrag tussen € 150,01 en € 500, of € 65 plus 5 % van het bedrag boven € 500, met een maximum van € 2.000.",
  fr: (v) =>
    `Ce premier rappel est gratuit. Montant dû : ${v.amount_due} ; date d'échéance : ${v.due_date}. Vous disposez de 14 jours calendrier, jusqu'au ${v.pay_by}, pour payer sans frais. ` +
    "Passé ce délai, la loi (Code de droit économique, art. XIX.2) nous permet de réclamer des intérêts de retard au plus au taux de l'art. 5 de la loi du 2 août 2002, " +
    "et une indemnité forfaitaire d'au plus 20 € pour une dette jusqu'à 150 €, 30 € plus 10 % du montant compris entre 150,01 € et 500 €, ou 65 € plus 5 % du montant au-delà de 500 €, avec un maximum de 2 000 €.",
  de: (v) =>
    `Diese erste Mahnung ist kostenlos. Fälliger Betrag: ${v.amount_due}; Fälligkeitsdatum: ${v.due_date}. Sie haben 14 Kalendertage, bis zum ${v.pay_by}, um ohne Kosten zu zahlen. ` +
    "Danach erlaubt uns das Gesetz (Wirtschaftsgesetzbuch, Art. XIX.2), Verzugszinsen höchstens zum Satz von Art. 5 des Gesetzes vom 2. August 2002 zu berechnen, " +
    "sowie eine Pauschalentschädigung von höchstens 20 € bei einer Schuld bis 150 €, 30 € zuzüglich 10 % des Betrags zwischen 150,01 € und 500 € oder 65 € zuzüglich 5 % des Betrags über 500 €, höchstens 2.000 €.",
};

/** The letter's own words beside the invoice's labels (documents/i18n.ts). */
export const LETTER_LABELS: Record<DocumentLanguage, { reminder: string; interest: string; compensation: string; totalToPay: string; interestNote: (n: string) => string }> = {
  en: { reminder: "Payment reminder", interest: "Late-payment interest", compensation: "Compensation for recovery costs", totalToPay: "Total to pay", interestNote: (n) => `interest note ${n}` },
  nl: { reminder: "Betalingsherinnering", interest: "Verwijlintresten", compensation: "Vergoeding voor invorderingskosten", totalToPay: "Totaal te betalen", interestNote: (n) => `intrestnota ${n}` },
  fr: { reminder: "Rappel de paiement", interest: "Intérêts de retard", compensation: "Indemnité pour frais de recouvrement", totalToPay: "Total à payer", interestNote: (n) => `note d'intérêts ${n}` },
  de: { reminder: "Zahlungserinnerung", interest: "Verzugszinsen", compensation: "Entschädigung für Beitreibungskosten", totalToPay: "Zu zahlender Gesamtbetrag", interestNote: (n) => `Zinsrechnung ${n}` },
};
