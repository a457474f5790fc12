/**
 * A fake Recommand access point on 127.0.0.1 that implements the endpoints of
 * tests/sending/recommand-api.json as that description (transcribed from Recommand's source)
 * defines them, not as Kontor's adapter assumes: every request is checked for its method, path,
 * Basic credentials, headers, query and body against it, and one that does not match is answered
 * 400 and kept in `violations` (the tests require it empty). Every answer it gives is checked
 * against the description's response schema too, so a scripted answer cannot drift from it.
 */
import Ajv, { type ValidateFunction } from "ajv";
import description from "./recommand-api.json" with { type: "json" };

type Endpoint = (typeof description.endpoints)[number];
type Answer = { status: number; body: unknown; delayMs?: number };
export type RecordedRequest = { operationId: string; params: Record<string, string>; query: Record<string, string>; body: any };

/** A document the fake keeps (incoming: in the inbox until marked read). */
export type FakeDocument = { id: string; direction: "incoming" | "outgoing"; senderId: string; receiverId: string; docTypeId: string; xml: string; readAt: string | null; sentOverPeppol: boolean };

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ $id: "recommand", components: description.components });
const compiled = new Map<object, ValidateFunction>();
const validatorOf = (schema: object) => {
  let v = compiled.get(schema);
  if (!v) compiled.set(schema, (v = ajv.compile(schema)));
  return v;
};

const PREFIX = new URL(description.base_url).pathname; // "/api/v1"

