/**
 * The tab's CSS, injected inside the bundle's factory (the host tags and removes it on unload).
 * Colours come from the web client's theme variables (the ones ui-trajectory uses), so light and
 * dark themes both apply; the fallbacks only matter outside the host. The bottom padding is the
 * chat composer's height and margin: DSH Web floats it over the conversation views, the tab included,
 * and without it the last cards of a list sit under it, unreachable.
 */
export const CSS = `
.somni-root{height:100%;overflow:auto;box-sizing:border-box;padding:12px 16px 160px;font-family:var(--dsw-font-family,system-ui,sans-serif);font-size:13px;color:var(--dsw-alias-label-primary,#1f2328);background:var(--dsw-alias-bg-layer-1,transparent)}
.somni-nav{display:flex;gap:4px;margin-bottom:12px;border-bottom:1px solid var(--dsw-alias-border-l2,#d0d7de);padding-bottom:6px;align-items:center;flex-wrap:wrap}
.somni-nav button,.somni-btn{font:inherit;cursor:pointer;border:1px solid var(--dsw-alias-border-l2,#d0d7de);background:var(--dsw-alias-bg-layer-2,#f6f8fa);color:var(--dsw-alias-label-primary,#1f2328);border-radius:6px;padding:3px 10px}
.somni-nav button:hover,.somni-btn:hover{background:var(--dsw-alias-interactive-bg-hover,#eaeef2)}
.somni-nav button[aria-selected=true]{border-color:var(--dsw-alias-state-business-primary,#0969da);color:var(--dsw-alias-state-business-primary,#0969da)}
.somni-btn[disabled]{opacity:.5;cursor:default}
.somni-btn-danger{color:var(--dsw-alias-state-error-primary,#cf222e)}
.somni-spacer{flex:1}
.somni-muted{color:var(--dsw-alias-label-tertiary,#6e7781)}
.somni-small{font-size:12px}
.somni-error{color:var(--dsw-alias-state-error-primary,#cf222e);margin:6px 0}
.somni-ok{color:var(--dsw-alias-state-success-primary,#1a7f37);margin:6px 0}
.somni-card{border:1px solid var(--dsw-alias-border-l1,#d8dee4);border-radius:8px;padding:8px 10px;margin:0 0 8px;background:var(--dsw-alias-bg-layer-2,transparent)}
.somni-row{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.somni-badge{font-size:11px;border-radius:10px;padding:0 7px;border:1px solid var(--dsw-alias-border-l2,#d0d7de);color:var(--dsw-alias-label-secondary,#57606a)}
.somni-badge-hint{color:var(--dsw-alias-state-business-primary,#0969da);border-color:currentColor}
.somni-badge-recall{color:var(--dsw-alias-state-success-primary,#1a7f37);border-color:currentColor}
.somni-badge-compaction{color:var(--dsw-alias-state-business-primary,#0969da);border-color:currentColor}
.somni-badge-intention{color:var(--dsw-alias-state-warn-label,#9a6700);border-color:currentColor}
.somni-badge-team{color:var(--dsw-alias-state-business-primary,#0969da);border-color:currentColor}
.somni-note{border-left:3px solid var(--dsw-alias-border-l2,#d0d7de);padding:4px 10px;margin:8px 0}
.somni-link{background:none;border:none;padding:0;font:inherit;cursor:pointer;color:var(--dsw-alias-state-business-primary,#0969da);text-decoration:underline}
.somni-pre{white-space:pre-wrap;word-break:break-word;font-family:var(--ds-font-family-code,ui-monospace,monospace);font-size:12px;margin:4px 0;color:var(--dsw-alias-label-secondary,#57606a)}
.somni-filters{display:flex;gap:6px;flex-wrap:wrap;margin-bottom:10px;align-items:center}
.somni-filters input,.somni-filters select,.somni-textarea{font:inherit;color:inherit;background:var(--dsw-alias-bg-layer-1,#fff);border:1px solid var(--dsw-alias-border-l2,#d0d7de);border-radius:6px;padding:3px 6px}
.somni-textarea{width:100%;box-sizing:border-box;min-height:260px;font-family:var(--ds-font-family-code,ui-monospace,monospace);font-size:12px}
.somni-md{line-height:1.5}
.somni-md h1,.somni-md h2,.somni-md h3,.somni-md h4{font-size:13px;font-weight:600;margin:8px 0 4px}
.somni-md pre,.somni-md code{font-family:var(--ds-font-family-code,ui-monospace,monospace);font-size:12px}
.somni-md a{color:var(--dsw-alias-state-business-primary,#0969da)}
.somni-fm{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:12px;margin:6px 0 10px}
.somni-fm dt{color:var(--dsw-alias-label-tertiary,#6e7781)}
.somni-fm dd{margin:0;word-break:break-word}
.somni-side{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.somni-diff-add{color:var(--dsw-alias-state-success-primary,#1a7f37)}
.somni-diff-del{color:var(--dsw-alias-state-error-primary,#cf222e)}
.somni-spark{color:var(--dsw-alias-state-business-primary,#0969da);vertical-align:middle}
.somni-table{border-collapse:collapse;font-size:12px}
.somni-table td{padding:2px 12px 2px 0}
`;

/** Adds the stylesheet once; the host removes what the factory created when the plugin unloads. */
export function installStyles(): void {
  if (typeof document === 'undefined' || document.querySelector('style[data-plugin-css="dsh-somni"]')) return;
  const el = document.createElement('style');
  el.setAttribute('data-plugin-css', 'dsh-somni');
  el.textContent = CSS;
  document.head.appendChild(el);
}
