import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { AuditModel } from "./model.ts";
import { auditList, listAuditLog } from "./list.ts";

/** Read-only by design: entries are never updated or deleted, so no route does either. */
export const auditRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/audit-log" })
    .use(kernel)
    .get("", ({ scope, query, url }) => listAuditLog(scope, query, url), {
      ability: "organization.view-audit-log",
      query: listQuerySchema(auditList),
      response: { 200: listResponse(AuditModel.entry), ...errors(422) },
      detail: { tags: ["Audit log"], summary: "List audit entries, newest first" },
    });
