import { z } from "zod";

/**
 * The data-plane API description, generated from the same zod schemas the handlers parse with.
 * Each endpoint module registers itself once at import; /api/v1/openapi.json renders the lot.
 */
export type TEndpointDoc = {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI path template, e.g. /api/v1/decisions/{id}. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  request?: z.ZodType;
  pathParams?: Record<string, { description: string; schema?: z.ZodType }>;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  /** False for endpoints callable without an API key (health, this document). */
  authenticated?: boolean;
};

const endpoints = new Map<string, TEndpointDoc>();

export function registerEndpoint(doc: TEndpointDoc): void {
  endpoints.set(`${doc.method} ${doc.path}`, doc);
}

export { ZErrorBody } from "../http";

function jsonSchema(schema: z.ZodType, io: "input" | "output"): unknown {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });
}

export function openApiDocument(info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const doc of [...endpoints.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(doc.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? "application/json"]: { schema: jsonSchema(r.schema, "output") } } } : {}),
      };
    }
    const op: Record<string, unknown> = {
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      ...(doc.tags ? { tags: doc.tags } : {}),
      ...(doc.authenticated === false ? { security: [] } : {}),
      responses,
    };
    if (doc.pathParams) {
      op.parameters = Object.entries(doc.pathParams).map(([name, p]) => ({
        name,
        in: "path",
        required: true,
        description: p.description,
        schema: p.schema ? jsonSchema(p.schema, "input") : { type: "string" },
      }));
    }
    if (doc.request) op.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(doc.request, "input") } } };
    (paths[doc.path] ??= {})[doc.method] = op;
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Switchyard data plane",
      version: info.version,
      description: "Routing decisions, outcomes and decision records. Errors are JSON bodies naming the field at fault.",
    },
    components: { securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "API key (SWITCHYARD_API_KEY until scoped keys)" } } },
    security: [{ apiKey: [] }],
    paths,
  };
}
