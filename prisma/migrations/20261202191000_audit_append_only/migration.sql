-- The audit log is append-only (lib/audit/README.md).
--
-- mac: HMAC-SHA256 over the entry's hash with a key the database does not hold
-- (SWITCHYARD_AUDIT_KEY / SWITCHYARD_AUDIT_KEY_FILE). Outside the hash, so an entry written
-- without a key still chains; null on entries written before a key was configured.
ALTER TABLE "audit_entry" ADD COLUMN "mac" TEXT;

-- No role that goes through this trigger may change or remove audit rows: UPDATE, DELETE and
-- TRUNCATE raise, whatever rows they would touch (statement level, so even a statement that
-- matches nothing is refused). The application connects as the table's owner, for whom grants
-- change nothing; a trigger still binds it. The owner (or a superuser) can disable or drop the
-- trigger: that is an attack on the database, which the MACs and the checkpoints kept outside
-- it detect; this trigger stops the product itself (a bug, an injected statement) from
-- rewriting history.
CREATE FUNCTION audit_entry_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_entry is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'audit entries are only ever inserted (lib/audit/README.md)';
END
$$;

CREATE TRIGGER "audit_entry_append_only"
  BEFORE UPDATE OR DELETE ON "audit_entry"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_entry_append_only();

CREATE TRIGGER "audit_entry_no_truncate"
  BEFORE TRUNCATE ON "audit_entry"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_entry_append_only();
