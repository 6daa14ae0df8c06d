// The public surface of lib/http: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export {
  ContractError,
  ERROR_CODES,
  isErrorCode,
  errorBody,
  errorResponse,
  fromZod,
  invalid,
  malformed,
  type TErrorBody,
  type TErrorCode,
  type TStatusOf,
  type TErrorDetail,
  type TFieldError,
  ZErrorBody,
  ZErrorDetail,
  zodFields,
} from "./error-contract";
