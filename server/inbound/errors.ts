/**
 * The one error of the inbound readers (UBL documents, CAMT.053 and CODA statements): what is
 * wrong, in words a person can act on, and where (`path`, an XPath-like element path or a CODA
 * record position). It is a ValidationFailed, so a route that lets it through answers 422 with
 * `errors: { [path]: [message] }`.
 */
import { ValidationFailed } from "../lib/errors.ts";

export class InboundDocumentError extends ValidationFailed {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super({ [path]: [message] });
    this.name = "InboundDocumentError";
  }
}

/** What a statement upload may be, for the refusal of a file that is none of them. */
export const STATEMENT_FORMATS =
  "Kontor reads bank statements as ISO 20022 camt.053 XML (camt.053.001.02 to .13), Belgian CODA 2 text (records of 128 characters) and ZIP archives of such files.";
