import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The import boundaries of eslint.config.mjs, proven on code that breaks them: each case lints
 * one import as if it were a file in the named folder (the file need not exist).
 */
const BOUNDARY_RULES = new Set(["@typescript-eslint/no-restricted-imports", "no-restricted-syntax", "switchyard/lib-layers"]);

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: process.cwd() });
});

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId !== null && BOUNDARY_RULES.has(m.ruleId)).map((m) => m.message);
}

const VIOLATIONS: { what: string; filePath: string; code: string; message: RegExp }[] = [
  {
    what: "router-core reaching into lib/ by a relative path",
    filePath: "router-core/decision/probe.ts",
    code: `import { getPrisma } from "../../lib/db/client";\nexport const x = getPrisma;\n`,
    message: /router-core imports nothing outside router-core/,
  },
  {
    what: "router-core importing lib/ by alias",
    filePath: "router-core/probe.ts",
    code: `import { RANGES } from "@/lib/console/ranges";\nexport const x = RANGES;\n`,
    message: /router-core imports only router-core/,
  },
  {
    what: "router-core importing an undeclared package",
    filePath: "router-core/policy/probe.ts",
    code: `import next from "next";\nexport const x = next;\n`,
    message: /router-core imports only router-core/,
  },
  {
    what: "lib/ importing app/",
    filePath: "lib/console/probe.ts",
    code: `import { signOutAction } from "@/app/login/actions";\nexport const x = signOutAction;\n`,
    message: /Only app\/ imports app\//,
  },
  {
    what: "lib/ importing components/",
    filePath: "lib/console/probe.ts",
    code: `import { Nav } from "../../components/nav";\nexport const x = Nav;\n`,
    message: /lib\/ never imports components\//,
  },
  {
    what: "a component importing a runtime value from lib/",
    filePath: "components/probe.tsx",
    code: `import { getViewer } from "@/lib/console/get-viewer";\nexport const x = getViewer;\n`,
    message: /Components take only types from lib\//,
  },
  {
    what: "a component importing app/",
    filePath: "components/probe.tsx",
    code: `import { signOutAction } from "@/app/login/actions";\nexport const x = signOutAction;\n`,
    message: /Only app\/ imports app\//,
  },
  {
    what: "a page importing the generated Prisma client",
    filePath: "app/(console)/probe/page.tsx",
    code: `import { PrismaClient } from "@/lib/db/generated/client";\nexport const x = PrismaClient;\n`,
    message: /reach the database only through lib\//,
  },
  {
    what: "a route handler importing @prisma/client",
    filePath: "app/api/probe/route.ts",
    code: `import { Prisma } from "@prisma/client";\nexport const x = Prisma;\n`,
    message: /reach the database only through lib\//,
  },
  {
    what: "a page creating its own Prisma client",
    filePath: "app/(console)/probe/page.tsx",
    code: `import { createPrisma } from "@/lib/db/client";\nexport const x = createPrisma;\n`,
    message: /reach the database only through lib\//,
  },
  {
    what: "a page querying Prisma itself",
    filePath: "app/(console)/probe/page.tsx",
    code: `import { getPrisma } from "@/lib/db/client";\nexport const x = () => getPrisma().provider.findMany();\n`,
    message: /move this query into a lib/,
  },
  {
    what: "lib/db importing a higher lib area",
    filePath: "lib/db/probe.ts",
    code: `import { createUser } from "../controlplane/users/create-user";\nexport const x = createUser;\n`,
    message: /lib\/db sits just above lib\/runtime/,
  },
  {
    what: "lib/runtime importing another lib area",
    filePath: "lib/runtime/probe.ts",
    code: `import { resolveSession } from "../auth/session";\nexport const x = resolveSession;\n`,
    message: /lib\/runtime holds leaf utilities/,
  },
  {
    what: "a lib area importing one above it (the catalog -> gateway -> dataplane -> catalog cycle)",
    filePath: "lib/dataplane/probe.ts",
    code: `import { ZProvider } from "../catalog/schemas";\nexport const x = ZProvider;\n`,
    message: /lib\/dataplane sits below lib\/catalog in LIB_LAYERS/,
  },
  {
    what: "a lib area importing one above it by alias, types only",
    filePath: "lib/auth/nested/probe.ts",
    code: `import type { TOverrideRow } from "@/lib/dataplane/routing-state";\nexport type X = TOverrideRow;\n`,
    message: /lib\/auth sits below lib\/dataplane in LIB_LAYERS/,
  },
  {
    what: "a lib area that LIB_LAYERS does not declare",
    filePath: "lib/console/probe.ts",
    code: `import { x } from "../undeclared-area/thing";\nexport const y = x;\n`,
    message: /lib\/undeclared-area is not in LIB_LAYERS/,
  },
  {
    what: "a deep import into another lib area",
    filePath: "lib/gateway/probe.ts",
    code: `import { decisionRowOf } from "../dataplane/decision-log/rows";\nexport const x = decisionRowOf;\n`,
    message: /Import lib\/dataplane through its public index \(lib\/dataplane\/index.ts\), not lib\/dataplane\/decision-log\/rows/,
  },
  {
    what: "a deep type-only import into another lib area, by alias",
    filePath: "lib/openai-compat/probe.ts",
    code: `import type { TPrincipal } from "@/lib/edge/authenticate";\nexport type X = TPrincipal;\n`,
    message: /Import lib\/edge through its public index/,
  },
  {
    what: "a script importing bench/",
    filePath: "scripts/probe.ts",
    code: `import { writeBenchResult } from "../bench/lib/bench-results";\nexport const x = writeBenchResult;\n`,
    message: /never imports bench\/ or test\//,
  },
  {
    what: "product code importing bench/",
    filePath: "lib/console/probe.ts",
    code: `import { quantile } from "@/bench/lib/bench-results";\nexport const x = quantile;\n`,
    message: /never imports bench\/ or test\//,
  },
  {
    what: "product code importing test/",
    filePath: "app/(console)/probe/page.tsx",
    code: `import { createTestDatabase } from "../../../test/support/database";\nexport const x = createTestDatabase;\n`,
    message: /never imports bench\/ or test\//,
  },
];

