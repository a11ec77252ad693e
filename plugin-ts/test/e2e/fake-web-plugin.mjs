// A test-only cordis plugin: web search and fetch providers that answer from memory, so the harness's
// own web_search and web_fetch tools run in the e2e without the network (rc.8 ships fetch disabled and
// search against DeepSeek's API). Runtime imports: none.
export const name = 'somni-e2e-fake-web';
export const inject = ['web'];

export function apply(ctx) {
  ctx.web.registerSearchProvider({
    id: 'fake-web',
    available: () => true,
    search: async (request) => ({
      content: `Results for ${JSON.stringify(request.query ?? request.queries ?? '')}.`,
      sources: [{ url: 'https://wiki.example.com/ops/result', title: 'A result', snippet: 'Nothing in particular.' }],
      truncated: false,
    }),
  });
  ctx.web.registerFetchProvider({
    id: 'fake-web',
    available: () => true,
    fetch: async (request) => ({ url: request.url, statusCode: 200, body: { kind: 'text', content: 'A page of the team wiki.' }, truncated: false }),
  });
}
