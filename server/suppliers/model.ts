/** Suppliers have the customer's fields and rules, without contact persons. */
import { PartyModel } from "../contacts/party-model.ts";
import { named } from "../lib/schemas.ts";

export const SupplierModel = {
  create: named("SupplierCreate", PartyModel.create),
  update: named("SupplierUpdate", PartyModel.update),
  supplier: named("Supplier", PartyModel.party),
} as const;
