/**
 * Factur-X 1.07 / ZUGFeRD 2.3 (profile EN 16931): the document's PDF as a PDF/A-3b file that
 * carries its CII invoice as the embedded file `factur-x.xml`.
 *
 * It is applied by renderPdf (`renderPdf(doc, { facturx: xml })`) to the pdf-lib document
 * before it is saved, rather than to the saved bytes: the PDF is built once, in its PDF/A form,
 * its Info dictionary and XMP written from the same values, and nothing is parsed back (reparsing
 * and saving again would cost a second serialisation and could renumber objects). The bytes stay
 * deterministic: every date is the document's (renderPdf's `fileDate`), and nothing is random.
 *
 * What PDF/A-3b asks beyond the plain PDF, and where it is met:
 * - fonts embedded (pdf.ts already embeds subsets of DejaVu Sans; no standard 14 font is used);
 * - device colours need an output intent: an sRGB ICC profile (assets/sRGB.icc, see
 *   assets/ATTRIBUTION.md) as the GTS_PDFA1 OutputIntent;
 * - an XMP metadata stream, unfiltered, with the PDF/A identification (pdfaid:part 3,
 *   conformance B), the Info dictionary's values (dc:title, dc:creator, dc:description,
 *   xmp:CreatorTool, pdf:Producer, the dates) and the Factur-X extension schema (fx:);
 * - the trailer's ID (pdf.ts), no encryption, no JavaScript, no external content;
 * - an embedded file is an associated file: its file specification has /F, /UF, /Desc and
 *   /AFRelationship and is listed in the catalog's /AF; its stream has /Subtype (text/xml) and
 *   /Params with /ModDate and /Size.
 */
import { PDFName, PDFString, type PDFDocument } from "pdf-lib";
import iccPath from "./assets/sRGB.icc" with { type: "file" };

/** The embedded XML's file name, which Factur-X and ZUGFeRD 2.x fix. */
export const FACTURX_FILE_NAME = "factur-x.xml";
/** The Factur-X XMP extension schema's namespace and the profile this file is declared as. */
const FX_NAMESPACE = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";
const FX_CONFORMANCE = "EN 16931";

/** What the Info dictionary says of the file; the XMP says the same (PDF/A 6.6.2.3.1). */
export type PdfIdentity = {
  title: string;
  author: string;
  subject: string;
  creator: string;
  producer: string;
  language: string;
  /** the creation and modification date (the document's, not the clock's) */
  date: Date;
};

let icc: Promise<Uint8Array> | null = null;
function loadIcc() {
  icc ??= Bun.file(iccPath)
    .arrayBuffer()
    .then(
      (buffer) => new Uint8Array(buffer),
      (error) => {
        icc = null;
        throw error;
      },
    );
  return icc;
}

