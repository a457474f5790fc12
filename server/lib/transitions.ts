/**
 * The state machines of invoices (docs/invoicing.md#states-and-payments) and expenses (docs/payables.md#expenses) as data: for each operation the
 * states it may start from and what its 409 says otherwise. One function per machine loads the
 * row in the organisation and checks the state, so every refusal has the same shape:
 * "The <noun> is <status>; <refusal>."
 */
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Tx } from "../../db/client.ts";
import { Conflict } from "./errors.ts";
import { findInOrg, type OrgTable, type Scope } from "./scope.ts";

type StatefulTable = OrgTable & { status: SQLiteColumn; $inferSelect: { status: string } };
type Row<T extends StatefulTable> = T["$inferSelect"];

/** The states an operation starts from; `refusal` follows "The <noun> is <status>; " in the 409. */
export type Transition<Status extends string> = { readonly from: readonly Status[]; readonly refusal: string };

/**
 * `findFor(tx, scope, id, operation)`: the row with this id in the organisation (404 otherwise),
 * in a state `operation` may start from (409 naming its state otherwise).
 */
export function stateMachine<T extends StatefulTable, Operation extends string>(
  table: T,
  /** what the 409 calls the row ("invoice", "credit note", "expense") */
  noun: (row: Row<T>) => string,
  transitions: Record<Operation, Transition<Row<T>["status"]>>,
) {
  return async function findFor(tx: Tx, scope: Scope, id: string, operation: Operation): Promise<Row<T>> {
    const row = await findInOrg(tx, table, scope.org.id, id);
    checkTransition(noun(row), row.status, transitions[operation]);
    return row;
  };
}

/** A 409 "The <noun> is <status>; <refusal>." unless `transition` may start from `status`. */
export function checkTransition<Status extends string>(noun: string, status: Status, { from, refusal }: Transition<Status>): void {
  if (!from.includes(status)) throw new Conflict(`The ${noun} is ${status}; ${refusal}.`);
}
