import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freePort } from "../../test/support/free-port";

describe("flush on exit", () => {
  it("lets the process exit when Switchyard is unreachable, after one flush attempt", async () => {
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "exit-while-down.ts");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", fixture, `http://127.0.0.1:${await freePort()}`], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ failStatic: true, pending: 1 });
  }, 30_000);
});
