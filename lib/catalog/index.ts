// The public surface of lib/catalog: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { listCatalog } from "./list-catalog";
export { ZQuota } from "./schemas";
