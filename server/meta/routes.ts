import { Elysia, t } from "elysia";
import { preparedSql, snapshot } from "../../db/client.ts";
import { ABILITIES } from "../auth/abilities.ts";
import type { Kernel } from "../http/kernel.ts";
import { WEBHOOK_EVENTS } from "../changes/events.ts";

const StringList = t.Object({ data: t.Array(t.String()) });
const Health = t.Object({ status: t.UnionEnum(["ok", "unavailable"]) }, { title: "Health" });

export const metaRoutes = (kernel: Kernel, version: string) =>
  new Elysia()
    .use(kernel)
    .get("/api/v1", () => ({ name: "Kontor", version, docs: "/docs" }), {
      response: t.Object({ name: t.String(), version: t.String(), docs: t.String() }, { title: "ApiIndex" }),
      detail: {
        tags: ["Meta"],
        summary: "API index (no token needed)",
        description: "The product's name and version, and where this reference is. Needs no token; rate-limited per IP.",
        security: [],
      },
    })
    .get(
      "/health",
      async ({ db, set }) => {
        try {
          await snapshot(db, (tx) => preparedSql(tx, "health", "SELECT 1").get());
          return { status: "ok" };
        } catch {
          set.status = 503;
          return { status: "unavailable" };
        }
      },
      {
        response: { 200: Health, 503: Health },
        detail: {
          tags: ["Meta"],
          summary: "Health check (no token needed)",
          description: 'For load balancers and supervisors: 200 `{"status":"ok"}` when the database answers, 503 otherwise. Needs no token and is not rate-limited.',
          security: [],
        },
      },
    )
    .get("/api/v1/meta/abilities", () => ({ data: [...ABILITIES] }), {
      ability: "any",
      response: StringList,
      detail: { tags: ["Meta"], summary: "List token abilities" },
    })
    .get("/api/v1/meta/webhook-events", () => ({ data: [...WEBHOOK_EVENTS] }), {
      ability: "any",
      response: StringList,
      detail: { tags: ["Meta"], summary: "List webhook event names" },
    });
