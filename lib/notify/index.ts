// The notifications area's public entry: other areas import from here only.
export { enqueueNotification, type TEnqueued } from "./enqueue";
export { notifyComplianceApproved, notifyOverride, notifyPolicyActivated } from "./control-events";
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
export { listDeliveries, type TDeliveryAttempt, type TDeliveryView } from "./list-deliveries";
export { createNotificationDispatcher, dispatcherSettingsFromEnv, type NotificationDispatcher, type TDispatcherSettings } from "./dispatcher";
export { ZChannelInput, channelInputErrors, type TChannelInput } from "./channel-input";
export { ZChannelRoutes, type TChannelRoutes } from "./routes";
export { channelView, deleteChannel, listChannels, putChannel, saveChannel, type TChannelView } from "./channels";
export { awaitDelivery, sendTestNotification } from "./send-test";
export { CHANNEL_KINDS, PAGERDUTY_EVENTS_URL, type TChannelKind } from "./messages";
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook, verifyWebhookSignature } from "./signature";
export { channelFormInput } from "./channel-form";
export { getNotificationsView, type TNotificationsView } from "./get-notifications-view";
