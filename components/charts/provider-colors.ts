/**
 * One colour per provider on every chart: a provider's colour is a function of its key (a hash
 * into a fixed palette), not of its position in a chart's sorted list, so provider_A is the same
 * colour on SEND_SMS as on any other operation, and a colour does not stand for another provider
 * on the next page. Two providers of one chart whose keys hash to the same colour are told apart
 * in that chart: the one sorting first keeps it, the other takes the next free colour.
 */

/** Colour-blind-safe palette (Tableau 10), readable on both themes' panels. */
export const PROVIDER_PALETTE: readonly string[] = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

/** FNV-1a (32 bit): cheap, deterministic on every runtime, and spreads short keys like provider_A..E. */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The palette slot a provider has wherever no other provider of the same chart holds it. */
export function homeColorIndex(provider: string): number {
  return hashKey(provider) % PROVIDER_PALETTE.length;
}

/**
 * Colours of one chart's providers. Distinct within the chart up to the palette's size (ten);
 * beyond that, colours repeat in key order.
 */
export function providerColors(providers: readonly string[]): Map<string, string> {
  const keys = [...new Set(providers)].sort();
  const taken = new Set<number>();
  const out = new Map<string, string>();
  for (const p of keys) {
    let i = homeColorIndex(p);
    for (let tries = 0; taken.has(i) && tries < PROVIDER_PALETTE.length; tries++) i = (i + 1) % PROVIDER_PALETTE.length;
    if (taken.size >= PROVIDER_PALETTE.length) taken.clear();
    taken.add(i);
    out.set(p, PROVIDER_PALETTE[i]!);
  }
  return out;
}
