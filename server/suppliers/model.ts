/** Suppliers have the customer's fields and rules (contract section 3), without contact persons. */
import { PartyModel } from "../contacts/party-model.ts";

export const SupplierModel = {
  create: PartyModel.create,
  update: PartyModel.update,
  supplier: PartyModel.party,
} as const;
