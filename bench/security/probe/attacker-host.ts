import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The attacker's host for the security probe: a loopback https server with its own throwaway
 * test CA that records every request it receives, so an attack can check whether a secret (or
 * any request at all) reached it.
 *
 * Intended use, in this order:
 *   1. `const attacker = await startAttackerHost()` before the Switchyard server starts;
 *   2. start the server with `attackerHostEnv(attacker)` merged into its environment:
 *      NODE_EXTRA_CA_CERTS makes Node trust the CA (read once at process start, hence first),
 *      and SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS lets adapters reach the attacker's one
 *      address. It listens on 127.0.0.2, not 127.0.0.1, so that allowance does not open the
 *      server's own loopback address: SSRF attacks at 127.0.0.1 must still be refused;
 *   3. point an adapter at `attacker.url`, make the call, then `attacker.received(secret)` lists
 *      the requests that carried it (path, any header or body), `attacker.requests` all of them;
 *   4. `attacker.close()` at the end removes the server and the CA's directory.
 * By default it answers 200 `{"ok":true}`; `answer(fn)` changes that (a 302, a 401 echoing…).
 */
export type TAttackerRequest = { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string; at: number };
export type TAttackerAnswer = { status: number; headers?: Record<string, string>; body?: string };

export type TAttackerHost = {
  /** `https://127.0.0.2:<port>`: a base URL for an adapter. */
  url: string;
  host: string;
  port: number;
  /** The CA's certificate (PEM file): NODE_EXTRA_CA_CERTS for the server under attack. */
  caFile: string;
  /** Every request received, oldest first. */
  requests: TAttackerRequest[];
  /** The requests whose path, headers or body contain `secret`. */
  received(secret: string): TAttackerRequest[];
  /** How to answer from now on. */
  answer(fn: (req: TAttackerRequest) => TAttackerAnswer): void;
  clear(): void;
  close(): Promise<void>;
};

/** Bodies beyond this are cut: the host records what arrived, it is not a sink for floods. */
const MAX_RECORDED_BODY = 1024 * 1024;

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: "ignore" });
}

/** A CA and a certificate it signed for `host` (IP SAN), in `dir`: the CA's PEM path, and the host's key and certificate. */
function makeCertificates(dir: string, host: string): { caFile: string; key: Buffer; cert: Buffer } {
  const p = (name: string) => path.join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...ec, "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "2", "-subj", "/CN=Switchyard security probe test CA"]);
  openssl(["req", ...ec, "-keyout", p("host.key"), "-out", p("host.csr"), "-subj", `/CN=${host}`]);
  writeFileSync(p("host.ext"), `subjectAltName=IP:${host}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl([
    "x509",
    "-req",
    "-in",
    p("host.csr"),
    "-CA",
    p("ca.pem"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    p("host.pem"),
    "-extfile",
    p("host.ext"),
  ]);
  return { caFile: p("ca.pem"), key: readFileSync(p("host.key")), cert: readFileSync(p("host.pem")) };
}

function contains(r: TAttackerRequest, secret: string): boolean {
  if (r.path.includes(secret) || r.body.includes(secret)) return true;
  return Object.values(r.headers).some((v) => (Array.isArray(v) ? v.some((x) => x.includes(secret)) : (v ?? "").includes(secret)));
}

export async function startAttackerHost(opts: { host?: string } = {}): Promise<TAttackerHost> {
  const host = opts.host ?? "127.0.0.2";
  const dir = mkdtempSync(path.join(tmpdir(), "sy-probe-attacker-"));
  const { caFile, key, cert } = makeCertificates(dir, host);
  const requests: TAttackerRequest[] = [];
  let answerWith = (_req: TAttackerRequest): TAttackerAnswer => ({ status: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' });
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      if (size < MAX_RECORDED_BODY) chunks.push(c);
      size += c.length;
    });
    req.on("end", () => {
      const r: TAttackerRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: { ...req.headers },
        body: Buffer.concat(chunks).subarray(0, MAX_RECORDED_BODY).toString("utf8"),
        at: Date.now(),
      };
      requests.push(r);
      const a = answerWith(r);
      res.writeHead(a.status, a.headers ?? {}).end(a.body ?? "");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host}:${port}`,
    host,
    port,
    caFile,
    requests,
    received: (secret) => (secret ? requests.filter((r) => contains(r, secret)) : []),
    answer: (fn) => {
      answerWith = fn;
    },
    clear: () => {
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the server under attack needs in its environment to trust and reach the attacker's host (see above). */
export function attackerHostEnv(attacker: TAttackerHost): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: attacker.caFile, SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS: `${attacker.host}/32` };
}
