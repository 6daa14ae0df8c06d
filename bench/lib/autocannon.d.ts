// autocannon ships no types; this declares the part of its programmatic API bench-api.ts uses.
declare module "autocannon" {
  namespace autocannon {
    type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
    type Options = {
      url: string;
      method?: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      headers?: Record<string, string>;
      requests?: Array<{ setupRequest?: (req: Request) => Request; onResponse?: (status: number, body: string) => void }>;
    };
    type Histogram = { p50: number; p90: number; p99: number; max: number; mean: number };
    type Result = {
      duration: number;
      latency: Histogram;
      requests: Histogram & { total: number };
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
    };
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
