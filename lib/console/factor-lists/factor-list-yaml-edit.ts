import { isCollection, isMap, parseDocument } from "yaml";
import { checkPolicyTextBounds } from "@/router-core/policy/text-bounds";

export type TYamlPath = readonly (string | number)[];

/**
 * The form view's writes into the author's YAML: one field at a time through the yaml library's
 * document model, so comments, key order, flow maps and number formats elsewhere survive. Null
 * when the text is not a YAML mapping (the form then waits for the YAML view to be fixed).
 */
export function readYaml(text: string): Record<string, unknown> | null {
  if (checkPolicyTextBounds(text)) return null;
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  return doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
}

/** Sets (or, with undefined, removes) the value at `path`; sections along the path are created as needed. */
export function editYaml(text: string, path: TYamlPath, value: unknown): string {
  if (checkPolicyTextBounds(text)) return text;
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return text;
  if (value === undefined) doc.deleteIn(path);
  else {
    // A collection keeps the style it had; a new score entry is written as Listing 1 writes them.
    const existing = doc.getIn(path, true);
    const flow = isCollection(existing) ? Boolean(existing.flow) : path.length === 2 && path[0] === "scores";
    doc.setIn(path, doc.createNode(value, { flow }));
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The number an input's text means, or the text itself so the schema names what is wrong with it. */
export function numberOrText(text: string): number | string {
  const t = text.trim();
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : t;
}
