/**
 * The tab's CSS, injected inside the bundle's factory (the host tags and removes it on unload).
 *
 * It is DSH Web's own look, read from the rc.8 client: every colour, the font stacks and the type
 * scale are the theme's variables (`--dsw-alias-*`, `--dsw-font-*`, `--ds-font-family-code`, set on
 * body by dsh-client-ui-theme for light and `body[data-ds-dark-theme]` for dark), so both themes
 * apply and a theme change in DSH changes the tab with it. The shapes are those of DSH's own
 * controls: the small outline button (28 px high, radius 14, dsh-client-ui-primitives' Button `sm`),
 * the primary button (button-primary-fill), the input (32 px, radius 8, border-l2, focus brand-primary,
 * as in Settings → Models), the select (appearance none, DSH's chevron), the pill with an
 * active state (Pill) for toggles, cards of radius 12 with border-l2, badges of radius 999 on
 * bg-module-platform, the dashed empty box of the model list, the details chevron of Settings, and
 * the code block of the Trajectory view. The fallbacks after each variable are DSH's light values:
 * they only matter outside the host.
 *
 * The root draws no background of its own: the conversation view's surface (bg-base or layer-1, by theme)
 * shows through, as under Chat, so the tab has no panel edge of another shade.
 *
 * The bottom padding is the chat composer's height (`--dsh-composer-height`, which the conversation
 * view keeps up to date, as the Trajectory view uses it) plus a margin: DSH Web floats the composer
 * over the conversation views, the tab included, and without it the last cards sit under it.
 */
const CHEVRON = `url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='12' height='12' viewBox='0 0 12 12' fill='none'%3E%3Cpath d='M3 4.5L6 7.5L9 4.5' stroke='%2381858C' stroke-width='1.5' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E")`;

const FONT = 'var(--dsw-font-family,-apple-system,BlinkMacSystemFont,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei","Helvetica Neue",Helvetica,Arial,sans-serif)';
const MONO = 'var(--ds-font-family-code,"SF Mono","JetBrains Mono","Fira Code",Consolas,"Liberation Mono",Menlo,Courier,monospace)';

