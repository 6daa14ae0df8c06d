import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFactorList, type TFactorList, type TProviderInfo } from "@/router-core";
import { demoSmsPolicyYaml } from "@/lib/demo/seed-demo";
import { createAuthenticator, setAuthenticator } from "../../edge/authenticate";
import { createFastPath } from "../../edge/router";
import { createRoutingState } from "../routing-state";
import { serverTimeoutsFromEnv } from "../../edge/server-timeouts";
import { createSnapshotFeed } from "./feed";
import { applySnapshotDelta } from "../../../client/src/snapshot-delta";

function policy(): TFactorList {
  const r = parseFactorList(demoSmsPolicyYaml());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}
const provider = (key: string): TProviderInfo => ({ key, regions: ["EU"], complianceTags: [], costPerRequest: 0.01, credentialStatus: "valid", enabled: true });

const state = createRoutingState({ now: Date.now });
state.setProviders([provider("provider_A"), provider("provider_B")]);
state.setPolicy("SEND_SMS", { policy: policy(), version: "v1", shadow: null });
state.setPolicy("SEND_OTP", { policy: { ...policy(), operation: "SEND_OTP" }, version: "v7", shadow: null });
const feed = createSnapshotFeed({ state, intervalMs: 20 });
let server: http.Server;
let base: string;

beforeAll(async () => {
  setAuthenticator(createAuthenticator({ apiKey: undefined, allowAnonymousWithoutKey: true }));
  const fast = createFastPath(feed.routes);
  server = http.createServer(serverTimeoutsFromEnv({}), (req, res) => void fast(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/routing/snapshot`;
});
afterAll(async () => {
  feed.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- snapshot shapes are asserted field by field
const get = async (query = ""): Promise<{ status: number; json: any; version: string | null }> => {
  const r = await fetch(`${base}${query}`);
  return { status: r.status, json: r.status === 200 ? await r.json() : null, version: r.headers.get("x-snapshot-version") };
};

describe("GET /api/v1/routing/snapshot", () => {
  it("answers the whole state with a version", async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.json.version).toBe(r.version);
    expect(r.json.snapshot.providers.map((p: TProviderInfo) => p.key)).toEqual(["provider_A", "provider_B"]);
    expect(r.json.snapshot.operations.SEND_SMS).toMatchObject({ policyVersion: "v1", regions: { EU: { policyVersion: "v1" } } });
  });

  it("long-polls: 304 when nothing changed, the new version as soon as something does, resumable by version", async () => {
    const v1 = (await get()).version!;
    const idle = await get(`?since=${v1}&waitMs=300`);
    expect(idle).toMatchObject({ status: 304, version: v1 });

    const waiting = get(`?since=${v1}&waitMs=20000`);
    await new Promise((r) => setTimeout(r, 100));
    state.setOverrides([{ kind: "provider_pin", operation: "SEND_SMS", region: "EU", provider: "provider_B", reason: "test", expiresAt: null }]);
    const changed = await waiting;
    expect(changed.status).toBe(200);
    expect(changed.version).not.toBe(v1);
    expect(changed.json.snapshot.operations.SEND_SMS.regions.EU.overrides).toBeTruthy();
    // An old or foreign version gets the current snapshot at once.
    expect((await get(`?since=${v1}&waitMs=20000`)).version).toBe(changed.version);
    expect((await get(`?since=other.1&waitMs=20000`)).version).toBe(changed.version);
  });

  it("holds a long-poll past REQUEST_TIMEOUT_MS: the request was received, it is not a slow client", async () => {
    const v = (await get()).version!;
    expect(await get(`?since=${v}&waitMs=10500`)).toMatchObject({ status: 304, version: v });
  }, 30_000);

  it("with delta=1 answers only what changed since a version it still has, and the whole snapshot otherwise", async () => {
    const before = await get();
    state.setOverrides([{ kind: "provider_kill", operation: "SEND_SMS", region: "EU", provider: "provider_A", reason: "delta test", expiresAt: null }]);
    let after = await get(`?since=${before.version}&waitMs=20000&delta=1`);
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ base: before.version, version: after.version });
    expect(after.json.snapshot).toBeUndefined();
    // Only the changed region travels: not SEND_OTP, not SEND_SMS's head, not the catalogue.
    expect(Object.keys(after.json.delta.operations)).toEqual(["SEND_SMS"]);
    expect(after.json.delta.operations.SEND_SMS.head).toBeUndefined();
    expect(Object.keys(after.json.delta.operations.SEND_SMS.regions)).toEqual(["EU"]);
    expect(after.json.delta.providers).toBeUndefined();
    const whole = await get();
    expect(whole.version).toBe(after.version);
    expect(applySnapshotDelta(before.json.snapshot, after.json.delta)).toEqual(whole.json.snapshot);

    state.setPolicy("SEND_OTP", { policy: { ...policy(), operation: "SEND_OTP" }, version: "v8", shadow: null });
    state.setProviders([provider("provider_A"), provider("provider_B"), provider("provider_C")]);
    after = await get(`?since=${whole.version}&waitMs=20000&delta=1`);
    expect(after.json.delta.operations.SEND_OTP.head.policyVersion).toBe("v8");
    expect(after.json.delta.providers.map((p: TProviderInfo) => p.key)).toEqual(["provider_A", "provider_B", "provider_C"]);
    // Both changes were made before the feed's next tick: one version.
    const current = await get();
    expect(current.version).toBe(after.version);
    expect(applySnapshotDelta(whole.json.snapshot, after.json.delta)).toEqual(current.json.snapshot);

    // A version it no longer has, or never had: the whole snapshot.
    const foreign = await get(`?since=other.1&waitMs=0&delta=1`);
    expect(foreign.json.snapshot).toBeDefined();
    expect(foreign.json.delta).toBeUndefined();
    state.setOverrides([]);
    await get(`?since=${current.version}&waitMs=20000`);
  });

  it("refuses a waitMs it will not honour", async () => {
    expect((await get("?since=x&waitMs=60000")).status).toBe(400);
  });

  it("answers waiting long-polls when closed (shutdown does not wait out their waitMs)", async () => {
    const v = (await get()).version!;
    const waiting = get(`?since=${v}&waitMs=20000`);
    await new Promise((r) => setTimeout(r, 100));
    feed.close();
    expect(await waiting).toMatchObject({ status: 304, version: v });
  });
});
