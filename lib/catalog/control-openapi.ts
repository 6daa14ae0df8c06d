import { z } from "zod";
import {
  ZChangeOwnPasswordBody,
  ZDecideRoleGrantBody,
  ZCreateApiKeyBody,
  ZCreateUserBody,
  ZDisableUserBody,
  ZResetPasswordBody,
  ZSetUserRolesBody,
  ZFactorListSource,
} from "../controlplane";
import { ZBundle } from "./bundle";
import { ZAdapter, ZCertificationEntry, ZGatewayLimits, ZOperation, ZOperationPatch, ZProvider, ZProviderPatch, ZRegionEntry, ZReviewComment } from "./schemas";

/**
 * The control plane's OpenAPI document (/api/control/openapi.json), generated from the zod
 * schemas the handlers parse with, as the data plane's is. Covers the catalogue, configuration
 * as code and the governance calls a setup script needs.
 */
const ZControlError = z.object({
  error: z.object({
    code: z.string().describe("malformed (400), invalid (422), not_found, provider_in_use, four_eyes, …"),
    message: z.string(),
    fields: z
      .array(
        z.object({
          path: z.string().describe("Path of the field at fault: fields dotted, list entries [index], bundle items [key] (providers[sinch].certifications[0])"),
          message: z.string(),
        }),
      )
      .optional(),
  }),
});

type TDoc = {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  summary: string;
  permission: string;
  request?: z.ZodType;
  requestContentType?: string;
  params?: string[];
  query?: Record<string, string>;
  ok: { status: number; description: string; contentType?: string };
};

/** Users, their roles and sessions, and one's own password: what a setup script needs to add its team. */
const USER_ENDPOINTS: TDoc[] = [
  { method: "get", path: "/api/control/users", summary: "List users with their roles", permission: "user.read", ok: { status: 200, description: "users" } },
  {
    method: "post",
    path: "/api/control/users",
    summary: "Create a user; privileged roles wait for a second admin (pendingGrant)",
    permission: "user.create",
    request: ZCreateUserBody,
    ok: { status: 201, description: "the user" },
  },
  {
    method: "put",
    path: "/api/control/users/{id}/roles",
    summary: "Set a user's roles (privileged grants wait for a second admin)",
    permission: "user.set_roles",
    params: ["id"],
    request: ZSetUserRolesBody,
    ok: { status: 200, description: "the user, or the pending grant" },
  },
  {
    method: "post",
    path: "/api/control/users/{id}/disable",
    summary: "Disable a user (ends their sessions)",
    permission: "user.disable",
    params: ["id"],
    request: ZDisableUserBody,
    ok: { status: 200, description: "the user" },
  },
  {
    method: "post",
    path: "/api/control/users/{id}/enable",
    summary: "Enable a disabled user",
    permission: "user.disable",
    params: ["id"],
    request: ZDisableUserBody,
    ok: { status: 200, description: "the user" },
  },
  {
    method: "post",
    path: "/api/control/users/{id}/password",
    summary: "Reset a user's password",
    permission: "user.reset_password",
    params: ["id"],
    request: ZResetPasswordBody,
    ok: { status: 200, description: "done" },
  },
  {
    method: "post",
    path: "/api/control/users/{id}/revoke-sessions",
    summary: "End all of a user's sessions (JSON body {reason?})",
    permission: "user.revoke_sessions",
    params: ["id"],
    ok: { status: 200, description: "sessions ended" },
  },
  {
    method: "get",
    path: "/api/control/users/grants",
    summary: "Privileged role grants, newest first",
    permission: "user.read",
    query: { status: "pending, confirmed, applied, rejected or superseded" },
    ok: { status: 200, description: "grants" },
  },
  {
    method: "post",
    path: "/api/control/users/grants/{id}/confirm",
    summary: "Confirm a privileged role grant (a second admin)",
    permission: "user.set_roles",
    params: ["id"],
    request: ZDecideRoleGrantBody,
    ok: { status: 200, description: "the grant" },
  },
  {
    method: "post",
    path: "/api/control/users/grants/{id}/reject",
    summary: "Reject a privileged role grant",
    permission: "user.set_roles",
    params: ["id"],
    request: ZDecideRoleGrantBody,
    ok: { status: 200, description: "the grant" },
  },
  {
    method: "post",
    path: "/api/control/account/password",
    summary: "Change one's own password (other sessions end)",
    permission: "account.change_password",
    request: ZChangeOwnPasswordBody,
    ok: { status: 200, description: "done" },
  },
];

