// The public surface of lib/openai-compat: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { createOpenAiCompatRoutes } from "./handler";
export { parseModelAliases, resolveModel, type TModelTarget } from "./models";
export { answerHeaders, executeEventSink, header, refuseAuthenticated, runExecute, type TJson } from "./run-execute";
export { type TExecuteBody } from "./translate";
