-- Privileged role grants (issue 25, item 2): with two or more admins a grant of admin, approver
-- or compliance waits for a second admin; with one it is applied at once and marked single_admin.

-- CreateEnum
CREATE TYPE "RoleGrantStatus" AS ENUM ('pending', 'confirmed', 'applied', 'rejected', 'superseded');

-- CreateTable
CREATE TABLE "role_grant" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "roles" "Role"[],
    "status" "RoleGrantStatus" NOT NULL DEFAULT 'pending',
    "single_admin" BOOLEAN NOT NULL DEFAULT false,
    "requested_by_id" UUID,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_by_id" UUID,
    "decided_at" TIMESTAMPTZ(3),
    "reason" TEXT,

    CONSTRAINT "role_grant_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "role_grant_user_id_status_idx" ON "role_grant"("user_id", "status");

-- CreateIndex
CREATE INDEX "role_grant_status_requested_at_idx" ON "role_grant"("status", "requested_at");

-- AddForeignKey
ALTER TABLE "role_grant" ADD CONSTRAINT "role_grant_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
