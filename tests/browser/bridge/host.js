/*
 * The browser suite's MCP Apps host, built on the official host side:
 * @modelcontextprotocol/ext-apps's AppBridge over its PostMessageTransport in
 * front of the view, and @modelcontextprotocol/client's Client over Streamable
 * HTTP behind it, talking to a real `m1nd serve --http` through the test
 * server's same-origin relay at /mcp (the server sends no CORS headers, and
 * it admits this page's Origin only because the suite starts it with
 * --allow-origin). tests/browser/run.sh bundles this file with esbuild.
 *
 * What it adds to the bridge is what a host decides, and nothing else: which
 * capabilities and context it offers, where the view is drawn (one iframe,
 * sandbox="allow-scripts", the spec's default CSP), the first tool call, and
 * answers to ui/message and ui/open-link that do nothing. Every message in
 * both directions is recorded in window.host.log and checked by
 * schema_check.js as it passes.
 */
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HOST, VIEW, newChecker } from "./schema_check.js";

const HOST_INFO = { name: "m1nd-test-host", version: "1" };
const UI_EXTENSION = "io.modelcontextprotocol/ui";
// The spec's policy for a view that declares no domain of any kind.
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

const frame = document.getElementById("view");
const check = newChecker();
const log = [];

function record(from, message) {
  const { problems, answers } = check(from, message);
  log.push({ from, message, answers, problems });
}

/* The bridge's transport, recording each message it posts to the view. */
class RecordingTransport extends PostMessageTransport {
  async send(message, options) {
    record(HOST, structuredClone(message));
    return super.send(message, options);
  }
}

const host = (window.host = {
  log,
  config: {},
  uri: null,
  mimeType: null,
  serverCapabilities: null,
  initialized: false,
  ready: false,
  failed: null,
  first: null,
  /* Every message the view posted, in order. */
  get sent() {
    return log.filter((e) => e.from === VIEW).map((e) => e.message);
  },
  /* Every CallToolResult the server gave: the host's own first call's, then
     each answer to the view's tools/call (not the results a test fed). */
  get results() {
    const answers = log
      .filter((e) => e.from === HOST && e.answers === "tools/call" && "result" in e.message)
      .map((e) => e.message.result);
    return host.first ? [host.first, ...answers] : answers;
  },
  /* The recorded messages a schema refused, with why. */
  get invalid() {
    return log.map((e, index) => ({ index, ...e })).filter((e) => e.problems.length > 0);
  },
  /* The schema check on its own, with a checker of its own: for the suite's test of the check. */
  check(sequence) {
    const probe = newChecker();
    return sequence.map(([from, message]) => probe(from, message).problems);
  },
});

function withDefaultCsp(html) {
  const policy = `<meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`;
  if (!html.includes("<head>")) throw new Error("the template has no <head> to put the policy in");
  return html.replace("<head>", "<head>" + policy);
}

async function connectToServer() {
  const client = new Client(HOST_INFO, {
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", window.location.href)));
  return client;
}

async function readTemplate(client) {
  const { tools } = await client.listTools();
  const cockpit = tools.find((t) => t.name === "cockpit");
  if (!cockpit) throw new Error("the server lists no cockpit tool");
  host.uri = getToolUiResourceUri(cockpit);
  if (!host.uri) throw new Error("the cockpit tool names no ui:// resource");
  const read = await client.readResource({ uri: host.uri });
  if (read.contents.length !== 1) throw new Error(`resources/read gave ${read.contents.length} contents, not 1`);
  const [content] = read.contents;
  host.mimeType = content.mimeType;
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`the template is ${content.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  const csp = (content._meta && content._meta.ui && content._meta.ui.csp) || {};
  const declared = Object.values(csp).flat();
  if (declared.length) throw new Error(`the template declares domains (${JSON.stringify(csp)}); this host applies only the default policy`);
  return content.text;
}

/*
 * Start the view. config: { select, theme (or null), serverTools (false: the
 * host offers no server tools), refuseTools (true: it offers them, then
 * refuses every call) }.
 */
host.start = async function (config) {
  host.config = config;
  const client = await connectToServer();
  host.client = client;
  host.serverCapabilities = client.getServerCapabilities();
  const html = await readTemplate(client);

  const capabilities = { openLinks: {} };
  if (config.serverTools !== false) capabilities.serverTools = host.serverCapabilities.tools;
  const hostContext = { displayMode: "inline", availableDisplayModes: ["inline"], locale: "en" };
  if (config.theme) hostContext.theme = config.theme;
  host.hostContext = hostContext;
  const bridge = new AppBridge(client, HOST_INFO, capabilities, { hostContext });
  host.bridge = bridge;
  bridge.onmessage = async () => ({});
  bridge.onopenlink = async () => ({});
  bridge.oninitialized = async () => {
    host.initialized = true;
    host.appVersion = bridge.getAppVersion();
    const args = { select: config.select || "" };
    try {
      await bridge.sendToolInput({ arguments: args });
      host.first = await client.callTool({ name: "cockpit", arguments: args });
      await bridge.sendToolResult(host.first);
      host.ready = true;
    } catch (error) {
      host.failed = `the host's first cockpit call failed: ${error && error.message}`;
    }
  };

  // Recorded before the transport's own listener sees it, and whatever its shape.
  window.addEventListener("message", (event) => {
    if (event.source === frame.contentWindow) record(VIEW, event.data);
  });
  await bridge.connect(new RecordingTransport(frame.contentWindow, frame.contentWindow));
  if (config.refuseTools) {
    // After connect, which sets the forwarding handler from the server's capabilities.
    bridge.oncalltool = async () => {
      throw new Error("this host does not let views call tools");
    };
  }
  frame.srcdoc = withDefaultCsp(html);
};

/* Give the view a tool result it did not ask for, through the bridge. */
host.feed = (result) => host.bridge.sendToolResult(result);
/* Change the host context; the bridge sends only what changed. */
host.context = (changes) => {
  host.hostContext = { ...host.hostContext, ...changes };
  host.bridge.setHostContext(host.hostContext);
};
/* Ask the view to tear down, as a host does before it removes the iframe. */
host.teardown = () => host.bridge.teardownResource({});
/* Call the server directly (the suite's probes; not a view message). */
host.call = (name, args) => host.client.callTool({ name, arguments: args });
