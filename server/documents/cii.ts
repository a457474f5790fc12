import type { IssuedDocument } from "./model.ts";

export function renderCii(doc: IssuedDocument): string {
  throw new Error("CII renderer not merged yet");
}
