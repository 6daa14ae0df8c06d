import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
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

  it("documents every route under /api/control/users and /api/control/account, each method it exports", () => {
    const doc = controlOpenApiDocument({ version: "test" }) as { paths: Record<string, Record<string, unknown>> };
    const routes = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? routes(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : [],
      );
    const exported = ["app/api/control/users", "app/api/control/account"].flatMap((dir) =>
      routes(dir).flatMap((file) => {
        const url = `/${path
          .dirname(file)
          .replace(/^app\//, "")
          .replace(/\[(\w+)\]/g, "{$1}")}`;
        return [...readFileSync(file, "utf8").matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => `${m[1]!.toLowerCase()} ${url}`);
      }),
    );
    expect(exported).toContain("get /api/control/users");
    const documented = Object.entries(doc.paths).flatMap(([url, methods]) => Object.keys(methods).map((m) => `${m} ${url}`));
    expect(exported.filter((e) => !documented.includes(e))).toEqual([]);
  });
});
