import { readFileSync } from "node:fs";
import path from "node:path";
import { withPermission } from "@/lib/auth/with-permission";
import { controlOpenApiDocument } from "@/lib/catalog/control-openapi";

let cached: Record<string, unknown> | null = null;

/** The control plane's OpenAPI 3.1 document, generated from the handlers' zod schemas. */
export const GET = withPermission("catalog.read", async () => {
  cached ??= controlOpenApiDocument({ version: (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { version: string }).version });
  return Response.json(cached);
});
