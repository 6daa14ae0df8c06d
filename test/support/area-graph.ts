import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The import graph between lib areas (lib/<area>/), drawn from the code: every static import,
 * re-export and import() of every non-test file under lib/, resolved to the area it lands in.
 * Type-only imports count too: a cycle of types is still a cycle of meaning.
 */

export type TAreaEdge = { from: string; to: string; files: string[] };

const SOURCE = /\.(ts|tsx|mts)$/;
const TEST = /\.test\.(ts|tsx)$/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== "generated" && name !== "node_modules") out.push(...sourceFiles(full));
    } else if (SOURCE.test(name) && !TEST.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** The specifiers one file imports, as written (static imports, re-exports, import() with a literal). */
export function importSpecifiers(code: string): string[] {
  return ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName);
}

/** The repository-relative path a specifier points at, or null for a package. */
export function resolveSpecifier(root: string, fromFile: string, spec: string): string | null {
  let target: string;
  if (spec.startsWith("@/")) target = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) target = path.resolve(path.dirname(fromFile), spec);
  else return null;
  return path.relative(root, target);
}

/** lib/<area>/… → <area>; anything else → null. */
export function areaOf(relPath: string): string | null {
  const m = /^lib\/([^/]+)(\/|$)/.exec(relPath.split(path.sep).join("/"));
  const area = m?.[1];
  return area === undefined || area.includes(".") ? null : area;
}

export function areaGraph(root: string): TAreaEdge[] {
  const edges = new Map<string, TAreaEdge>();
  for (const file of sourceFiles(path.join(root, "lib"))) {
    const rel = path.relative(root, file);
    const from = areaOf(rel);
    if (!from) continue;
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      const target = resolveSpecifier(root, file, spec);
      const to = target === null ? null : areaOf(target);
      if (!to || to === from) continue;
      const key = `${from}->${to}`;
      const edge = edges.get(key) ?? { from, to, files: [] };
      if (!edge.files.includes(rel)) edge.files.push(rel);
      edges.set(key, edge);
    }
  }
  return [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Every cycle's areas (strongly connected components of more than one area), by Tarjan's algorithm. */
export function areaCycles(edges: readonly Pick<TAreaEdge, "from" | "to">[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    if (!next.has(e.to)) next.set(e.to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}
