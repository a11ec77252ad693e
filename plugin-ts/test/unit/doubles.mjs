// @ts-check
// Partial test doubles for host objects (`Agent`, `SessionHeader`, `ToolRunContext`, `UserMessage`, the
// cordis `Context`, …). A unit test fills in only what the code under test reads; `partial` checks
// the fields it is given against the real `@deepseek-ai/*` type and hands the object on as that type.

/**
 * The fields a double may give: every key optional, nested objects likewise; branded strings
 * (`MessageId`, `SessionId`) accept plain strings, other literal types stay as they are.
 * @template T
 * @typedef {T extends (...args: never[]) => unknown ? T
 *   : T extends string ? (T extends object ? string : T)
 *   : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> }
 *   : T} DeepPartial
 */

/**
 * A partial object standing in for a `T`. `T` comes from where the result goes (an annotated
 * variable, parameter or return type), never from the argument, so the argument is checked against
 * `DeepPartial<T>`. The one cast of the test suite: a double is a `T` only as far as the code under
 * test reads it, which is what the test is about. (`T extends unknown ? … : never` spreads a union
 * `T` — a `StreamChunk`, a `PreStepDecision` — so the fields are checked against the member their
 * discriminant names; `NoInfer` keeps the argument from choosing `T`.)
 * @template T
 * @param {T extends unknown ? DeepPartial<NoInfer<T>> : never} fields
 * @returns {T}
 */
export function partial(fields) {
  return loose(fields);
}

/**
 * {@link partial} for a type too rich to match member by member (the cordis `Context`: overloaded
 * `on` and `effect`, a logger service class): the fields are the double's own, unchecked against
 * `T`, so the test that uses it is the check.
 * @template T
 * @param {unknown} fields
 * @returns {T}
 */
export function loose(fields) {
  return /** @type {T} */ (/** @type {unknown} */ (fields));
}

/**
 * An agent whose session is `id`, a subagent's when `origin` is 'subagent'.
 * @param {string} id
 * @param {'subagent'} [origin]
 * @returns {import('@deepseek-ai/dsh-agent').Agent}
 */
export function agentDouble(id, origin) {
  return partial({ id, session: { id, header: origin ? { origin } : {} } });
}

/**
 * A sidecar `call` limited to the methods `S` (a feature's `CallOf<S>`), answered by `answer`. The
 * answer sees any of the methods with its params and may give any of their results: which result
 * goes with which method is the test's to get right, as the real sidecar's is.
 * @template {import('../../lib/methods.js').Method} S
 * @param {(method: S, params: import('../../lib/methods.js').ParamsOf<S>, timeoutMs: number) => Promise<import('../../lib/methods.js').ResultOf<S>>} answer
 * @returns {import('../../lib/methods.js').CallOf<S>}
 */
export function callDouble(answer) {
  return loose(answer);
}

/**
 * {@link callDouble} for a call whose timeout is the caller's (capture's `CaptureCall`).
 * @template {import('../../lib/methods.js').Method} S
 * @param {(method: S, params: import('../../lib/methods.js').ParamsOf<S>) => Promise<import('../../lib/methods.js').ResultOf<S>>} answer
 * @returns {<M extends S>(method: M, params: import('../../lib/methods.js').ParamsOf<M>) => Promise<import('../../lib/methods.js').ResultOf<M>>}
 */
export function untimedCallDouble(answer) {
  return loose(answer);
}
