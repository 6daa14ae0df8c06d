// The public surface of lib/console: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { publishGatewayRuntime } from "./gateway/gateway-runtime";
