-- The audit log is append-only (docs/api.md#audit-log): no statement may change or remove an entry.
-- The one exception is the cascade of deleting a whole organisation (its entries go with it):
-- by the time the cascade reaches audit_log the organisation row is already gone.
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN
  SELECT RAISE(ABORT, 'audit_log entries are never updated');
END;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
WHEN EXISTS (SELECT 1 FROM organizations WHERE id = old.organization_id) BEGIN
  SELECT RAISE(ABORT, 'audit_log entries are never deleted');
END;
