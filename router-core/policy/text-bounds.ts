/**
 * Bounds checked on factor-list text before the YAML parser sees it. The parser's cost grows
 * with nesting faster than linearly (1,000 nested `[` took 55 ms; 5,000 made it build a
 * regular expression that ran the process out of memory), and a real factor list nests four
 * levels deep, so these leave ample room for comments and formatting and nothing for abuse.
 */
export const MAX_POLICY_TEXT_CHARS = 256 * 1024;
export const MAX_POLICY_NESTING = 32;
/** Every `[` and `{` anywhere, strings and comments included: a ceiling that needs no parsing to hold. */
export const MAX_POLICY_FLOW_OPENERS = 512;

/**
 * The first bound the text breaks, or null. One pass over the characters: flow brackets outside
 * quotes and comments, plus block nesting estimated from indentation and `- ` prefixes. The
 * estimate may only overstate the depth the parser would see, never understate it.
 */
export function checkPolicyTextBounds(text: string): { path: ""; message: string } | null {
  if (text.length > MAX_POLICY_TEXT_CHARS) {
    return { path: "", message: `factor list text is ${text.length} characters; the limit is ${MAX_POLICY_TEXT_CHARS}` };
  }
  let openers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_SQUARE || c === OPEN_CURLY) openers++;
  }
  if (openers > MAX_POLICY_FLOW_OPENERS) {
    return { path: "", message: `factor list has ${openers} flow collections ('[' or '{'); the limit is ${MAX_POLICY_FLOW_OPENERS}` };
  }
  const depth = maxNesting(text, MAX_POLICY_NESTING);
  if (depth > MAX_POLICY_NESTING) {
    return { path: "", message: `factor list nests more than ${MAX_POLICY_NESTING} levels deep; the limit is ${MAX_POLICY_NESTING}` };
  }
  return null;
}

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const CR = 13;
const DASH = 45;
const HASH = 35;
const SINGLE = 39;
const DOUBLE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const QUESTION = 63;
const OPEN_SQUARE = 91;
const OPEN_CURLY = 123;
const CLOSE_SQUARE = 93;
const CLOSE_CURLY = 125;

/** The deepest nesting seen, stopping early once it passes `stopAbove`. */
function maxNesting(text: string, stopAbove: number): number {
  const indents: number[] = [];
  let flow = 0;
  let max = 0;
  let quote = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    // Start of a line: outside a flow collection or a quoted scalar, indentation opens or closes block levels.
    let indent = 0;
    while (i < n && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) {
      indent++;
      i++;
    }
    const first = i < n ? text.charCodeAt(i) : NEWLINE;
    if (flow === 0 && quote === 0 && first !== NEWLINE && first !== CR && first !== HASH) {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
      // Compact sequences ("- - - x") open one level per dash on the same line.
      while (i + 1 < n && text.charCodeAt(i) === DASH && (text.charCodeAt(i + 1) === SPACE || text.charCodeAt(i + 1) === TAB)) {
        indents.push(indent + 1);
        i += 2;
        while (i < n && text.charCodeAt(i) === SPACE) i++;
      }
    }
    let prev = SPACE;
    // The last non-blank character before this one on the line (SPACE at its start): a quote
    // opens a quoted scalar only where a value may start; inside a plain scalar it is literal.
    let lastSolid = SPACE;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) {
        i++;
        break;
      }
      if (c === CR) continue;
      if (quote !== 0) {
        if (quote === DOUBLE && c === BACKSLASH) i++;
        else if (c === quote) quote = 0;
      } else if ((c === SINGLE || c === DOUBLE) && startsValue(prev, lastSolid)) {
        quote = c;
      } else if (c === HASH && (prev === SPACE || prev === TAB)) {
        // A comment runs to the end of the line.
        while (i < n && text.charCodeAt(i) !== NEWLINE) i++;
        i++;
        break;
      } else if (c === OPEN_SQUARE || c === OPEN_CURLY) {
        flow++;
        if (indents.length + flow > max) max = indents.length + flow;
        if (max > stopAbove) return max;
      } else if ((c === CLOSE_SQUARE || c === CLOSE_CURLY) && flow > 0) {
        flow--;
      }
      prev = c;
      if (c !== SPACE && c !== TAB) lastSolid = c;
    }
    if (indents.length + flow > max) max = indents.length + flow;
    if (max > stopAbove) return max;
  }
  return max;
}

function startsValue(prev: number, lastSolid: number): boolean {
  const afterBlank = prev === SPACE || prev === TAB || prev === OPEN_SQUARE || prev === OPEN_CURLY || prev === COMMA;
  return (
    afterBlank &&
    (lastSolid === SPACE ||
      lastSolid === COLON ||
      lastSolid === DASH ||
      lastSolid === OPEN_SQUARE ||
      lastSolid === OPEN_CURLY ||
      lastSolid === COMMA ||
      lastSolid === QUESTION)
  );
}
