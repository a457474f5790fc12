/**
 * Batch creation (`POST /customers/batch`, `POST /invoices/batch`): up to MAX_BATCH_ITEMS items,
 * each the body of the single create, each created in its own transaction with its own result.
 * One item's refusal (a schema 422, a 409, a 403) is that item's result, never the batch's: the
 * route's body schema checks only the envelope, and each item is checked here with the single
 * create's schema, so its errors read as the single create's would (keys `lines.0.unit_price`).
 *
 * The answer is 200 with one result per item, in the items' order: `{status, data}` for a
 * created resource (status 201), `{status, code, message, errors?}` for a refused one, the
 * single create's body beside its status. Under an Idempotency-Key the whole batch is one unit
 * (`once`): a retry replays every result and creates nothing again.
 */
import { t, type TSchema } from "elysia";
import { Kind, type Static, type TObject } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { ApiError } from "../lib/errors.ts";
import { ErrorCodeField, ResponseSchema, strictObject } from "../lib/schemas.ts";
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

/** The 200 answer: one result per item, in order. */
export function batchResponse(shown: TSchema, title: string) {
  return ResponseSchema(
    t.Object({
      data: t.Array(
        t.Object(
          {
            status: t.Integer({ description: "The status the single create would have answered: 201 created, else 403, 404, 409, 422", examples: [201] }),
            data: t.Optional(shown),
            code: t.Optional(ErrorCodeField),
            message: t.Optional(t.String()),
            errors: t.Optional(t.Record(t.String(), t.Array(t.String()), { description: "As a 422's `errors`, keyed by the item's own field paths" })),
          },
          { title, description: "Created: status 201 and `data`. Refused: the status and the error body the single create would have answered" },
        ),
      ),
    }),
  );
}

export type BatchResult<T> = { status: number; data: T } | ({ status: number } & ReturnType<ApiError["toJSON"]>);

/**
 * The batch of `schema`'s items (its checker compiled once): runs `create` for each item that
 * passes, each on its own. A refusal it throws (an ApiError) is the item's result; anything
 * else is a server error and fails the batch.
 */
export function batchRunner<S extends TObject>(schema: S) {
  const check = TypeCompiler.Compile(schema);
  return <T>(items: unknown[], create: (item: Static<S>) => T): { data: BatchResult<T>[] } => ({
    data: items.map((raw): BatchResult<T> => {
      // as Elysia does for a body: defaults filled in, then checked
      const item = Value.Default(schema, raw);
      const refusal = check.Check(item) ? null : toValidationFailed([...check.Errors(item)], "batch item");
      if (refusal) return { status: refusal.status, ...refusal.toJSON() };
      try {
        return { status: 201, data: create(item as Static<S>) };
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return { status: error.status, ...error.toJSON() };
      }
    }),
  });
}
