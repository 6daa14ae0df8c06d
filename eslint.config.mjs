import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import path from "node:path";

// Import boundaries (README, "Layout"). Flat config gives a file the rule options of the last
// block that matches it, so each block below repeats the restrictions of the wider ones.
// Specifiers are matched as written: `@/x` or any run of `../` before a top-level folder.
const UP = String.raw`(@/|(\.\./)+)`;
const TESTS = ["**/*.test.ts", "**/*.test.tsx"];
const RULE = "@typescript-eslint/no-restricted-imports";

const NO_TOOLING = { regex: String.raw`^${UP}(bench|test)(/|$)`, message: "Product code never imports bench/ or test/." };
const NO_APP = { regex: String.raw`^${UP}app(/|$)`, message: "Only app/ imports app/: pass what a component or lib needs in from the page or layout." };
const NO_UI = { regex: String.raw`^${UP}components(/|$)`, message: "lib/ never imports components/." };
// Client components may take runtime values from these pure lib modules (no server-only code, no I/O).
const PURE_LIB = [
  "console/ranges",
  "console/providers/metric-text",
  "console/incidents/group-incidents",
  "console/decisions/explain-selection",
  "console/factor-lists/factor-list-yaml-edit",
  "demo/fault-model",
  "auth/demo-mode",
  "auth/demo-users",
];
const LIB_TYPES_ONLY = {
  regex: String.raw`^${UP}lib/(?!(${PURE_LIB.join("|")})$)`,
  allowTypeImports: true,
  message: "Components take only types from lib/ (runtime values only from the pure modules listed in eslint.config.mjs).",
};
const NO_PRISMA = [
  { regex: String.raw`^@prisma/`, message: "Pages and route handlers reach the database only through lib/." },
  { regex: String.raw`^${UP}lib/db/generated(/|$)`, message: "Pages and route handlers reach the database only through lib/." },
  {
    regex: String.raw`^${UP}lib/db/client$`,
    allowImportNames: ["getPrisma"],
    message: "Pages and route handlers reach the database only through lib/ (getPrisma() may only be handed to a lib function).",
  },
];
const DB_ONLY = {
  regex: String.raw`^(\.\./(?!runtime(/|$))|@/(?!lib/(db|runtime)(/|$)))`,
  message: "lib/db sits just above lib/runtime: it imports only lib/db and lib/runtime.",
};
const RUNTIME_LEAF = {
  regex: String.raw`^(\.\./|@/)`,
  message: "lib/runtime holds leaf utilities: it imports nothing else of the project (composition goes to lib/server).",
};
const CORE_PACKAGES = {
  regex: String.raw`^(?!\.|@/router-core/|node:|zod$|yaml$|vitest$|fast-check$)`,
  message: "router-core imports only router-core and its declared libraries (zod, yaml).",
};
const coreEscape = (depth) => ({ regex: String.raw`^(\.\./){${depth}}`, message: "router-core imports nothing outside router-core." });

// The order of the lib areas, bottom first (CODE_STYLE.md, "Layers"): a file in lib/<area>/ may import
// only areas listed before its own, and only through their index.ts (types too). test/lib-layers.test.ts checks that this list matches CODE_STYLE.md
// and that the areas' import graph, drawn from the code, has no cycle.
export const LIB_LAYERS = [
  "runtime",
  "db",
  "http",
  "errors",
  "audit",
  "auth",
  "edge",
  "dataplane",
  "decision-store",
  "gateway",
  "notify",
  "controlplane",
  "incidents",
  "catalog",
  "openai-compat",
  "anthropic-compat",
  "replay",
  "console",
  "demo",
  "server",
];

/** The lib area and the rest of a repository-relative path, or null outside lib/<area>/. */
function libArea(rel) {
  const m = /^lib\/([^/.]+)(?:\/(.*))?$/.exec(rel);
  return m ? { area: m[1], rest: m[2] ?? "" } : null;
}

