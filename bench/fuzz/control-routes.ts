import { readdirSync } from "node:fs";
import path from "node:path";

/** Every app/ folder whose route handlers change state from a browser session. */
export const CONTROL_ROUTE_DIRS = ["app/api/control", "app/api/console", "app/api/demo", "app/(auth)/api/auth"] as const;
export const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type TRouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type TControlRoute = {
  /** Repository-relative file, e.g. app/api/control/users/route.ts. */
  file: string;
  method: string;
  /** URL path template with `{param}`s, e.g. /api/control/users/{id}/roles; route groups dropped. */
  path: string;
  handler: TRouteHandler;
};

function routeFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(full);
    return /^route\.(ts|tsx|js)$/.test(e.name) ? [full] : [];
  });
}

/** The URL a Next route file answers: `(group)` folders vanish, `[id]` becomes `{id}`. */
export function routePathOf(root: string, file: string): string {
  const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
  return `/${rel
    .filter((seg) => !/^\(.+\)$/.test(seg))
    .map((seg) => seg.replace(/^\[(.+)\]$/, "{$1}"))
    .join("/")}`;
}

/** Imports every route module under CONTROL_ROUTE_DIRS and lists its exported handlers. */
export async function loadControlRoutes(root = process.cwd()): Promise<TControlRoute[]> {
  const routes: TControlRoute[] = [];
  for (const file of CONTROL_ROUTE_DIRS.flatMap((d) => routeFiles(path.join(root, d))).sort()) {
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of ROUTE_METHODS) {
      const handler = mod[method];
      if (typeof handler === "function")
        routes.push({ file: path.relative(root, file).split(path.sep).join("/"), method, path: routePathOf(root, file), handler: handler as TRouteHandler });
    }
  }
  return routes;
}
