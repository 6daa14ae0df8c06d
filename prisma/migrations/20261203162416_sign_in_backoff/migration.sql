-- CreateTable
CREATE TABLE "sign_in_backoff" (
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_backoff_pkey" PRIMARY KEY ("kind","key")
);

-- CreateTable
CREATE TABLE "sign_in_known_address" (
    "account" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_known_address_pkey" PRIMARY KEY ("account","address")
);

-- CreateIndex
CREATE INDEX "sign_in_backoff_last_at_idx" ON "sign_in_backoff"("last_at");

-- CreateIndex
CREATE INDEX "sign_in_known_address_at_idx" ON "sign_in_known_address"("at");
