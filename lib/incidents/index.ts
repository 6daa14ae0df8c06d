// The incidents area's public entry: other areas, app/ and components (types only) import from here.
export { trackIncidents, incidentUrl, NOTIFY_HORIZON_MS, type TTrackResult } from "./track-incidents";
export { applyFacts, shiftCause, degradedBy, incidentTitle, working, type TWorkingIncident } from "./apply-facts";
export { closeIncident, ZCloseIncidentBody } from "./close-incident";
export { listIncidents, countOpenIncidents, listIncidentSpans, incidentHoldsEvent, INCIDENT_LIST_LIMIT } from "./list-incidents";
export { getIncident } from "./get-incident";
export { stepSummary } from "./step-summary";
export type * from "./types";