const ENDPOINTS: TDoc[] = [
  {
    method: "get",
    path: "/api/control/catalog",
    summary: "The whole catalogue: providers (credential state, adapter, policies naming them), operations, changes waiting for compliance",
    permission: "catalog.read",
    ok: { status: 200, description: "catalogue" },
  },
  {
    method: "put",
    path: "/api/control/catalog/regions/{name}",
    summary:
      "Declare a region or change its compliance rule (requires: the certifications every provider serving any operation there must hold); 202 when dropping a requirement waits for compliance",
    permission: "catalog.edit",
    params: ["name"],
    request: ZRegionEntry.omit({ name: true }),
    ok: { status: 200, description: "applied or unchanged (202: pending)" },
  },
  {
    method: "put",
    path: "/api/control/catalog/certifications/{name}",
    summary: "Declare a certification (or change its description); providers, regions and operations may name only declared ones",
    permission: "catalog.edit",
    params: ["name"],
    request: ZCertificationEntry.omit({ name: true }),
    ok: { status: 200, description: "applied or unchanged" },
  },
  {
    method: "delete",
    path: "/api/control/catalog/regions/{name}",
    summary: "Remove a declared region nothing names any more (409 declaration_in_use lists providers, operations, factor lists and overrides that still do)",
    permission: "catalog.edit",
    params: ["name"],
    ok: { status: 200, description: "deleted" },
  },
  {
    method: "delete",
    path: "/api/control/catalog/certifications/{name}",
    summary: "Remove a declared certification nothing names any more (409 declaration_in_use lists what still does)",
    permission: "catalog.edit",
    params: ["name"],
    ok: { status: 200, description: "deleted" },
  },
  {
    method: "get",
    path: "/api/control/catalog/providers",
    summary: "List providers",
    permission: "catalog.read",
    ok: { status: 200, description: "providers" },
  },
  {
    method: "post",
    path: "/api/control/catalog/providers",
    summary: "Add a provider",
    permission: "catalog.edit",
    request: ZProvider,
    ok: { status: 201, description: "created" },
  },
  {
    method: "get",
    path: "/api/control/catalog/providers/{key}",
    summary: "One provider",
    permission: "catalog.read",
    params: ["key"],
    ok: { status: 200, description: "provider" },
  },
  {
    method: "patch",
    path: "/api/control/catalog/providers/{key}",
    summary:
      "Edit, disable ({enabled: false}) or rename ({key}) a provider; 202 when the change moves compliance and waits for approval; 409 provider_in_use when a live policy names it",
    permission: "catalog.edit",
    params: ["key"],
    request: ZProviderPatch,
    ok: { status: 200, description: "applied or unchanged (202: pending)" },
  },
  {
    method: "delete",
    path: "/api/control/catalog/providers/{key}",
    summary: "Delete a provider no live policy names",
    permission: "catalog.edit",
    params: ["key"],
    ok: { status: 200, description: "deleted" },
  },
  {
    method: "put",
    path: "/api/control/catalog/providers/{key}/adapter",
    summary: "Create or replace the provider's execute-mode adapter (https base URL)",
    permission: "catalog.edit",
    params: ["key"],
    request: ZAdapter,
    ok: { status: 200, description: "applied" },
  },
  {
    method: "delete",
    path: "/api/control/catalog/providers/{key}/adapter",
    summary: "Remove the provider's adapter",
    permission: "catalog.edit",
    params: ["key"],
    ok: { status: 200, description: "deleted" },
  },
  {
    method: "get",
    path: "/api/control/catalog/operations",
    summary: "List operations",
    permission: "catalog.read",
    ok: { status: 200, description: "operations" },
  },
  {
    method: "post",
    path: "/api/control/catalog/operations",
    summary: "Add an operation with its per-region certification requirements",
    permission: "catalog.edit",
    request: ZOperation,
    ok: { status: 201, description: "created" },
  },
  {
    method: "get",
    path: "/api/control/catalog/operations/{key}",
    summary: "One operation",
    permission: "catalog.read",
    params: ["key"],
    ok: { status: 200, description: "operation" },
  },
  {
    method: "patch",
    path: "/api/control/catalog/operations/{key}",
    summary: "Edit an operation; a change to its regional requirements waits for compliance (202)",
    permission: "catalog.edit",
    params: ["key"],
    request: ZOperationPatch,
    ok: { status: 200, description: "applied or unchanged (202: pending)" },
  },
  {
    method: "put",
    path: "/api/control/catalog/operations/{key}/gateway-limits",
    summary: "Execute-mode limits of an operation",
    permission: "catalog.edit",
    params: ["key"],
    request: ZGatewayLimits,
    ok: { status: 200, description: "applied" },
  },
  {
    method: "get",
    path: "/api/control/catalog/changes",
    summary: "Catalogue changes held for compliance",
    permission: "catalog.read",
    query: { status: "pending | applied | rejected | superseded" },
    ok: { status: 200, description: "changes" },
  },
  {
    method: "post",
    path: "/api/control/catalog/changes/{id}/approve",
    summary: "Approve a held change (not one you asked for)",
    permission: "catalog.approve_compliance",
    params: ["id"],
    request: ZReviewComment,
    ok: { status: 200, description: "applied" },
  },
  {
    method: "post",
    path: "/api/control/catalog/changes/{id}/reject",
    summary: "Reject a held change, with a comment",
    permission: "catalog.approve_compliance",
    params: ["id"],
    request: ZReviewComment,
    ok: { status: 200, description: "rejected" },
  },
  {
    method: "get",
    path: "/api/control/export",
    summary: "The running configuration as a bundle (YAML; ?format=json for JSON)",
    permission: "catalog.read (or an API key with the control scope)",
    query: { format: "yaml | json" },
    ok: { status: 200, description: "bundle", contentType: "application/yaml" },
  },
  {
    method: "post",
    path: "/api/control/apply",
    summary:
      "Apply a bundle (YAML or JSON) whole or not at all: one refused change refuses the bundle and nothing is written. Fields left out keep their value. ?dryRun=1 runs the same path and rolls it back: changes marked would apply, held, in review or refused. Compliance-moving changes are held, factor lists land in review",
    permission: "catalog.edit (or an API key with the control scope)",
    request: ZBundle,
    requestContentType: "application/yaml",
    query: { dryRun: "1: plan only" },
    ok: { status: 200, description: 'the planned or applied changes and a summary ("no changes" when the bundle already matches)' },
  },
  {
    method: "post",
    path: "/api/control/factor-lists",
    summary: "Import a factor list as a draft (JSON {yaml | document, changeNote} or a raw YAML body)",
    permission: "factor_list.create",
    request: ZFactorListSource,
    ok: { status: 201, description: "draft" },
  },
  {
    method: "post",
    path: "/api/control/api-keys",
    summary: "Create a scoped API key (shown once)",
    permission: "api_key.create",
    request: ZCreateApiKeyBody,
    ok: { status: 201, description: "the key" },
  },
  ...USER_ENDPOINTS,
];

