/** The API's lists of tokens: a user's personal tokens, the organisation's tokens (the commands are service.ts). */
import { eq, isNull } from "drizzle-orm";
import { apiTokens } from "../../db/schema.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import type { Scope } from "../lib/scope.ts";
import type { TokenType } from "./model.ts";
import { ownership, presentToken } from "./service.ts";

export const tokenList: ListSpec<typeof apiTokens> = {
  table: apiTokens,
  sorts: { created_at: apiTokens.createdAt },
  defaultSort: "-created_at",
  updatedAt: apiTokens.createdAt,
};

export function listTokens(scope: Scope, type: TokenType, userId: string | null, query: ListQuery, url: string) {
  return listPage(scope, tokenList, query, url, (rows) => rows.map(presentToken), [
    eq(apiTokens.type, type),
    ownership(type, userId),
    isNull(apiTokens.revokedAt),
  ]);
}
