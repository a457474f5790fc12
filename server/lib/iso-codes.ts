/**
 * ISO country and currency codes as EN 16931 accepts them, so that nothing Kontor stores can make
 * an e-invoice fail its code-list rules. The schemas' formats use them (server/lib/schemas.ts:
 * "iso-3166-alpha2", "iso-4217"), and so do the services that check a code themselves (the CLI,
 * imported e-invoices); kept apart from the schemas so that those load no schema library.
 *
 * Both lists are copied from the CEN EN 16931 rules for UBL, ConnectingEurope/eInvoicing-EN16931
 * validation-1.3.16 (`ubl/xslt/EN16931-UBL-validation.xslt`, EUPL 1.2; the copy used is
 * ../shared/einvoicing/rules/CEN-EN16931-UBL.xslt): the code lists of rules BR-CL-14 and BR-CL-04.
 * Not ICU's lists: ICU names "EU" and "XK", knows no "XI", and changes with the runtime's version.
 */

/**
 * BR-CL-14: ISO 3166-1 alpha-2, plus XI (Northern Ireland, for VAT). The rule's list also has
 * "1A" (Kosovo in the EU's own list), left out: a country here is two letters.
 */
const COUNTRY_CODES = new Set(
  [
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ",
    "BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR",
    "CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR",
    "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU",
    "ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ",
    "LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ",
    "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF",
    "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI",
    "SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR",
    "TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XI YE YT ZA ZM ZW",
  ].join(" ").split(" "),
);

/**
 * BR-CL-04 (ISO 4217 alpha-3), without the codes that are not a currency an invoice can be paid
 * in: XXX (no currency), XTS (testing), the precious metals XAU, XAG, XPT, XPD, the bond-market
 * units XBA–XBD, the SDR XDR, XSU (SUCRE) and XUA (ADB unit of account).
 */
const CURRENCY_CODES = new Set(
  [
    "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD",
    "BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNH CNY COP COU CRC CUP CVE CZK DJF",
    "DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG",
    "HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK",
    "LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN",
    "NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR",
    "SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STD SVC SYP SZL THB TJS TMT TND TOP TRY",
    "TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VES VED VND VUV WST XAF XCD XCG XOF",
    "XPF YER ZAR ZMW ZWG",
  ].join(" ").split(" "),
);

/** A country code EN 16931 accepts (ISO 3166-1 alpha-2 or XI), upper case. */
export function isCountryCode(v: string): boolean {
  return COUNTRY_CODES.has(v);
}

/** A currency code EN 16931 accepts (ISO 4217) that is a currency, upper case. */
export function isCurrencyCode(v: string): boolean {
  return CURRENCY_CODES.has(v);
}
