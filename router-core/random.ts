/** Uniform draws in [0, 1). Injected so that the same inputs and seed give the same decision. */
export interface Random {
  next(): number;
}

/**
 * sfc32 seeded through splitmix32: small state, passes PractRand for the sizes we need,
 * and gives well-spread streams even for adjacent integer seeds (1, 2, 3 ...).
 */
export function createSeededRandom(seed: number): Random {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  let s = seed >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Discard the first outputs: sfc32 mixes its state over its first few rounds.
  for (let i = 0; i < 12; i++) next();
  return { next };
}
