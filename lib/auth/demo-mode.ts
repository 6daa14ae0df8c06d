/**
 * Demo mode: the embedded database and a loopback-only listener. Only then does the login
 * page offer one-click sign-in as the passwordless demo users. boot.ts records it in the
 * environment because Next bundles its own copy of this module; the environment is shared.
 */
const FLAG = "SWITCHYARD_DEMO_MODE";

export function isLoopbackHost(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function markDemoMode(opts: { embeddedDatabase: boolean; host: string }): boolean {
  const demo = opts.embeddedDatabase && isLoopbackHost(opts.host);
  process.env[FLAG] = demo ? "1" : "0";
  return demo;
}

export function isDemoMode(): boolean {
  return process.env[FLAG] === "1";
}
