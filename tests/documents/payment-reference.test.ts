/** Payment references (issue 18): the Belgian structured communication and ISO 11649, as pure functions. */
import { describe, expect, test } from "bun:test";
import {
  belgianCheckDigits,
  belgianStructuredCommunication,
  creditorReference,
  isBelgianStructuredCommunication,
  isCreditorReference,
  paymentReference,
} from "../../server/documents/payment-reference.ts";

describe("Belgian structured communication", () => {
  test("a known-good reference is valid; its check digits are the first ten digits mod 97", () => {
    expect(isBelgianStructuredCommunication("+++090/9337/55493+++")).toBe(true);
    expect(isBelgianStructuredCommunication("***090/9337/55493***")).toBe(true);
    expect(isBelgianStructuredCommunication("090933755493")).toBe(true);
    expect(belgianCheckDigits("0909337554")).toBe("93");
    expect(belgianStructuredCommunication(909337554)).toBe("+++090/9337/55493+++");
  });

  test("mod 97 of 0 gives 97; small numbers are padded to ten digits", () => {
    expect(belgianStructuredCommunication(0)).toBe("+++000/0000/00097+++");
    expect(belgianStructuredCommunication(97)).toBe("+++000/0000/09797+++");
    expect(belgianStructuredCommunication(1)).toBe("+++000/0000/00101+++");
    expect(belgianStructuredCommunication(9_999_999_999)).toMatch(/^\+\+\+999\/9999\/999\d\d\+\+\+$/);
    expect(() => belgianStructuredCommunication(10_000_000_000)).toThrow(RangeError);
    expect(() => belgianStructuredCommunication(-1)).toThrow(RangeError);
  });

  test("every generated reference is valid, and one changed digit is caught", () => {
    for (const n of [1, 2, 42, 96, 97, 98, 12345, 999_999, 1_234_567_890]) {
      const reference = belgianStructuredCommunication(n);
      expect(reference).toMatch(/^\+\+\+\d{3}\/\d{4}\/\d{5}\+\+\+$/);
      expect(isBelgianStructuredCommunication(reference), reference).toBe(true);
    }
    expect(isBelgianStructuredCommunication("+++090/9337/55494+++")).toBe(false);
    expect(isBelgianStructuredCommunication("+++190/9337/55493+++")).toBe(false);
    expect(isBelgianStructuredCommunication("+++090/9337/5549+++")).toBe(false);
  });
});

describe("ISO 11649 creditor reference", () => {
  test("a known-good reference is valid and is rebuilt from its body", () => {
    expect(isCreditorReference("RF18539007547034")).toBe(true);
    expect(isCreditorReference("RF18 5390 0754 7034")).toBe(true);
    expect(creditorReference("539007547034")).toBe("RF18539007547034");
    expect(creditorReference("A")).toMatch(/^RF\d{2}A$/);
    expect(isCreditorReference(creditorReference("INV2026X42"))).toBe(true);
  });

  test("changed digits and bad shapes are refused", () => {
    expect(isCreditorReference("RF19539007547034")).toBe(false);
    expect(isCreditorReference("RF18539007547035")).toBe(false);
    expect(isCreditorReference("RF18")).toBe(false);
    expect(isCreditorReference(`RF00${"1".repeat(22)}`)).toBe(false);
    expect(() => creditorReference("")).toThrow(RangeError);
    expect(() => creditorReference("x-y")).toThrow(RangeError);
    expect(() => creditorReference("1".repeat(22))).toThrow(RangeError);
  });
});

test("paymentReference: Belgian organisations get a structured communication, others an RF reference", () => {
  expect(paymentReference("BE", 1)).toBe("+++000/0000/00101+++");
  expect(paymentReference("be", 909337554)).toBe("+++090/9337/55493+++");
  for (const country of ["NL", "DE", "FR", "US"]) {
    const reference = paymentReference(country, 42);
    expect(reference).toMatch(/^RF\d{2}0000000042$/);
    expect(isCreditorReference(reference)).toBe(true);
  }
});