describe("import boundaries (eslint.config.mjs)", () => {
  it.each(VIOLATIONS)("refuses $what", async ({ filePath, code, message }) => {
    const errors = await boundaryErrors(filePath, code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((m) => message.test(m))).toBe(true);
  });

  it("lets lib/ use lower areas through their index, router-core and its own area", async () => {
    const code = `import { getPrisma } from "@/lib/db";\nimport { parseFactorList } from "@/router-core/index";\nimport { RANGES } from "./ranges";\nexport const x = [getPrisma, parseFactorList, RANGES];\n`;
    expect(await boundaryErrors("lib/console/probe.ts", code)).toEqual([]);
    const lower = `import { sendJson, type TPrincipal } from "../edge";\nimport type { DecisionLog } from "../dataplane/index";\nexport const x: [typeof sendJson, TPrincipal?, DecisionLog?] = [sendJson];\n`;
    expect(await boundaryErrors("lib/gateway/probe.ts", lower)).toEqual([]);
  });

  it("lets a component take types from lib/ and values from its pure modules", async () => {
    const code = `import type { TViewer } from "@/lib/console/get-viewer";\nimport { RANGES } from "@/lib/console/ranges";\nexport const x: TViewer = null;\nexport const y = RANGES;\n`;
    expect(await boundaryErrors("components/probe.tsx", code)).toEqual([]);
  });

  it("lets router-core import itself, zod and yaml", async () => {
    const code = `import { z } from "zod";\nimport { parse } from "yaml";\nimport { createClock } from "../clock";\nexport const x = [z, parse, createClock];\n`;
    expect(await boundaryErrors("router-core/decision/probe.ts", code)).toEqual([]);
  });
});
