import type { JsonRpcNotification, JsonRpcPeer } from '@mcpkit/jsonrpc';
import { type LoggingMessageParams, Notification, type Task } from '@mcpkit/protocol';
import type { ListCache } from './list-cache.js';
import type { McpClientOptions } from './options.js';

const LIST_CHANGED: Record<string, 'tools' | 'prompts' | 'resources'> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** How long a burst of list_changed notifications for one list is gathered into one call. */
const LIST_CHANGED_DEBOUNCE_MS = 50;

/**
 * Routes the server's notifications to the host's callbacks in `options`. A list change
 * always drops that list from `lists`; without `onlistchanged` the host hears of it
 * through `onnotification`, as of any other notification.
 */
export function registerNotifications(
  peer: JsonRpcPeer,
  options: McpClientOptions,
  lists: ListCache,
  onnotification: (notification: JsonRpcNotification) => void,
): void {
  const o = options;
  if (o.onlog)
    peer.setNotificationHandler(Notification.Message, (p: LoggingMessageParams, extra) =>
      o.onlog!(
        p,
        extra?.relatedRequestId === undefined ? {} : { relatedRequestId: extra.relatedRequestId },
      ),
    );
  if (o.onelicitationcomplete) {
    peer.setNotificationHandler(Notification.ElicitationComplete, (p: { elicitationId: string }) =>
      o.onelicitationcomplete!(p.elicitationId),
    );
  }
  if (o.onresourceupdated) {
    peer.setNotificationHandler(Notification.ResourceUpdated, (p: { uri: string }) =>
      o.onresourceupdated!(p.uri),
    );
  }
  if (o.ontaskstatus) {
    peer.setNotificationHandler(Notification.TaskStatus, (p: Task) => o.ontaskstatus!(p));
  }
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  for (const [method, list] of Object.entries(LIST_CHANGED)) {
    peer.setNotificationHandler(method, (params?: Record<string, unknown>) => {
      lists.invalidate(list);
      if (!o.onlistchanged) {
        onnotification(
          params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
        );
        return;
      }
      // Servers often send bursts; the host hears once.
      clearTimeout(timers.get(list));
      timers.set(
        list,
        setTimeout(() => {
          timers.delete(list);
          o.onlistchanged!(list);
        }, LIST_CHANGED_DEBOUNCE_MS),
      );
    });
  }
}
