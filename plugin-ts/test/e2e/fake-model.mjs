// A scripted OpenAI-compatible streaming chat model on 127.0.0.1 for the e2e test and the demo.
// It records every request body and answers with whatever the current `handler(request)` returns:
// {content?: string, toolCalls?: [{name, arguments}], delayMs?: number}. Replies are streamed as
// SSE chunks the way the harness's DeepSeek adapter expects (delta…, finish_reason + usage, [DONE]).
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
  let current = handler;
  let callSeq = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
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
      let reply;
      try {
        reply = (await current(parsed, index)) ?? { content: 'ok' };
      } catch (err) {
        reply = { content: `fake model handler error: ${err.message}` };
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
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
    requests,
    setHandler(h) {
      current = h;
    },
    close: () => new Promise((r) => server.close(() => r())),
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