export const CSS = `
.somni-root{height:100%;overflow:auto;box-sizing:border-box;padding:16px 24px calc(var(--dsh-composer-height,152px) + 32px);font-family:${FONT};font-size:14px;line-height:22px;color:var(--dsw-alias-label-primary,#0f1115);background:transparent;--dsh-scrollbar-thumb:var(--dsw-alias-scrollbar-bg-l2,#e5e5e5);--dsh-scrollbar-thumb-hover:var(--dsw-alias-scrollbar-hover-l2,#d4d4d4)}
.somni-root *,.somni-root *::before,.somni-root *::after{box-sizing:border-box}
.somni-page{max-width:960px;margin:0 auto}
.somni-root :is(button,input,select,textarea){font-family:inherit;appearance:none;-webkit-appearance:none;margin:0}
.somni-root :is(button,input,select,textarea,summary,a):focus-visible{outline:none;box-shadow:0 0 0 2px var(--dsw-alias-border-l3,#0000001f)}

.somni-nav{display:flex;gap:4px;align-items:center;flex-wrap:wrap;margin:0 0 16px;scroll-margin-top:16px}
.somni-nav button{height:28px;padding:0 12px;border:none;border-radius:14px;background:transparent;color:var(--dsw-alias-label-secondary,#61666b);font-size:13px;line-height:20px;cursor:pointer}
.somni-nav button:hover{background:var(--dsw-alias-interactive-bg-hover,#2631480f);color:var(--dsw-alias-label-primary,#0f1115)}
.somni-nav button[aria-selected=true]{color:var(--dsw-alias-label-primary,#0f1115);background:var(--dsw-alias-button-ghost-active-fill,#ebeef2);box-shadow:inset 0 0 0 1px var(--dsw-alias-button-ghost-active-border,#979da6)}

.somni-btn{display:inline-flex;align-items:center;justify-content:center;gap:4px;height:28px;padding:0 12px;border:1px solid var(--dsw-alias-border-l2,#0000001a);border-radius:14px;background:transparent;color:var(--dsw-alias-label-primary,#0f1115);font-size:12px;line-height:18px;white-space:nowrap;cursor:pointer}
.somni-btn:hover:not(:disabled){background:var(--dsw-alias-interactive-bg-hover,#2631480f)}
.somni-btn:active:not(:disabled){background:var(--dsw-alias-interactive-bg-active,#2631481a)}
.somni-btn:disabled{opacity:.4;cursor:not-allowed}
.somni-btn-primary{border-color:transparent;background:var(--dsw-alias-button-primary-fill,#0f1115);color:var(--dsw-alias-label-primary-foreground,#fff)}
.somni-btn-primary:hover:not(:disabled){background:var(--dsw-alias-button-primary-hover,#43454a)}
.somni-btn-ghost{border-color:transparent;color:var(--dsw-alias-label-secondary,#61666b)}
.somni-btn-danger{border-color:transparent;color:var(--dsw-alias-state-error-primary,#ec1313)}
.somni-btn-danger:hover:not(:disabled){background:var(--dsw-alias-interactive-bg-hover-danger,#ec13130d)}

.somni-pill{display:inline-flex;align-items:center;gap:4px;height:24px;padding:0 10px;border:none;border-radius:12px;background:var(--dsw-alias-bg-module-platform,#f5f6f7);color:var(--dsw-alias-label-secondary,#61666b);font-size:12px;line-height:18px;white-space:nowrap;cursor:pointer}
.somni-pill:hover{background:var(--dsw-alias-interactive-bg-hover,#2631480f)}
.somni-pill[aria-pressed=true]{color:var(--dsw-alias-label-primary,#0f1115);background:var(--dsw-alias-button-ghost-active-fill,#ebeef2);box-shadow:inset 0 0 0 1px var(--dsw-alias-button-ghost-active-border,#979da6)}
.somni-pills{display:inline-flex;gap:4px;flex-wrap:wrap;align-items:center}
.somni-cap{text-transform:capitalize}

.somni-input,.somni-select,.somni-textarea{height:32px;min-width:0;padding:0 10px;border:1px solid var(--dsw-alias-border-l2,#0000001a);border-radius:8px;background:var(--dsw-alias-bg-layer-1,#fff);color:var(--dsw-alias-label-primary,#0f1115);font-size:13px;line-height:20px;outline:none}
.somni-input:focus,.somni-select:focus,.somni-textarea:focus{border-color:var(--dsw-alias-brand-primary,#0f1115)}
.somni-input::placeholder,.somni-textarea::placeholder{color:var(--dsw-alias-label-caption,#adb2b8)}
.somni-input[aria-invalid=true]{border-color:var(--dsw-alias-state-error-primary,#ec1313)}
.somni-select{padding-right:30px;background-image:${CHEVRON};background-position:right 10px center;background-repeat:no-repeat;background-size:12px 12px;cursor:pointer}
.somni-textarea{display:block;width:100%;height:auto;min-height:260px;padding:10px 12px;resize:vertical;font:13px/22px ${MONO}}
.somni-search{display:inline-flex;align-items:center;gap:6px;height:32px;padding:0 10px;border:1px solid var(--dsw-alias-border-l2,#0000001a);border-radius:8px;background:var(--dsw-alias-bg-layer-1,#fff);color:var(--dsw-alias-label-tertiary,#81858c)}
.somni-search:focus-within{border-color:var(--dsw-alias-brand-primary,#0f1115)}
.somni-search input{flex:1;min-width:0;height:30px;padding:0;border:none;background:transparent;color:var(--dsw-alias-label-primary,#0f1115);font-size:13px;line-height:20px;outline:none}
.somni-search input:focus-visible{box-shadow:none}
.somni-search input::placeholder{color:var(--dsw-alias-label-caption,#adb2b8)}

.somni-filters{display:flex;flex-direction:column;gap:10px;margin:0 0 16px}
.somni-filter-row{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.somni-label{color:var(--dsw-alias-label-tertiary,#81858c);font-size:12px;line-height:18px;white-space:nowrap}
.somni-form{display:flex;flex-direction:column;gap:12px;margin:0 0 16px;padding:14px 16px;border-radius:12px;background:var(--dsw-alias-bg-module-platform,#f5f6f7)}
.somni-form .somni-input,.somni-form .somni-select,.somni-form .somni-textarea{background-color:var(--dsw-alias-bg-layer-1,#fff)}

.somni-row{display:flex;gap:8px;align-items:center;flex-wrap:wrap;min-width:0}
.somni-bar{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:0 0 12px}
.somni-spacer{flex:1}
.somni-muted{color:var(--dsw-alias-label-tertiary,#81858c)}
.somni-secondary{color:var(--dsw-alias-label-secondary,#61666b)}
.somni-small{font-size:12px;line-height:18px}
.somni-error{color:var(--dsw-alias-state-error-primary,#ec1313);font-size:13px;line-height:20px;margin:8px 0}
.somni-ok{color:var(--dsw-alias-state-success-primary,#22c55e);font-size:13px;line-height:20px;margin:8px 0}
.somni-bar .somni-ok,.somni-bar .somni-error{margin:0}
.somni-root li:is(.somni-ok,.somni-error){margin:2px 0;font-size:12px;line-height:18px}
.somni-note li+li{margin-top:2px}
.somni-h{margin:24px 0 8px;font-size:14px;font-weight:500;line-height:22px;color:var(--dsw-alias-label-primary,#0f1115)}
.somni-h:first-child{margin-top:0}
.somni-title{font-size:14px;font-weight:500;line-height:22px;color:var(--dsw-alias-label-primary,#0f1115)}
.somni-entry-title{font-size:16px;font-weight:500;line-height:24px}

.somni-card{margin:0 0 8px;padding:12px 14px;border:1px solid var(--dsw-alias-border-l2,#0000001a);border-radius:12px;background:transparent}
.somni-card>*+*{margin-top:4px}
.somni-list-head{margin:0 0 8px;color:var(--dsw-alias-label-tertiary,#81858c);font-size:12px;line-height:18px}
.somni-empty{margin:8px 0;padding:24px 16px;border:1px dashed var(--dsw-alias-border-l3,#0000001f);border-radius:12px;text-align:center;color:var(--dsw-alias-label-tertiary,#81858c);font-size:13px;line-height:20px}
.somni-empty-title{color:var(--dsw-alias-label-secondary,#61666b);font-size:14px;font-weight:500;line-height:22px}
.somni-empty>*+*{margin-top:4px}
.somni-note{margin:8px 0;padding:8px 12px;border-radius:8px;background:var(--dsw-alias-bg-module-platform,#f5f6f7);color:var(--dsw-alias-label-secondary,#61666b);font-size:13px;line-height:20px}

.somni-badge{display:inline-flex;align-items:center;height:20px;padding:0 8px;border-radius:999px;background:var(--dsw-alias-bg-module-platform,#f5f6f7);color:var(--dsw-alias-label-secondary,#61666b);font-size:11px;font-weight:500;line-height:17px;white-space:nowrap}
.somni-badge-hint,.somni-badge-team{color:var(--dsw-alias-state-business-primary,#4176e6);background:var(--dsw-alias-state-business-tertiary,#e4edfd)}
.somni-badge-recall,.somni-badge-ok{color:color-mix(in srgb,var(--dsw-alias-state-success-primary,#22c55e) 68%,var(--dsw-alias-label-secondary,#61666b));background:var(--dsw-alias-state-success-tertiary,#e6faed)}
.somni-badge-intention,.somni-badge-warn{color:var(--dsw-alias-state-warn-label,#dd8629);background:var(--dsw-alias-state-warn-tertiary,#fef5e7)}
.somni-badge-compaction{color:var(--dsw-alias-label-secondary,#61666b);background:var(--dsw-alias-bg-module-platform,#f5f6f7)}

.somni-link{display:inline;padding:0;border:none;background:none;color:var(--dsw-alias-state-business-primary,#4176e6);font:inherit;text-align:left;text-decoration:none;cursor:pointer;overflow-wrap:anywhere}
.somni-link:hover:not(:disabled){text-decoration:underline;text-underline-offset:3px}
.somni-link:disabled{color:inherit;cursor:default}
.somni-link.somni-title{color:var(--dsw-alias-label-primary,#0f1115)}
.somni-link.somni-title:hover{color:var(--dsw-alias-state-business-primary,#4176e6)}

.somni-pre{margin:4px 0;white-space:pre-wrap;word-break:break-word;font:12px/18px ${MONO};color:var(--dsw-alias-label-secondary,#61666b)}
.somni-code{margin:8px 0;padding:12px 14px;border-radius:12px;background:var(--dsw-alias-markdown-code-block,#f9fafb);color:var(--dsw-alias-label-primary,#0f1115);font:12px/20px ${MONO};white-space:pre-wrap;word-break:break-word;overflow-x:auto}
.somni-diff-add{color:var(--dsw-alias-state-success-primary,#22c55e)}
.somni-diff-del{color:var(--dsw-alias-state-error-primary,#ec1313)}
.somni-diff-meta{color:var(--dsw-alias-label-tertiary,#81858c)}

.somni-md{font:var(--dsw-font-markdown-small,14px/24px ${FONT});color:var(--dsw-alias-label-primary,#0f1115);overflow-wrap:anywhere}
.somni-md>:first-child{margin-top:0}
.somni-md>:last-child{margin-bottom:0}
.somni-md p{margin:8px 0}
.somni-md h1{margin:16px 0 8px;font-size:16px;font-weight:600;line-height:24px}
.somni-md h2{margin:16px 0 8px;font-size:15px;font-weight:600;line-height:24px}
.somni-md :is(h3,h4,h5,h6){margin:12px 0 6px;font-size:14px;font-weight:600;line-height:22px}
.somni-md :is(ul,ol){margin:8px 0;padding-left:18px}
.somni-md li+li{margin-top:4px}
.somni-md li::marker{color:var(--dsw-alias-label-secondary,#61666b)}
.somni-md a{color:var(--dsw-alias-state-business-primary,#4176e6);text-decoration:none}
.somni-md a:hover{text-decoration:underline}
.somni-md :not(pre)>code{padding:0 5px;border-radius:6px;background:var(--dsw-alias-markdown-inline-code,#ebeef2);font-family:${MONO};font-size:.875em}
.somni-md pre{margin:8px 0;padding:12px 14px;border-radius:12px;background:var(--dsw-alias-markdown-code-block,#f9fafb);font:12px/20px ${MONO};overflow-x:auto}
.somni-md blockquote{margin:8px 0;padding-left:14px;border-left:2px solid var(--dsw-alias-label-caption,#adb2b8);color:var(--dsw-alias-label-secondary,#61666b)}
.somni-md hr{height:1px;margin:16px 0;border:none;background:var(--dsw-alias-border-l2,#0000001a)}

.somni-root details{margin:6px 0 0}
.somni-root summary{display:inline-flex;align-items:center;gap:6px;width:fit-content;margin-left:-4px;padding:2px 4px;border-radius:6px;list-style:none;color:var(--dsw-alias-label-secondary,#61666b);font-size:12px;font-weight:500;line-height:18px;cursor:pointer;user-select:none}
.somni-root summary::-webkit-details-marker{display:none}
.somni-root summary::before{content:"";width:5px;height:5px;border-right:1.5px solid;border-bottom:1.5px solid;transform:rotate(-45deg) translate(-1px,-1px);transition:transform .12s}
.somni-root details[open]>summary::before{transform:rotate(45deg) translate(-1px,-1px)}
.somni-root summary:hover{color:var(--dsw-alias-label-primary,#0f1115)}

.somni-fm{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:6px 16px;margin:8px 0;font-size:12px;line-height:18px}
.somni-fm dt{color:var(--dsw-alias-label-tertiary,#81858c)}
.somni-fm dd{margin:0;color:var(--dsw-alias-label-secondary,#61666b);overflow-wrap:anywhere}
.somni-side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.somni-spark{color:var(--dsw-alias-state-business-primary,#4176e6);vertical-align:middle}

.somni-progress{display:flex;align-items:center;gap:8px;margin:0 0 12px;padding:6px 12px;border-radius:8px;background:var(--dsw-alias-bg-module-platform,#f5f6f7);color:var(--dsw-alias-label-secondary,#61666b);font-size:12px;line-height:18px}
.somni-spinner{flex:none;width:10px;height:10px;border:1.5px solid var(--dsw-alias-border-l2,#0000001a);border-top-color:var(--dsw-alias-state-business-primary,#4176e6);border-radius:50%;animation:somni-spin .7s linear infinite}
.somni-meter{flex:1;max-width:200px;height:4px;border-radius:2px;background:var(--dsw-alias-border-l2,#0000001a);overflow:hidden}
.somni-meter>span{display:block;height:100%;background:var(--dsw-alias-state-business-primary,#4176e6)}
@keyframes somni-spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.somni-spinner{animation:none}}
`;

/** Adds the stylesheet once; the host removes what the factory created when the plugin unloads. */
export function installStyles(): void {
  if (typeof document === 'undefined' || document.querySelector('style[data-plugin-css="dsh-somni"]')) return;
  const el = document.createElement('style');
  el.setAttribute('data-plugin-css', 'dsh-somni');
  el.textContent = CSS;
  document.head.appendChild(el);
}
