-- CreateTable
CREATE TABLE "notification_channel" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "url" TEXT,
    "secret_ref" TEXT NOT NULL,
    "routes" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_channel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_event" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "group_key" TEXT NOT NULL,
    "incident_id" TEXT,
    "operation" TEXT,
    "region" TEXT,
    "provider" TEXT,
    "severity" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_delivery" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "channel_id" UUID NOT NULL,
    "group_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "last_error" VARCHAR(500),

    CONSTRAINT "notification_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_attempt" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "instance_id" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" VARCHAR(500),

    CONSTRAINT "notification_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "notification_channel_name_key" ON "notification_channel"("name");

-- CreateIndex
CREATE INDEX "notification_event_incident_id_idx" ON "notification_event"("incident_id");

-- CreateIndex
CREATE INDEX "notification_event_created_at_idx" ON "notification_event"("created_at");

-- CreateIndex
CREATE INDEX "notification_delivery_status_next_attempt_at_idx" ON "notification_delivery"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "notification_delivery_channel_id_group_key_created_at_idx" ON "notification_delivery"("channel_id", "group_key", "created_at");

-- CreateIndex
CREATE INDEX "notification_delivery_event_id_idx" ON "notification_delivery"("event_id");

-- CreateIndex
CREATE INDEX "notification_attempt_delivery_id_attempt_idx" ON "notification_attempt"("delivery_id", "attempt");
