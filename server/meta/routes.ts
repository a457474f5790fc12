import { Elysia, t } from "elysia";
import { ABILITIES } from "../auth/abilities.ts";
import type { Kernel } from "../http/kernel.ts";
import { WEBHOOK_EVENTS } from "../webhooks/events.ts";

const StringList = t.Object({ data: t.Array(t.String()) });

export const metaRoutes = (kernel: Kernel, version: string) =>
  new Elysia()
    .use(kernel)
    .get("/api/v1", () => ({ name: "Kontor", version, docs: "/docs" }), {
      response: t.Object({ name: t.String(), version: t.String(), docs: t.String() }),
      detail: { tags: ["Meta"], summary: "API index (no token needed)", security: [] },
    })
    .get(
      "/health",
      ({ db, set }) => {
        try {
          db.$client.query("SELECT 1").get();
          return { status: "ok" };
        } catch {
          set.status = 503;
          return { status: "unavailable" };
        }
      },
      {
        response: { 200: t.Object({ status: t.String() }), 503: t.Object({ status: t.String() }) },
        detail: { tags: ["Meta"], summary: "Health check (no token needed)", security: [] },
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
