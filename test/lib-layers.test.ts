import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { areaCycles, areaGraph, type TAreaEdge } from "./support/area-graph";

/**
 * The lib areas' declared order (LIB_LAYERS in eslint.config.mjs, "Layers" in CODE_STYLE.md)
 * against the import graph drawn from the code: no cycle between areas, and every import points
 * down the order. ESLint checks the same per import; this sees type imports, import() and areas
 * ESLint's config would miss, and proves the order is written down once, in both places.
 */
const root = process.cwd();
let layers: string[];
let edges: TAreaEdge[];

beforeAll(async () => {
  const config = (await import(new URL("../eslint.config.mjs", import.meta.url).href)) as { LIB_LAYERS: string[] };
  layers = config.LIB_LAYERS;
  edges = areaGraph(root);
});

describe("lib areas", () => {
  it("finds a cycle between areas when there is one", () => {
    const cycle = [
      { from: "catalog", to: "gateway" },
      { from: "gateway", to: "dataplane" },
      { from: "dataplane", to: "catalog" },
      { from: "console", to: "catalog" },
    ];
    expect(areaCycles(cycle)).toEqual([["catalog", "dataplane", "gateway"]]);
    expect(areaCycles(cycle.slice(0, 2))).toEqual([]);
  });

  it("import one another without a cycle", () => {
    expect(edges.length).toBeGreaterThan(10);
    expect(areaCycles(edges)).toEqual([]);
  });

  it("import only areas below them in LIB_LAYERS", () => {
    const upward = edges.filter((e) => layers.indexOf(e.to) > layers.indexOf(e.from)).map((e) => `${e.from} -> ${e.to} (${e.files.join(", ")})`);
    expect(upward).toEqual([]);
  });

  it("each have a public index.ts and are all declared in LIB_LAYERS, in CODE_STYLE.md's order", () => {
    const areas = readdirSync(path.join(root, "lib")).filter((name) => statSync(path.join(root, "lib", name)).isDirectory());
    expect(areas.filter((a) => !layers.includes(a))).toEqual([]);
    expect(areas.filter((a) => !existsSync(path.join(root, "lib", a, "index.ts")))).toEqual([]);
    const line = readFileSync(path.join(root, "CODE_STYLE.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("Bottom first: "));
    expect(line?.match(/`[^`]+`/g)?.map((name) => name.slice(1, -1))).toEqual(layers);
  });
});