// Resolves each specifier to the file it names, so it judges `../x`, `../../lib/x` and `@/lib/x` alike.
const libLayersRule = {
  meta: { type: "problem", schema: [] },
  create(context) {
    const root = context.cwd;
    const self = libArea(path.relative(root, context.filename).split(path.sep).join("/"));
    if (!self) return {};
    const check = (node, spec) => {
      if (typeof spec !== "string") return;
      let target;
      if (spec.startsWith("@/")) target = path.join(root, spec.slice(2));
      else if (spec.startsWith(".")) target = path.resolve(path.dirname(context.filename), spec);
      else return;
      const other = libArea(path.relative(root, target).split(path.sep).join("/"));
      if (!other || other.area === self.area) return;
      const from = LIB_LAYERS.indexOf(self.area);
      const to = LIB_LAYERS.indexOf(other.area);
      if (from < 0 || to < 0) {
        const missing = from < 0 ? self.area : other.area;
        context.report({ node, message: `lib/${missing} is not in LIB_LAYERS (eslint.config.mjs): declare where it sits, here and in CODE_STYLE.md.` });
      } else if (to > from) {
        context.report({ node, message: `lib/${self.area} sits below lib/${other.area} in LIB_LAYERS (eslint.config.mjs): it may not import it.` });
      } else if (other.rest !== "" && !/^index(\.tsx?)?$/.test(other.rest)) {
        context.report({
          node,
          message: `Import lib/${other.area} through its public index (lib/${other.area}/index.ts), not lib/${other.area}/${other.rest}.`,
        });
      }
    };
    const source = (node) => check(node.source, node.source?.value);
    return { ImportDeclaration: source, ExportNamedDeclaration: source, ExportAllDeclaration: source, ImportExpression: source };
  },
};
const LIB_LAYERS_RULE = {
  files: ["lib/**/*.ts", "lib/**/*.tsx"],
  ignores: TESTS,
  plugins: { switchyard: { rules: { "lib-layers": libLayersRule } } },
  rules: { "switchyard/lib-layers": "error" },
};

const restrict = (files, patterns, ignores = []) => ({ files, ignores, rules: { [RULE]: ["error", { patterns }] } });

const boundaries = [
  restrict(["app/**", "components/**", "lib/**", "router-core/**", "server.ts"], [NO_TOOLING], TESTS),
  restrict(["lib/**"], [NO_TOOLING, NO_APP, NO_UI], TESTS),
  restrict(["lib/db/**"], [NO_TOOLING, NO_APP, NO_UI, DB_ONLY], TESTS),
  restrict(["lib/runtime/**"], [NO_TOOLING, NO_APP, NO_UI, RUNTIME_LEAF], TESTS),
  restrict(["components/**"], [NO_TOOLING, NO_APP, LIB_TYPES_ONLY]),
  restrict(["app/**"], [NO_TOOLING, ...NO_PRISMA]),
  // The product's command-line entry points use lib and router-core like the server does; e2e.ts is
  // the browser-test runner (it starts throwaway clusters and scans output for secrets), so it is tooling.
  restrict(["scripts/**"], [NO_TOOLING, NO_APP, { ...NO_UI, message: "scripts/ never imports components/." }], [...TESTS, "scripts/e2e.ts"]),
  ...[1, 2, 3, 4].map((depth) => restrict([`router-core/${"*/".repeat(depth - 1)}*.{ts,tsx}`], [NO_TOOLING, CORE_PACKAGES, coreEscape(depth)])),
  {
    // A page or route handler never queries Prisma itself, even through getPrisma(): the query belongs in lib/.
    files: ["app/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: String.raw`CallExpression[callee.object.type='MemberExpression'][callee.property.name=/^(findMany|findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy)$/]`,
          message: "Pages and route handlers reach the database only through lib/: move this query into a lib/console (or area) function.",
        },
        {
          selector: String.raw`MemberExpression[property.name=/^\$(queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction)$/]`,
          message: "Pages and route handlers reach the database only through lib/.",
        },
      ],
    },
  },
];

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".data/**",
      "lib/db/generated/**",
      "next-env.d.ts",
      "e2e/output/**",
      "test-results/**",
      "playwright-report/**",
      "client/dist/**",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // CODE_STYLE.md: a function stays under about 100 lines; past 120 it is split into named parts.
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["**/*.test.ts", "**/*.test.tsx", "e2e/**"],
    rules: { "max-lines-per-function": ["error", { max: 120, IIFEs: true }] },
  },
  ...boundaries,
  LIB_LAYERS_RULE,
];

export default config;