/** The route of a request: its endpoint and path parameters, or null. */
function route(method: string, pathname: string): { endpoint: Endpoint; params: Record<string, string> } | null {
  if (!pathname.startsWith(PREFIX)) return null;
  const rest = pathname.slice(PREFIX.length);
  for (const endpoint of description.endpoints) {
    if (endpoint.method !== method) continue;
    const names: string[] = [];
    const pattern = new RegExp(`^${endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), "([^/]+)"))}$`);
    const m = pattern.exec(rest);
    if (m) return { endpoint, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return null;
}

export type FakeRecommand = {
  baseUrl: string;
  violations: string[];
  requests: RecordedRequest[];
  documents: Map<string, FakeDocument>;
  /** scripted answers of sendDocument and markAsRead, taken in order; when empty, the normal answer */
  script: { sendDocument: Answer[]; markAsRead: Answer[] };
  /** participants registered for a document type id */
  registered: Set<string>;
  stop: () => void;
};

export function startFakeRecommand(credentials: { apiKey: string; apiSecret: string; companyId: string }): FakeRecommand {
  const expectedAuthorization = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiSecret}`).toString("base64")}`;
  const fake: Omit<FakeRecommand, "baseUrl" | "stop"> = { violations: [], requests: [], documents: new Map(), script: { sendDocument: [], markAsRead: [] }, registered: new Set() };
  let sent = 0;

  const listed = (d: FakeDocument) => ({
    id: d.id,
    teamId: "team_1",
    companyId: credentials.companyId,
    direction: d.direction,
    senderId: d.senderId,
    receiverId: d.receiverId,
    docTypeId: d.docTypeId,
    processId: "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0",
    countryC1: "BE",
    type: d.docTypeId.includes("CreditNote") ? "creditNote" : "invoice",
    readAt: d.readAt,
    createdAt: "2026-11-20T09:00:00.000Z",
    updatedAt: "2026-11-20T09:00:00.000Z",
    validation: { result: "valid", errors: [] },
    sentOverPeppol: d.sentOverPeppol,
    sentOverEmail: false,
    emailRecipients: [],
    labels: [],
    peppolMessageId: d.sentOverPeppol ? `msg-${d.id}` : null,
    peppolConversationId: null,
    receivedPeppolSignalMessage: null,
    envelopeId: null,
  });
  const failure = (status: number, message: string): Answer => ({ status, body: { success: false, errors: { root: [message] } } });

  /** What Recommand answers a valid request, unless a script says otherwise. */
  function answer(operationId: string, params: Record<string, string>, query: Record<string, string>, body: any): Answer {
    switch (operationId) {
      case "sendDocument": {
        const scripted = fake.script.sendDocument.shift();
        if (scripted) return scripted;
        if (params.companyId !== credentials.companyId) return failure(404, "Company not found");
        const id = `doc_${++sent}`;
        fake.documents.set(id, { id, direction: "outgoing", senderId: "0208:0123456749", receiverId: body.recipient, docTypeId: body.doctypeId, xml: body.document, readAt: null, sentOverPeppol: true });
        return { status: 200, body: { success: true, sentOverPeppol: true, sentOverEmail: false, emailRecipients: [], teamId: "team_1", companyId: credentials.companyId, id, peppolMessageId: `msg-${id}`, envelopeId: null } };
      }
      case "getDocument": {
        const d = fake.documents.get(params.documentId!);
        return d ? { status: 200, body: { success: true, document: { ...listed(d), xml: d.xml, parsed: null } } } : failure(404, "Document not found");
      }
      case "getInbox": {
        const documents = [...fake.documents.values()].filter((d) => d.direction === "incoming" && d.readAt === null && (!query.companyId || query.companyId === credentials.companyId));
        return { status: 200, body: { success: true, documents: documents.map(listed) } };
      }
      case "markAsRead": {
        const scripted = fake.script.markAsRead.shift();
        if (scripted) return scripted;
        const d = fake.documents.get(params.documentId!);
        if (!d) return failure(404, "Document not found");
        d.readAt = (body?.read ?? true) ? "2026-11-20T10:00:00.000Z" : null;
        return { status: 200, body: { success: true } };
      }
      case "verifyDocumentSupport":
        return fake.registered.has(`${body.peppolAddress} ${body.documentType}`)
          ? { status: 200, body: { success: true, isValid: true, smpUrl: "http://smp.example.test", serviceProvider: null, serviceEndpoint: null, technicalContact: null, certificateExpiry: null } }
          : { status: 200, body: { success: true, isValid: false } };
    }
    throw new Error(`no answer for ${operationId}`);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const what = `${request.method} ${url.pathname}`;
      const refuse = (problem: string) => {
        fake.violations.push(`${what}: ${problem}`);
        return Response.json({ success: false, errors: { request: [problem] } }, { status: 400 });
      };
      const matched = route(request.method, url.pathname);
      if (!matched) return refuse("no such endpoint in the description");
      const { endpoint, params } = matched;
      for (const [name, pattern] of Object.entries(endpoint.headers)) {
        const value = request.headers.get(name);
        if (value === null || !new RegExp(pattern).test(value)) return refuse(`header ${name} is ${JSON.stringify(value)}, not ${pattern}`);
      }
      if (request.headers.get("authorization") !== expectedAuthorization) return Response.json({ success: false, errors: { root: ["Unauthorized"] } }, { status: 401 });
      const query = Object.fromEntries(url.searchParams);
      const querySchema: object = ("query" in endpoint && endpoint.query) || { type: "object", maxProperties: 0 };
      if (!validatorOf(querySchema)(query)) return refuse(`query ${JSON.stringify(query)}: ${ajv.errorsText(validatorOf(querySchema).errors)}`);
      const text = await request.text();
      let body: unknown = undefined;
      if (endpoint.body === null) {
        if (text !== "") return refuse("a body where the endpoint takes none");
      } else if (text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          return refuse("a body that is not JSON");
        }
        const validate = validatorOf(endpoint.body);
        if (!validate(body)) return refuse(`body: ${ajv.errorsText(validate.errors)}`);
      } else if (endpoint.operationId !== "markAsRead") return refuse("no body");
      fake.requests.push({ operationId: endpoint.operationId, params, query, body });
      const out = answer(endpoint.operationId, params, query, body);
      const responseSchema = (endpoint.responses as unknown as Record<string, object | undefined>)[String(out.status)];
      // 429 and 5xx a gateway may answer with anything; every other answer is one the description allows
      if (out.status !== 429 && out.status < 500) {
        if (!responseSchema) fake.violations.push(`${what}: the fake answered ${out.status}, which the description does not list`);
        else if (!validatorOf(responseSchema)(out.body)) fake.violations.push(`${what}: the fake's answer breaks the description: ${ajv.errorsText(validatorOf(responseSchema).errors)}`);
      }
      if (out.delayMs) await Bun.sleep(out.delayMs);
      return typeof out.body === "string" ? new Response(out.body, { status: out.status }) : Response.json(out.body, { status: out.status });
    },
  });
  return { ...fake, baseUrl: `http://127.0.0.1:${server.port}${PREFIX}`, stop: () => server.stop(true) };
}
