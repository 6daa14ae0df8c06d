// The public surface of lib/db: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { getPrisma, type PrismaClient } from "./client";
export { resolveDatabaseUrl, type TResolvedDatabase } from "./database-url";
export {
  type AuditEntry,
  type CatalogChange,
  type DemoFault,
  type FactorListVersion,
  type GatewayOperation,
  type Incident,
  type IncidentStep,
  type NotificationChannel,
  type Operation,
  type Override,
  Prisma,
  type Provider,
  type ProviderAdapter,
  RoleGrantStatus,
} from "./generated/client";
export { coalesce, createListenConnection } from "./listen-connection";
export { applyMigrations, migrationStatus, type TQueryable } from "./migrate";
export { CONFIG_CHANNEL, notifyConfigChange } from "./notify";
