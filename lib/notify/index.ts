// The notifications area's public entry: other areas import from here only.
export { enqueueNotification, type TEnqueued } from "./enqueue";
export {
  NOTIFICATION_KINDS,
  NOTIFICATION_SEVERITIES,
  type TComplianceNotification,
  type TIncidentNotification,
  type TNotificationInput,
  type TNotificationKind,
  type TNotificationSeverity,
  type TOverrideNotification,
  type TPolicyNotification,
} from "./events";
