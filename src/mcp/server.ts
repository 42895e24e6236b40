/**
 * The gitctx MCP server, independent of the transport: tools/list from the toolbox's tool table, tools/call into
 * `toolbox.execute`; resources (gitctx://context, gitctx://instructions) and the prompt system_context are read
 * through the same toolbox, and subscribing to a resource starts the toolbox's watcher (resources/updated). The low-level SDK `Server` is used rather than `McpServer`, because the toolbox already
 * owns the schemas (JSON Schema derived once from zod) and the input validation (its `invalid_input` names every
 * bad field and gives a hint); `McpServer` would validate again with its own messages.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { listTools, type SettingWording, type ToolboxOptions } from "../index.js";
import { serverInstructions } from "./instructions.js";
import { getPrompt, PROMPTS } from "./prompts.js";
import { readResource, RESOURCE_TEMPLATES, RESOURCES } from "./resources.js";
import { ResourceSubscriptions } from "./subscriptions.js";
import { toCallToolResult, toMcpTool } from "./tools.js";
import { Workspace } from "./workspace.js";

export interface McpServerOptions extends ToolboxOptions {
  /** Reported to clients as the server version. */
  version: string;
  /** Without `root`: the workspace when the client offers no roots. Default: the current directory. */
  cwd?: string;
  /** One line of diagnostics, for stderr: nothing but protocol may reach stdout on stdio. Default: discard. */
  log?: (line: string) => void;
}

export interface GitctxMcpServer {
  /** Connect it to one transport. */
  readonly server: Server;
  /**
   * Closes the connection, which aborts the calls in flight, and resolves once they have all settled and the
   * connection's sessions are closed (no git process, temporary file or directory left). Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * How the server's hints name a setting: the flags of `gitctx mcp` and, for the workspace, the client's roots,
 * which are what a person setting up a client can change.
 */
export const MCP_SETTINGS: SettingWording = ({ setting, value }) => {
  switch (setting) {
    case "root":
      return (
        `point the server at ${value ?? "another directory"}: start it with --root <dir>, or without --root ` +
        "open that folder in the client (the server uses the client's first MCP root)"
      );
    case "trustRepository":
      return "start the server with --trust-repository";
    case "timeoutMs":
      return "start the server with a larger --timeout (in milliseconds)";
    case "mode":
      return `start the server with --mode ${value ?? "workspace-write"}`;
  }
};

export function createMcpServer(options: McpServerOptions): GitctxMcpServer {
  const { version, cwd, log = () => {}, ...given } = options;
  const toolboxOptions = { describeSetting: MCP_SETTINGS, ...given };
  // What the sessions of this server may run: a read-only server offers no tool that writes.
  const tools = listTools(toolboxOptions.mode ?? "read-only");
  const server = new Server(
    { name: "gitctx", title: "gitctx", version },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} }, instructions: serverInstructions(tools) },
  );
  const workspace = new Workspace(server, { toolbox: toolboxOptions, cwd: cwd ?? process.cwd(), log });
  const subscriptions = new ResourceSubscriptions(server, workspace, log);
  const inFlight = new Set<Promise<unknown>>();

  server.onerror = (error) => log(`ignored a message: ${clip(error.message)}`);
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    workspace.rootsChanged();
    subscriptions.rootsChanged();
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(toMcpTool) }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...RESOURCES] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }));
  // The first subscription starts the connection's watcher; its events say when a subscribed resource is stale.
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await subscriptions.subscribe(request.params.uri, extra.requestId);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    workspace.with(extra.requestId, (toolbox) => readResource(toolbox, request.params.uri, extra.signal)),
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...PROMPTS] }));
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    workspace.with(extra.requestId, (toolbox) => getPrompt(toolbox, request.params.name, request.params.arguments, extra.signal)),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: input } = request.params;
    // The request's signal aborts when the client cancels or disconnects: that kills the call's git processes.
    const call = workspace.with(extra.requestId, (toolbox) => toolbox.execute(name, input, { signal: extra.signal }));
    inFlight.add(call);
    try {
      return toCallToolResult(await call);
    } catch (error) {
      if (extra.signal.aborted) throw error; // Nobody is listening for the answer any more.
      log(`internal error in ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw new McpError(ErrorCode.InternalError, `gitctx internal error in ${name}, please report it: ${String(error)}`);
    } finally {
      inFlight.delete(call);
    }
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    close() {
      closing ??= (async () => {
        await server.close();
        await Promise.allSettled([...inFlight]);
        await subscriptions.close();
        await workspace.close();
      })();
      return closing;
    },
  };
}

/** Parse errors can quote a whole message back; a log line needs the start of it. */
function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}
