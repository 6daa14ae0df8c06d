// The public surface of lib/errors: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { busy, ContractError, invalid, isTransactionStartTimeout, isUniqueViolation, notFound, parseInput, type TFieldError } from "./api-errors";
