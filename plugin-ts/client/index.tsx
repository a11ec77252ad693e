/**
 * The browser half of dsh-somni: a "Memory" tab in each session of the DSH web client.
 * Loaded by the host's client-module loader (see scripts/build-client.mjs for the wrapper). A broken
 * client entry blanks the whole web UI, so `apply` never throws: a failure is logged and the tab is
 * simply absent.
 */
import type { ComponentType } from 'react';
import { memoryApi, type ClientRpc } from './api.js';
import { en, NS, zh, type T } from './locale.js';
import { MemoryView } from './MemoryView.js';
import { installStyles } from './styles.js';

/** The web client services the tab uses; all exist in the web shell (checked in rc.8). */
export const inject = ['slots', 'locale', 'connection'];

type Disposer = () => void;
/** The slice of the client root context the tab touches (the slot types are not installed in rc.8). */
interface ClientContext {
  effect(fn: () => Disposer | (() => Promise<void>), label?: string): void;
  locale: {
    register(ns: string, dicts: { zh: Record<string, string>; en: Record<string, string> }): Disposer;
    bind(ns: string): T;
  };
  slots: {
    inject(name: string, fn: () => unknown): unknown;
    register(options: SlotOptions, component: ComponentType<never>): unknown;
  };
  connection: { rpc: ClientRpc };
}
interface SlotOptions {
  name: string;
  id: string;
  order: number;
  locale: string;
  label: () => string;
  inject: (sessionId: string) => Record<string, unknown>;
}

export function apply(ctx: ClientContext): void {
  try {
    installStyles();
    ctx.effect(() => ctx.locale.register(NS, { zh, en }), 'dsh-somni: dictionaries');
    const t = ctx.locale.bind(NS);
    const api = memoryApi(ctx.connection.rpc);
    ctx.slots.inject('conversation.view', () =>
      ctx.slots.register(
        {
          name: 'conversation.view',
          id: 'memory',
          // Chat is 0 and Trajectory 10: Memory sits right of both.
          order: 20,
          locale: NS,
          label: () => t('tab'),
          inject: () => ({ api }),
        },
        MemoryView as ComponentType<never>,
      ),
    );
  } catch (err) {
    console.error('dsh-somni: the Memory tab could not be registered', err);
  }
}
