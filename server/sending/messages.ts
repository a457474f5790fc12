/**
 * The e-mail that carries an issued document, in its language (the document's: the customer's,
 * else the organisation's): it names the document, its total, due date and payment reference,
 * so that the reader can pay without opening the attachment. Dates and amounts are written as
 * the document writes them (documents/i18n.ts).
 */
import type { DocumentLanguage } from "../../db/values.ts";
import { LABELS, formatMoney } from "../documents/i18n.ts";
import type { IssuedDocument } from "../documents/model.ts";
import { isBelgianStructuredCommunication } from "../documents/payment-reference.ts";

type Words = {
  kind: Record<"invoice" | "credit_note" | "interest_note", string>;
  subject: (kind: string, number: string, seller: string) => string;
  greeting: (buyer: string) => string;
  attached: (kind: string, number: string, date: string) => string;
  total: (amount: string) => string;
  due: (amount: string, date: string) => string;
  /** `structured`: a Belgian structured communication, called so; else a payment reference */
  reference: (reference: string, iban: string | null, structured: boolean) => string;
  refund: (amount: string) => string;
  closing: string;
};

const WORDS: Record<DocumentLanguage, Words> = {
  en: {
    kind: { invoice: "Invoice", credit_note: "Credit note", interest_note: "Interest note" },
    subject: (kind, number, seller) => `${kind} ${number} from ${seller}`,
    greeting: (buyer) => `Dear ${buyer},`,
    attached: (kind, number, date) => `Please find attached ${kind.toLowerCase()} ${number} of ${date}.`,
    total: (amount) => `Total: ${amount}.`,
    due: (amount, date) => `Amount due: ${amount}, to be paid by ${date}.`,
    reference: (reference, iban, structured) => `Please quote the ${structured ? "structured communication" : "payment reference"} ${reference}${iban ? ` when paying to ${iban}` : ""}.`,
    refund: (amount) => `We owe you ${amount}.`,
    closing: "Kind regards,",
  },
  nl: {
    kind: { invoice: "Factuur", credit_note: "Creditnota", interest_note: "Nota nalatigheidsintresten" },
    subject: (kind, number, seller) => `${kind} ${number} van ${seller}`,
    greeting: (buyer) => `Geachte ${buyer},`,
    attached: (kind, number, date) => `In bijlage vindt u ${kind.toLowerCase()} ${number} van ${date}.`,
    total: (amount) => `Totaal: ${amount}.`,
    due: (amount, date) => `Te betalen: ${amount}, uiterlijk op ${date}.`,
    reference: (reference, iban, structured) => `Vermeld bij betaling ${structured ? "de gestructureerde mededeling" : "het betalingskenmerk"} ${reference}${iban ? ` (rekening ${iban})` : ""}.`,
    refund: (amount) => `Wij zijn u ${amount} verschuldigd.`,
    closing: "Met vriendelijke groeten,",
  },
  fr: {
    kind: { invoice: "Facture", credit_note: "Note de crédit", interest_note: "Note d'intérêts de retard" },
    subject: (kind, number, seller) => `${kind} ${number} de ${seller}`,
    greeting: (buyer) => `Madame, Monsieur (${buyer}),`,
    attached: (kind, number, date) => `Veuillez trouver ci-joint la pièce ${number} (${kind.toLowerCase()}) du ${date}.`,
    total: (amount) => `Total : ${amount}.`,
    due: (amount, date) => `Montant dû : ${amount}, à payer au plus tard le ${date}.`,
    reference: (reference, iban, structured) => `Merci d'indiquer ${structured ? "la communication structurée" : "la référence de paiement"} ${reference}${iban ? ` lors du paiement sur le compte ${iban}` : ""}.`,
    refund: (amount) => `Nous vous devons ${amount}.`,
    closing: "Meilleures salutations,",
  },
  de: {
    kind: { invoice: "Rechnung", credit_note: "Gutschrift", interest_note: "Zinsrechnung" },
    subject: (kind, number, seller) => `${kind} ${number} von ${seller}`,
    greeting: (buyer) => `Sehr geehrte Damen und Herren (${buyer}),`,
    attached: (kind, number, date) => `anbei erhalten Sie ${kind === "Rechnung" ? "die Rechnung" : kind === "Gutschrift" ? "die Gutschrift" : "die Zinsrechnung"} ${number} vom ${date}.`,
    total: (amount) => `Gesamtbetrag: ${amount}.`,
    due: (amount, date) => `Offener Betrag: ${amount}, zahlbar bis ${date}.`,
    reference: (reference, iban, structured) => `Bitte geben Sie bei der Zahlung${iban ? ` auf ${iban}` : ""} ${structured ? "die strukturierte Mitteilung" : "den Verwendungszweck"} ${reference} an.`,
    refund: (amount) => `Wir schulden Ihnen ${amount}.`,
    closing: "Mit freundlichen Grüßen",
  },
};

/** The subject and plain-text body of the e-mail that carries `doc`; `message`: the sender's own words, first. */
export function documentEmail(doc: IssuedDocument, message: string | null): { subject: string; text: string } {
  const words = WORDS[doc.language];
  const labels = LABELS[doc.language];
  const type = doc.type as keyof Words["kind"];
  const kind = words.kind[type] ?? words.kind.invoice;
  const money = (cents: number) => formatMoney(labels, cents, doc.currency);
  const lines: string[] = [];
  if (message) lines.push(message.trim(), "");
  lines.push(words.greeting(doc.buyer.name), "", words.attached(kind, doc.number, labels.date(doc.issueDate)), words.total(money(doc.totalCents)));
  if (doc.type === "credit_note") {
    if (doc.dueCents < 0) lines.push(words.refund(money(-doc.dueCents)));
  } else if (doc.dueCents > 0) {
    lines.push(words.due(money(doc.dueCents), labels.date(doc.dueDate)));
    if (doc.paymentReference) lines.push(words.reference(doc.paymentReference, doc.payee?.iban ?? null, isBelgianStructuredCommunication(doc.paymentReference)));
  }
  lines.push("", words.closing, doc.seller.name);
  return { subject: words.subject(kind, doc.number, doc.seller.name), text: `${lines.join("\n")}\n` };
}
