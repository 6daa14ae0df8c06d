// The public surface of lib/edge: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export {
  authenticateRequest,
  dataPlaneAuthenticator,
  operationDenied,
  setAuthenticator,
  type TAuthenticator,
  type TAuthResult,
  type TPrincipal,
} from "./authenticate";
export {
  answerClientError,
  errorBody,
  fromZod,
  ContractError,
  malformed,
  readArrivedJsonBody,
  readJsonBody,
  sendJson,
  sendText,
  unknownOperation,
  unknownRegion,
} from "./http";
export { openApiDocument, registerEndpoint, ZErrorBody } from "./openapi";
export { createFastPath, type TRoute, type TRouteHandler } from "./router";
export { serverTimeoutsFromEnv } from "./server-timeouts";