/** Makes `pdf` (its Info dictionary already written from `identity`) a Factur-X PDF/A-3b document carrying `ciiXml`. */
export async function applyFacturX(pdf: PDFDocument, ciiXml: string, identity: PdfIdentity): Promise<void> {
  const context = pdf.context;
  const xml = new TextEncoder().encode(ciiXml);
  // written here rather than by pdf-lib's `attach`, which writes the name as UTF-16 (hex) strings:
  // poppler's `pdfdetach -savefile factur-x.xml` then finds no such file; an ASCII name is a plain string
  const stream = context.register(context.flateStream(xml, {
    Type: "EmbeddedFile",
    Subtype: "text/xml",
    Params: { Size: xml.length, CreationDate: PDFString.fromDate(identity.date), ModDate: PDFString.fromDate(identity.date) },
  }));
  const fileSpec = context.register(
    context.obj({
      Type: "Filespec",
      F: PDFString.of(FACTURX_FILE_NAME),
      UF: PDFString.of(FACTURX_FILE_NAME),
      EF: { F: stream, UF: stream },
      Desc: PDFString.of("Factur-X invoice (EN 16931)"),
      // Factur-X: "Alternative" for the EN 16931 profile (the XML is the invoice the PDF shows)
      AFRelationship: "Alternative",
    }),
  );
  pdf.catalog.set(PDFName.of("Names"), context.obj({ EmbeddedFiles: { Names: [PDFString.of(FACTURX_FILE_NAME), fileSpec] } }));
  pdf.catalog.set(PDFName.of("AF"), context.obj([fileSpec]));

  const profile = context.register(context.flateStream(await loadIcc(), { N: 3 }));
  pdf.catalog.set(
    PDFName.of("OutputIntents"),
    context.obj([
      context.obj({
        Type: "OutputIntent",
        S: "GTS_PDFA1",
        OutputConditionIdentifier: PDFString.of("sRGB IEC61966-2.1"),
        RegistryName: PDFString.of("http://www.color.org"),
        Info: PDFString.of("sRGB IEC61966-2.1"),
        DestOutputProfile: profile,
      }),
    ]),
  );

  // the metadata stream must not be filtered (PDF/A 6.6.2.1), so a plain stream of UTF-8 bytes
  const metadata = context.stream(new TextEncoder().encode(xmp(identity)), { Type: "Metadata", Subtype: "XML" });
  pdf.catalog.set(PDFName.of("Metadata"), context.register(metadata));
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** An XMP date: the same instant as the Info dictionary's `D:YYYYMMDDHHmmSSZ` (pdf-lib writes UTC). */
const xmpDate = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The XMP packet: PDF/A identification, the Info dictionary's values, and the Factur-X fields with their extension schema. */
export function xmp(identity: PdfIdentity): string {
  const e = escapeXml;
  const date = xmpDate(identity.date);
  const property = (name: string, description: string) => `
              <rdf:li rdf:parseType="Resource">
                <pdfaProperty:name>${name}</pdfaProperty:name>
                <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                <pdfaProperty:category>external</pdfaProperty:category>
                <pdfaProperty:description>${description}</pdfaProperty:description>
              </rdf:li>`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
      <pdfaid:part>3</pdfaid:part>
      <pdfaid:conformance>B</pdfaid:conformance>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:format>application/pdf</dc:format>
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${e(identity.title)}</rdf:li></rdf:Alt></dc:title>
      <dc:creator><rdf:Seq><rdf:li>${e(identity.author)}</rdf:li></rdf:Seq></dc:creator>
      <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${e(identity.subject)}</rdf:li></rdf:Alt></dc:description>
      <dc:language><rdf:Bag><rdf:li>${e(identity.language)}</rdf:li></rdf:Bag></dc:language>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
      <xmp:CreatorTool>${e(identity.creator)}</xmp:CreatorTool>
      <xmp:CreateDate>${date}</xmp:CreateDate>
      <xmp:ModifyDate>${date}</xmp:ModifyDate>
      <xmp:MetadataDate>${date}</xmp:MetadataDate>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
      <pdf:Producer>${e(identity.producer)}</pdf:Producer>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}">
      <fx:DocumentType>INVOICE</fx:DocumentType>
      <fx:DocumentFileName>${FACTURX_FILE_NAME}</fx:DocumentFileName>
      <fx:Version>1.0</fx:Version>
      <fx:ConformanceLevel>${FX_CONFORMANCE}</fx:ConformanceLevel>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
      <pdfaExtension:schemas>
        <rdf:Bag>
          <rdf:li rdf:parseType="Resource">
            <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
            <pdfaSchema:namespaceURI>${FX_NAMESPACE}</pdfaSchema:namespaceURI>
            <pdfaSchema:prefix>fx</pdfaSchema:prefix>
            <pdfaSchema:property>
              <rdf:Seq>${property("DocumentFileName", "The name of the embedded XML document")}${property("DocumentType", "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER")}${property("Version", "The actual version of the standard applying to the embedded XML document")}${property("ConformanceLevel", "The conformance level of the embedded XML document")}
              </rdf:Seq>
            </pdfaSchema:property>
          </rdf:li>
        </rdf:Bag>
      </pdfaExtension:schemas>
    </rdf:Description>
  </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}
