/*
 * Every message between the view and the host, checked against the schemas
 * the official packages ship. Bundled into the test host page (host.js).
 *
 * - The JSON-RPC envelope: @modelcontextprotocol/core's JSONRPCMessageSchema,
 *   the zod schema PostMessageTransport itself parses with (strict: no key
 *   beyond jsonrpc, id, method, params, result, error).
 * - An MCP Apps message (`ui/...`): its zod schema from
 *   @modelcontextprotocol/ext-apps (what AppBridge parses with) and its
 *   definition in the same package's schema.json, a JSON Schema that admits
 *   no key the spec does not name where zod only drops them. A response is
 *   checked against the result schema of the request it answers.
 * - MCP's own methods a view may send through the host (`tools/call`, ...):
 *   @modelcontextprotocol/core's zod schemas, the SDK AppBridge is built on;
 *   schema.json defines only the `ui/` messages.
 *
 * Which side sends which method is written once, in SENDER; the schemas are
 * looked up from it, and a method of schema.json that SENDER does not place
 * stops the page at load, so a new package version cannot slip a message past.
 */
import * as apps from "@modelcontextprotocol/ext-apps/app-bridge";
import * as core from "@modelcontextprotocol/core";
import published from "@modelcontextprotocol/ext-apps/schema.json";
import Ajv2020 from "ajv/dist/2020.js";

export const VIEW = "view";
export const HOST = "host";

/* Who sends each method on a bridge between one host page and one view iframe. */
const SENDER = {
  "ui/initialize": VIEW,
  "ui/notifications/initialized": VIEW,
  "ui/notifications/size-changed": VIEW,
  "ui/message": VIEW,
  "ui/open-link": VIEW,
  "ui/download-file": VIEW,
  "ui/update-model-context": VIEW,
  "ui/request-display-mode": VIEW,
  "ui/notifications/request-teardown": VIEW,
  "ui/notifications/tool-input": HOST,
  "ui/notifications/tool-input-partial": HOST,
  "ui/notifications/tool-result": HOST,
  "ui/notifications/tool-cancelled": HOST,
  "ui/notifications/host-context-changed": HOST,
  "ui/resource-teardown": HOST,
};

/* schema.json's messages that belong to a double-iframe sandbox proxy, not to
   a view: this host draws the view in one sandboxed iframe. */
const PROXY_ONLY = ["ui/notifications/sandbox-proxy-ready", "ui/notifications/sandbox-resource-ready"];

/* MCP's own methods a view may send through the host, with core's schemas. */
const MCP_METHODS = {
  "tools/call": { request: core.CallToolRequestSchema, result: core.CallToolResultSchema },
  "resources/read": { request: core.ReadResourceRequestSchema, result: core.ReadResourceResultSchema },
  "ping": { request: core.PingRequestSchema, result: core.EmptyResultSchema },
  "notifications/message": { request: core.LoggingMessageNotificationSchema },
};

// Each definition of schema.json is a document of its own (its `$defs` are local to it).
// strictRequired is off: schema.json requires style variables that it declares only under
// propertyNames, which ajv's strict mode reports as a fault of the schema, not of a message.
// Formats are not checked here; every format in it (date-time) also has a pattern.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateFormats: false });
const definitions = published.$defs;

function zodCheck(name, schema) {
  return function (value) {
    const parsed = schema.safeParse(value);
    return parsed.success ? [] : parsed.error.issues.map((i) => `zod ${name}: ${i.path.join(".") || "(top)"}: ${i.message}`);
  };
}

function jsonCheck(name) {
  let validate = null;  // compiled on first use: a page compiles only the messages it sees
  return function (value) {
    validate = validate || ajv.compile(definitions[name]);
    return validate(value) ? [] : validate.errors.map((e) => `schema.json ${name}: ${e.instancePath || "(top)"} ${e.message}` +
      (e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ""));
  };
}

function both(...checks) {
  return (value) => checks.flatMap((check) => check(value));
}

/* method → { sender, request (bool), body check, result check } */
function specs() {
  const byMethod = new Map();
  for (const [name, definition] of Object.entries(definitions)) {
    const method = definition.properties && definition.properties.method && definition.properties.method.const;
    if (method) byMethod.set(method, name);
  }
  for (const method of byMethod.keys()) {
    if (!(method in SENDER) && !PROXY_ONLY.includes(method)) {
      throw new Error(`schema.json defines ${method}, which schema_check.js does not place: add it to SENDER or PROXY_ONLY`);
    }
  }
  const out = new Map();
  for (const [method, sender] of Object.entries(SENDER)) {
    const name = byMethod.get(method);
    if (!name) throw new Error(`SENDER names ${method}, which the package's schema.json does not define`);
    const request = name.endsWith("Request");
    const resultName = name.replace(/Request$/, "Result");
    const result = !request ? null
      : definitions[resultName] ? both(zodCheck(resultName, apps[resultName + "Schema"]), jsonCheck(resultName))
      : zodCheck("EmptyResult", core.EmptyResultSchema);
    out.set(method, { sender, request, body: both(zodCheck(name, apps[name + "Schema"]), jsonCheck(name)), result });
  }
  for (const [method, schemas] of Object.entries(MCP_METHODS)) {
    const request = Boolean(schemas.result);
    out.set(method, {
      sender: VIEW,
      request,
      body: zodCheck(method, schemas.request),
      result: request ? zodCheck(`${method} result`, schemas.result) : null,
    });
  }
  return out;
}

const SPECS = specs();
const other = (side) => (side === VIEW ? HOST : VIEW);

/*
 * A checker for one bridge: it remembers the requests each side sent, so a
 * response is checked against the result of the request it answers, and an
 * answer to nothing (or a second answer) is a problem too.
 * check(from, message) → { problems: [string], answers: method or null }
 */
export function newChecker() {
  const asked = new Map();
  return function check(from, message) {
    const problems = [];
    let answers = null;
    const envelope = core.JSONRPCMessageSchema.safeParse(message);
    if (!envelope.success) {
      return { problems: ["not a JSON-RPC 2.0 message: " + envelope.error.issues.map((i) => i.message).join("; ")], answers };
    }
    if (typeof message.method === "string") {
      const spec = SPECS.get(message.method);
      if (!spec) return { problems: [`${message.method} is not a message of an MCP Apps bridge`], answers };
      if (spec.sender !== from) problems.push(`${message.method} is sent by the ${spec.sender}, never by the ${from}`);
      const isRequest = "id" in message;
      if (isRequest !== spec.request) problems.push(`${message.method} must be a ${spec.request ? "request (with an id)" : "notification (no id)"}`);
      const body = "params" in message ? { method: message.method, params: message.params } : { method: message.method };
      problems.push(...spec.body(body));
      if (isRequest) asked.set(`${from}:${JSON.stringify(message.id)}`, message.method);
      return { problems, answers };
    }
    const key = `${other(from)}:${JSON.stringify(message.id)}`;
    answers = asked.get(key) || null;
    if (!answers) {
      problems.push(`answers no open request of the ${other(from)} (id ${JSON.stringify(message.id)})`);
      return { problems, answers };
    }
    asked.delete(key);
    if ("result" in message && SPECS.get(answers).result) problems.push(...SPECS.get(answers).result(message.result));
    return { problems, answers };
  };
}
