/**
 * Memory files are user-editable, so their Markdown is untrusted: raw HTML is shown as text, links
 * keep only http(s)/mailto targets, and images become links (nothing is fetched by rendering).
 */
import { Marked, type Tokens } from 'marked';

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const safeHref = (href: string): string | null => (/^(https?:|mailto:)/i.test(href.trim()) ? href.trim() : null);

const md = new Marked({ gfm: true, breaks: false, async: false });
md.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escape(token.text);
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const href = safeHref(token.href);
      return href ? `<a href="${escape(href)}" target="_blank" rel="noopener noreferrer nofollow">${text}</a>` : text;
    },
    image(token: Tokens.Image): string {
      const href = safeHref(token.href);
      const label = escape(token.text || token.href);
      return href ? `<a href="${escape(href)}" target="_blank" rel="noopener noreferrer nofollow">${label}</a>` : label;
    },
  },
});

/** Sanitised HTML for a memory body. */
export function renderMarkdown(src: string): string {
  const out = md.parse(src);
  return typeof out === 'string' ? out : '';
}
