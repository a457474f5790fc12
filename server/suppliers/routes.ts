import { partyRoutes } from "../contacts/party-routes.ts";
import type { Kernel } from "../http/kernel.ts";
import { SupplierModel } from "./model.ts";
import { supplierService } from "./service.ts";

export const supplierRoutes = (kernel: Kernel) =>
  partyRoutes(kernel, {
    prefix: "/api/v1/suppliers",
    tag: "Suppliers",
    noun: "supplier",
    service: supplierService,
    model: { create: SupplierModel.create, update: SupplierModel.update, listed: SupplierModel.supplier, shown: SupplierModel.supplier },
    blockedBy: "expenses",
  });
