import type { IncomingMessage, ServerResponse } from "node:http";
import type { TRouterState } from "../../../router-core/index";
import { authenticateRequest, operationDenied, type TPrincipal, ContractError, sendJson, registerEndpoint, ZErrorBody, type TRoute } from "../../edge";
import type { RoutingState } from "../routing-state";
import { diffSnapshots, snapshotParts, type TSnapshotParts } from "./delta";
import type { TRoutingSnapshot } from "./snapshot-types";

export type TSnapshotFeedOptions = {
  state: RoutingState;
  now?: () => number;
  /** How often the state is compared with the last snapshot (default 100 ms). */
  intervalMs?: number;
  /** The ticker stops after this long without a subscriber asking (default 60 s). */
  idleMs?: number;
};

const MAX_WAIT_MS = 30_000;
/** Versions kept to answer deltas from; a client further behind gets the whole snapshot. */
const HISTORY = 32;

registerEndpoint({
  method: "get",
  path: "/api/v1/routing/snapshot",
  summary: "The routing state for in-process decisions: policies, planned shares, breakers, quotas, metrics, overrides",
  description:
    "Versioned. Without `since`, or with a version other than the current one, answers the current snapshot at once. " +
    "With the current version and `waitMs` (long-poll, at most 30000), waits until the state changes and answers the new " +
    "one, or 304 when nothing changed in that time; resume by sending the last version seen. The version is opaque and " +
    "per instance (a restart or another instance answers the whole snapshot). Changes are noticed within 100 ms of reaching this instance. " +
    "With `delta=1` and a `since` among the last 32 versions, answers only what changed: {version, at, base, delta: {providers?, dbAvailable?, " +
    "operations: {OP: null | {head?: {policyVersion, policy, shadow}, regions: {R: state | null}}}}} (null removes); otherwise the whole snapshot.",
  tags: ["decisions"],
  responses: {
    200: {
      description:
        "{version, at, snapshot: {providers, operations: {OP: {policyVersion, policy, shadow, regions: {R: {metrics, breakers, quotas, shares, overrides, policyVersion}}}}, dbAvailable}}",
    },
    304: { description: "Unchanged during waitMs (header x-snapshot-version)" },
    400: { description: "waitMs is not an integer from 0 to 30000", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
  },
});

/** The snapshot of every operation and region the state knows; `allowed` filters operations. */
export function buildSnapshot(state: RoutingState, allowed: (operation: string) => boolean = () => true): TRoutingSnapshot {
  const operations: TRoutingSnapshot["operations"] = {};
  for (const op of state.operations()) {
    if (!allowed(op)) continue;
    const active = state.policyFor(op);
    if (!active) continue;
    const regions: Record<string, Omit<TRouterState, "providers">> = {};
    for (const region of state.knownRegions(op)) {
      const s = state.snapshotFor(op, region);
      if (!s) continue;
      regions[region] = {
        metrics: s.metrics,
        breakers: s.breakers,
        quotas: s.quotas,
        shares: s.shares ?? null,
        overrides: s.overrides,
        policyVersion: s.policyVersion,
      };
    }
    operations[op] = { policyVersion: active.version, policy: active.policy, shadow: active.shadow, regions };
  }
  return { providers: state.providers(), operations, dbAvailable: state.dbAvailable };
}

/**
 * The snapshot stream: a ticker compares the routing state's text with the last one and bumps
 * the version when it changed, waking the long-polls waiting on the old version. Comparing text
 * rather than hooking every setter keeps routing-state.ts untouched and catches every change,
 * overrides expiring included; the ticker runs only while someone has asked recently.
 */
export function createSnapshotFeed(opts: TSnapshotFeedOptions) {
  const now = opts.now ?? Date.now;
  const intervalMs = opts.intervalMs ?? 100;
  const idleMs = opts.idleMs ?? 60_000;
  const epoch = now().toString(36);
  let seq = 0;
  let text = "";
  let version = "";
  let at = 0;
  const history = new Map<string, TSnapshotParts>();
  // Delta answers for unrestricted callers, by base version: every client on one base gets the same text.
  const deltaText = new Map<string, string>();
  let lastAsked = 0;
  let timer: NodeJS.Timeout | null = null;
  const waiters = new Set<() => void>();

  function refresh(): void {
    const snapshot = buildSnapshot(opts.state);
    const next = JSON.stringify(snapshot);
    if (next === text) return;
    text = next;
    version = `${epoch}.${++seq}`;
    at = now();
    history.set(version, snapshotParts(snapshot));
    if (history.size > HISTORY) history.delete(history.keys().next().value!);
    deltaText.clear();
    for (const w of [...waiters]) w();
  }

  function ensureRunning(): void {
    lastAsked = now();
    if (timer) return;
    refresh();
    timer = setInterval(() => {
      if (now() - lastAsked > idleMs && waiters.size === 0) {
        clearInterval(timer!);
        timer = null;
        return;
      }
      refresh();
    }, intervalMs);
    timer.unref();
  }

  function deltaFrom(since: string, restricted: boolean, allowed: (op: string) => boolean): string {
    const cached = restricted ? undefined : deltaText.get(since);
    if (cached !== undefined) return cached;
    const body = JSON.stringify(diffSnapshots(history.get(since)!, history.get(version)!, allowed));
    if (!restricted) deltaText.set(since, body);
    return body;
  }

  function answer(res: ServerResponse, principal: TPrincipal, since: string | null, delta: boolean): void {
    const restricted = principal.kind === "api_key" && principal.operationKeys.length > 0;
    const allowed = (op: string) => operationDenied(principal, op) === null;
    const head = `{"version":${JSON.stringify(version)},"at":${at}`;
    const payload =
      delta && since !== null && history.has(since)
        ? `${head},"base":${JSON.stringify(since)},"delta":${deltaFrom(since, restricted, allowed)}}`
        : `${head},"snapshot":${restricted ? JSON.stringify(buildSnapshot(opts.state, allowed)) : text}}`;
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(payload),
      "cache-control": "no-store",
      "x-snapshot-version": version,
    });
    res.end(payload);
  }

  async function handler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = await authenticateRequest(req, "decide");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    const query = new URL(req.url ?? "/", "http://localhost").searchParams;
    const since = query.get("since");
    const delta = query.get("delta") === "1";
    const rawWait = query.get("waitMs") ?? "0";
    const waitMs = Number(rawWait);
    if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS)
      throw new ContractError("malformed", `waitMs must be an integer from 0 to ${MAX_WAIT_MS}`, "waitMs");
    ensureRunning();
    if (since !== version || waitMs === 0) {
      answer(res, auth.principal, since, delta);
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timeout);
        waiters.delete(done);
        resolve();
      };
      const timeout = setTimeout(done, waitMs);
      waiters.add(done);
      res.once("close", done);
    });
    if (res.destroyed || res.writableEnded) return;
    if (since === version) {
      res.writeHead(304, { "cache-control": "no-store", "x-snapshot-version": version });
      res.end();
      return;
    }
    answer(res, auth.principal, since, delta);
  }

  const routes: TRoute[] = [{ method: "GET", path: "/api/v1/routing/snapshot", handler }];
  return {
    routes,
    /** The current version (tests). */
    get version(): string {
      return version;
    },
    close(): void {
      if (timer) clearInterval(timer);
      timer = null;
      for (const w of [...waiters]) w();
    },
  };
}
