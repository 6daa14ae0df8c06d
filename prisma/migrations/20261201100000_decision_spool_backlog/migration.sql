-- Decisions an instance holds in its local spool, announced while it writes them to Postgres after
-- an outage: an outcome that reaches another instance for a decision not in the table yet is then
-- spooled to wait for it (202) instead of refused as unknown (404).
CREATE TABLE "decision_spool_backlog" (
    "instance_id" TEXT NOT NULL,
    "oldest_at" TIMESTAMPTZ(3),
    "newest_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "decision_spool_backlog_pkey" PRIMARY KEY ("instance_id")
);
