import { describe, expect, it } from "vitest";
import { controlOpenApiDocument } from "./control-openapi";

describe("control-plane OpenAPI", () => {
  it("describes the catalogue and config-as-code endpoints with request schemas from the zod schemas", () => {
    const doc = controlOpenApiDocument({ version: "test" }) as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> } }>
      >;
    };
    expect(doc.openapi).toBe("3.1.0");
    const create = doc.paths["/api/control/catalog/providers"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(Object.keys(create.properties ?? {})).toEqual(
      expect.arrayContaining(["key", "displayName", "regions", "certifications", "credentialRef", "quotas"]),
    );
    expect(create.required).toEqual(expect.arrayContaining(["key", "displayName", "regions"]));
    expect(doc.paths["/api/control/apply"]!.post!.requestBody!.content["application/yaml"]).toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/control/export", "/api/control/catalog/changes/{id}/approve", "/api/control/catalog/operations/{key}/gateway-limits"]),
    );
  });
});
