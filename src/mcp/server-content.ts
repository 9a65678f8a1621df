/**
 * The SDK glue of the MCP content capabilities (docs/http.md "Resources, prompts, completions"),
 * next to tools (server.ts): resources, resource templates, prompts, completions, logging, and on a
 * session that lives (stdio) resource subscriptions and the notifications that follow writes and KB
 * warnings. Handlers only translate: content comes from the ContentSurface, which reads it through
 * the KB call pipeline.
 *
 * Stateless HTTP builds a Server per request: nothing can reach the client after the response,
 * so HTTP declares neither `subscribe` nor `listChanged`, and sends no notifications/message
 * outside a call (docs/http.md).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContentSurface } from "./content-surface.js";
import type { CallContext } from "./context.js";
import { parseResourceUri } from "./resource-uri.js";

/** A session's transport decides what it can be told later (see the module comment). */
export function contentCapabilities(live: boolean): ServerCapabilities {
  return {
    resources: live ? { subscribe: true, listChanged: true } : {},
    prompts: live ? { listChanged: true } : {},
    completions: {},
    logging: {},
  };
}

export function installContentHandlers(
  server: Server,
  surface: ContentSurface,
  context: () => CallContext,
  live: boolean,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, (r) =>
    surface.listResources(r.params?.cursor, context()),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (r) =>
    surface.readResource(r.params.uri, context()),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: surface.resourceTemplates(),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: await surface.listPrompts(context()),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (r) =>
    surface.getPrompt(r.params.name, r.params.arguments ?? {}, context()),
  );
  server.setRequestHandler(CompleteRequestSchema, async (r) => ({
    completion: await surface.complete(
      r.params.ref,
      r.params.argument,
      r.params.context?.arguments ?? {},
      context(),
    ),
  }));
  if (live) installLiveNotifications(server, surface);
}

/**
 * Subscriptions (a set of URIs per session) and the notifications of a live session: after a
 * successful write on one of its KBs, `resources/list_changed` and `resources/updated` for every
 * URI subscribed on that KB (the write's exact targets are not tracked: a client re-reads what
 * it watches), and `prompts/list_changed` after skill_install; warnings about its KBs as
 * `notifications/message` (level filtered by the SDK's logging/setLevel). Listening stops when
 * the transport closes.
 */
function installLiveNotifications(server: Server, surface: ContentSurface): void {
  const subscribed = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, async (r) => {
    subscribed.add(r.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (r) => {
    subscribed.delete(r.params.uri);
    return {};
  });
  let stop: (() => void) | null = null;
  const previous = server.oninitialized;
  server.oninitialized = () => {
    previous?.();
    stop ??= surface.onEvent((kb, event) => {
      if (event.kind === "log") {
        void server
          .sendLoggingMessage({
            level: event.level,
            logger: `cartographer:${kb}`,
            data: event.message,
          })
          .catch(() => {});
        return;
      }
      // Prompts are the KB's skills: only skill_install changes them.
      if (event.tool === "skill_install") void server.sendPromptListChanged().catch(() => {});
      void server.sendResourceListChanged().catch(() => {});
      for (const uri of subscribed) {
        if (parseResourceUri(uri)?.kb === kb)
          void server.sendResourceUpdated({ uri }).catch(() => {});
      }
    });
  };
  const closing = server.onclose;
  server.onclose = () => {
    stop?.();
    stop = null;
    closing?.();
  };
}
