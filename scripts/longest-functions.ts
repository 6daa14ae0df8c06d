// Lists the longest functions outside tests and generated code: `tsx scripts/longest-functions.ts [N]`.
// Used to keep functions short (CODE_STYLE.md) and to report the longest before and after a change.
import ts from "typescript";
import { readFileSync } from "node:fs";
import { execSync } from "node:child_process";
const files = execSync("git ls-files '*.ts' '*.tsx'", { encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !/\.test\.tsx?$|\.spec\.ts$|generated|\.d\.ts$/.test(f));
const out: { name: string; lines: number }[] = [];
for (const f of files) {
  const text = readFileSync(f, "utf8");
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, f.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (n: ts.Node) => {
    if (ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isMethodDeclaration(n)) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      let name = "name" in n && n.name ? n.name.getText() : "";
      if (!name && ts.isVariableDeclaration(n.parent)) name = n.parent.name.getText();
      if (!name && ts.isPropertyAssignment(n.parent)) name = n.parent.name.getText();
      out.push({ name: `${f}:${a + 1} ${name || "<anon>"}`, lines: b - a + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
out.sort((x, y) => y.lines - x.lines);
for (const o of out.slice(0, Number(process.argv[2] ?? 15))) console.log(o.lines.toString().padStart(5), o.name);
