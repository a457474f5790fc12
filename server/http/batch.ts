/**
 * Batch creation (`POST /customers/batch`, `POST /invoices/batch`): up to MAX_BATCH_ITEMS items,
 * each the body of the single create, each created in its own transaction with its own result.
 * One item's refusal (a schema 422, a 409, a 403) is that item's result, never the batch's: the
 * route's body schema checks only the envelope, and each item is checked here with the single
 * create's schema, so its errors read as the single create's would (keys `lines.0.unit_price`).
 *
 * The answer is 200 with one result per item, in the items' order: `{status: 201, data}` for a
 * created resource, `{status: 422, code, message, errors}` for an invalid one and
 * `{status: 403 | 404 | 409, code, message, holder_id?}` for another refusal: the single
 * create's body beside its status. Under an Idempotency-Key the whole batch is one unit
 * (`once`): a retry replays every result and creates nothing again.
 */
import { t, type TSchema } from "elysia";
import { Kind, type Static, type TObject } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode, type FieldErrors } from "../lib/errors.ts";
import { documented, ErrorCodeField, ResponseSchema, strictObject } from "../lib/schemas.ts";
import { toValidationFailed } from "./validation.ts";

export const MAX_BATCH_ITEMS = 100;

/**
 * A schema that accepts any value but documents `schema`: its keywords are kept (so OpenAPI
 * shows, and names, the single create's schema) and its kind is Any (so Elysia checks nothing).
 */
function documentedOnly(schema: TSchema): TSchema {
  const { [Kind]: _kind, ...keywords } = schema;
  return t.Any(keywords);
}

/** The request body: `{items: [...]}`, each item documented as the single create's body. */
export function batchBody(item: TObject, title: string) {
  return strictObject(
    {
      items: t.Array(documentedOnly(item), {
        minItems: 1,
        maxItems: MAX_BATCH_ITEMS,
        description: `1 to ${MAX_BATCH_ITEMS} items, each the body of the single create; each is checked and created on its own`,
      }),
    },
    { title },
  );
}

/** A refused item's status: a 422 carries its field errors, the others the plain error body. */
const REFUSED_STATUSES = [403, 404, 409] as const;
type RefusedStatus = (typeof REFUSED_STATUSES)[number];

/** `status` as an integer enumeration a generated client types as its literal values (201, 403 | 404 | 409). */
const statusOf = (values: readonly number[], description?: string) => t.Integer({ ...documented({ enum: [...values] }), ...(description ? { description } : {}) });

/** An item the single create refused with a 422: its `errors` keyed by the item's own field paths. */
const BatchItemInvalid = t.Object(
  {
    status: statusOf([422]),
    code: ErrorCodeField,
    message: t.String(),
    errors: t.Record(t.String(), t.Array(t.String()), { description: "As a 422's `errors`, keyed by the item's own field paths (`lines.0.unit_price`)" }),
  },
  { title: "BatchItemInvalid", additionalProperties: false, description: "An item refused as the single create refuses an invalid body (422)" },
);

/** An item the single create refused otherwise: its error body, `holder_id` on a taken external_id. */
const BatchItemRefused = t.Object(
  {
    status: statusOf(REFUSED_STATUSES, "403 the token may not (finalize without invoicing.finalize), 404, 409 a conflict (a taken external_id: `holder_id`)"),
    code: ErrorCodeField,
    message: t.String(),
    holder_id: t.Optional(t.String({ description: "On a 409 for a taken external_id: the id of the resource that holds it" })),
  },
  { title: "BatchItemRefused", additionalProperties: false, description: "An item refused as the single create would have refused it (403, 404, 409): its error body" },
);

/**
 * The 200 answer: one result per item, in order, each one of three shapes told apart by
 * `status` (an integer, so no OpenAPI `discriminator`, which names string values: each shape's
 * `status` is an enumeration of its own, which generated clients narrow on). Named
 * `<title>` (the union), `<Resource>BatchCreated`, `BatchItemInvalid` and `BatchItemRefused`.
 */
export function batchResponse<S extends TSchema>(shown: S, title: string) {
  const created = t.Object(
    { status: statusOf([201]), data: shown },
    { title: title.replace(/Result$/, "Created"), additionalProperties: false, description: "An item created: the resource as the single create answers it" },
  );
  // `oneOf` in the document, not TypeBox's `anyOf`: exactly one shape holds for a result (their statuses differ)
  const result = t.Union([created, BatchItemInvalid, BatchItemRefused], {
    title,
    "x-one-of": true,
    description: "Created: status 201 and `data`. Refused: the status and the error body the single create would have answered",
  });
  return ResponseSchema(t.Object({ data: t.Array(result) }));
}

/** One item's result, as batchResponse documents it. */
export type BatchResult<T> =
  | { status: 201; data: T }
  | { status: 422; code: ErrorCode; message: string; errors: FieldErrors }
  | { status: RefusedStatus; code: ErrorCode; message: string; holder_id?: string };

/** An item's refusal as its result; a refusal the batch does not document is a fault of ours (500), not a new shape. */
function refused<T>(error: ApiError): BatchResult<T> {
  const body = error.toJSON() as { code: ErrorCode; message: string; holder_id?: string };
  if (error.status === 422) return { status: 422, code: body.code, message: body.message, errors: error.errors ?? {} };
  const status = REFUSED_STATUSES.find((s) => s === error.status);
  if (status === undefined) throw error;
  return { status, ...body };
}

/**
 * The batch of `schema`'s items (its checker compiled once): runs `create` for each item that
 * passes, each on its own. A refusal it throws (an ApiError) is the item's result; anything
 * else is a server error and fails the batch.
 */
export function batchRunner<S extends TObject>(schema: S) {
  const check = TypeCompiler.Compile(schema);
  return async <T>(items: unknown[], create: (item: Static<S>) => T | Promise<T>): Promise<{ data: BatchResult<T>[] }> => {
    const data: BatchResult<T>[] = [];
    // one after the other, in the order sent
    for (const raw of items) {
      // as Elysia does for a body: defaults filled in, then checked
      const item = Value.Default(schema, raw);
      const refusal = check.Check(item) ? null : toValidationFailed([...check.Errors(item)], "batch item");
      if (refusal) {
        data.push(refused(refusal));
        continue;
      }
      try {
        data.push({ status: 201, data: await create(item as Static<S>) });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        data.push(refused(error));
      }
    }
    return { data };
  };
}
