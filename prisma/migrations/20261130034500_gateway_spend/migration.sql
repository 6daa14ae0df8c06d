-- Execute-mode spend shared by every instance, so cost caps hold for the cluster, not per instance.
CREATE TABLE "gateway_spend" (
    "operation_key" TEXT NOT NULL,
    "window_kind" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "instance_id" TEXT NOT NULL,
    "amount" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_spend_pkey" PRIMARY KEY ("operation_key","window_kind","window_start","instance_id")
);

CREATE INDEX "gateway_spend_window_start_idx" ON "gateway_spend"("window_start");