const schema = (s: z.ZodType) => z.toJSONSchema(s, { target: "draft-2020-12", io: "input", unrepresentable: "any" });

export function controlOpenApiDocument(info: { version: string }): Record<string, unknown> {
  const error = schema(ZControlError);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const d of ENDPOINTS) {
    const body = d.request ? schema(d.request) : null;
    (paths[d.path] ??= {})[d.method] = {
      summary: d.summary,
      description: `Permission: ${d.permission}.`,
      tags: [
        d.path.startsWith("/api/control/catalog")
          ? "catalog"
          : d.path.includes("factor-lists") || d.path.includes("api-keys") || d.path.includes("/users") || d.path.includes("/account")
            ? "governance"
            : "config-as-code",
      ],
      parameters: [
        ...(d.params ?? []).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
        ...Object.entries(d.query ?? {}).map(([name, description]) => ({ name, in: "query", required: false, description, schema: { type: "string" } })),
      ],
      ...(body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: body }, ...(d.requestContentType ? { [d.requestContentType]: { schema: body } } : {}) },
            },
          }
        : {}),
      responses: {
        [d.ok.status]: { description: d.ok.description, ...(d.ok.contentType ? { content: { [d.ok.contentType]: { schema: { type: "string" } } } } : {}) },
        ...Object.fromEntries(
          [
            [400, "malformed: the body does not match the schema (fields name each field)"],
            [401, "not signed in / no valid API key"],
            [403, "the role or key does not grant this"],
            [404, "not_found"],
            [409, "conflict: in use, already exists, stale or not pending"],
            [422, "invalid: well-formed but semantically invalid (fields name each field)"],
          ].map(([status, description]) => [status, { description, content: { "application/json": { schema: error } } }]),
        ),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Switchyard control plane",
      version: info.version,
      description: "Catalogue, configuration as code and governance. Session cookie (console) or, for export/apply, an API key with the control scope.",
    },
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "sy_session" },
        controlKey: { type: "http", scheme: "bearer", description: "API key with the control scope (export and apply only)" },
      },
    },
    security: [{ session: [] }, { controlKey: [] }],
    paths,
  };
}
