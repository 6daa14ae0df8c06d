// The public surface of lib/server, the composition root: server.ts starts Switchyard through it.
export { bootSwitchyard, type TBootOptions, type TRunningServer } from "./boot";
