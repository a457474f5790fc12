-- Tokens remember the token that minted them (server/tokens/service.ts createToken).
ALTER TABLE `api_tokens` ADD `created_by_token_id` text;--> statement-breakpoint
CREATE INDEX `api_tokens_created_by_token` ON `api_tokens` (`created_by_token_id`);--> statement-breakpoint
-- Existing tokens: the audit log names the organisation token that minted one (actor type
-- token). A personal token's mints were audited under its user, not the token: those stay null.
UPDATE api_tokens SET created_by_token_id = (
  SELECT a.actor_id FROM audit_log a
  WHERE a.organization_id = api_tokens.organization_id AND a.resource_id = api_tokens.id
    AND a.resource_type = 'token' AND a.action = 'token.created' AND a.actor_type = 'token'
  ORDER BY a.created_at LIMIT 1
);--> statement-breakpoint
-- Down each chain: a token minted by a token is made on behalf of that token's user (its rate
-- budget) and never expires later than it. Tokens minted before this rule are brought under it.
WITH RECURSIVE chain(id, user_id, expires_at) AS (
  SELECT id, created_by_user_id, expires_at FROM api_tokens
  WHERE created_by_token_id IS NULL OR created_by_token_id NOT IN (SELECT id FROM api_tokens)
  UNION ALL
  SELECT c.id, coalesce(c.created_by_user_id, chain.user_id),
         CASE WHEN chain.expires_at IS NOT NULL AND (c.expires_at IS NULL OR c.expires_at > chain.expires_at)
              THEN chain.expires_at ELSE c.expires_at END
  FROM api_tokens c JOIN chain ON c.created_by_token_id = chain.id
)
UPDATE api_tokens SET created_by_user_id = chain.user_id, expires_at = chain.expires_at
FROM chain WHERE chain.id = api_tokens.id AND api_tokens.created_by_token_id IS NOT NULL;
