// A scripted OpenAI-compatible streaming chat model on 127.0.0.1 for the e2e test and the demo.
// It records every request body (and its headers, by the same index) and answers with whatever the
// current `handler(request, index, headers)` returns: {content?: string, toolCalls?: [{name, arguments}],
// delayMs?: number}, or {status, error} for an HTTP error with the OpenAI error body (a 400
// "maximum context length exceeded" is what the DeepSeek adapter maps to a context overflow).
// Replies are streamed as SSE chunks the way the harness's DeepSeek adapter expects (delta…,
// finish_reason + usage, [DONE]).
import { createServer } from 'node:http';

/** Builds one SSE `data:` line. */
const sse = (obj) => `data: ${JSON.stringify(obj)}\n\n`;

/**
 * Starts the server.
 * @param {(req: any, index: number) => any | Promise<any>} handler - decides each reply.
 * @returns {Promise<{url: string, requests: any[], setHandler: Function, close: Function}>}
 */
export async function startFakeModel(handler) {
  const requests = [];
  /** Request headers, by request index (the adapter marks a compaction call with x-deepseek-harness-compact: 1). */
  const headers = [];
  let current = handler;
  let callSeq = 0;
  const control = controlChannel();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    res.on('error', () => {}); // the client may give up on a held reply
    req.on('end', async () => {
      if (req.url?.startsWith('/control/')) {
        control.route(req, res, body);
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let parsed;
      try {
        parsed = JSON.parse(body);
      } catch {
        res.writeHead(400).end('bad json');
        return;
      }
      const index = requests.length;
      requests.push(parsed);
      headers.push(req.headers);
      let reply;
      try {
        reply = (await current(parsed, index, req.headers)) ?? { content: 'ok' };
      } catch (err) {
        reply = { content: `fake model handler error: ${err.message}` };
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.status) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: reply.error ?? 'error', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: parsed.model ?? 'fake-model' };
      res.write(sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
      if (reply.content) {
        // Two pieces, so the harness really assembles deltas.
        const mid = Math.ceil(reply.content.length / 2);
        for (const piece of [reply.content.slice(0, mid), reply.content.slice(mid)]) {
          if (piece) res.write(sse({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }));
        }
      }
      const calls = reply.toolCalls ?? [];
      calls.forEach((tc, i) => {
        const id = `call_${++callSeq}`;
        const args = typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments ?? {});
        res.write(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, id, type: 'function', function: { name: tc.name, arguments: args } }] }, finish_reason: null }] }));
      });
      const finish = calls.length > 0 ? 'tool_calls' : 'stop';
      res.write(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
      res.write('data: [DONE]\n\n');
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    controlUrl: `http://127.0.0.1:${port}/control`,
    /** Sends one command to the e2e driver plugin; resolves with its report. */
    drive: (cmd) => control.send(cmd),
    requests,
    headers,
    setHandler(h) {
      current = h;
    },
    close: () => {
      server.closeAllConnections?.();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/**
 * The command queue the e2e driver plugin (test/e2e/driver-plugin.mjs) long-polls:
 * GET /control/next hands out the next command, POST /control/done reports its outcome.
 */
function controlChannel() {
  const queue = [];
  const waiting = new Map();
  let poller;
  let seq = 0;
  const reply = (res, status, obj) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };
  return {
    send(cmd) {
      const c = { ...cmd, seq: ++seq };
      const done = new Promise((resolve) => waiting.set(c.seq, resolve));
      if (poller) {
        reply(poller, 200, c);
        poller = undefined;
      } else queue.push(c);
      return done;
    },
    route(req, res, body) {
      if (req.method === 'GET' && req.url === '/control/next') {
        if (queue.length > 0) reply(res, 200, queue.shift());
        else poller = res;
        return;
      }
      if (req.method === 'POST' && req.url === '/control/done') {
        const r = JSON.parse(body);
        waiting.get(r.seq)?.(r);
        waiting.delete(r.seq);
        reply(res, 200, {});
        return;
      }
      reply(res, 404, { error: `no control route ${req.method} ${req.url}` });
    },
  };
}

/** The system prompt text of a request (first system message). */
export function systemOf(req) {
  const m = (req.messages ?? []).find((x) => x.role === 'system');
  if (!m) return '';
  return typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
}

/** Tool names offered in a request. */
export function toolNames(req) {
  return (req.tools ?? []).map((t) => t.function?.name).filter(Boolean);
}

/** Messages of a role, as text. */
export function textsOf(req, role) {
  return (req.messages ?? [])
    .filter((m) => m.role === role)
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('')));
}
