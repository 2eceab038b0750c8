/**
 * What `activate()` returns to other extensions: the versioned public API
 * (api/context-pipeline.d.ts). Version 1 registers context engines in this extension host's
 * registry; each registration is logged, and a throw (a taken or malformed id) reaches the
 * caller as it is.
 */
import type * as vscode from 'vscode';
import type { ContextPipelineApi } from '../../api/context-pipeline';
import type { EngineRegistry } from '../core/engine/engineRegistry';

/** The API over `engines` (see the module comment). */
export function contextPipelineApi(engines: EngineRegistry, log: vscode.LogOutputChannel): ContextPipelineApi {
  return Object.freeze({
    v1: Object.freeze({
      registerContextEngine: (id: string, factory: Parameters<EngineRegistry['register']>[1]) => {
        const registration = engines.register(id, factory);
        log.info(`Context engine registered: ${id}`);
        return {
          dispose: () => {
            registration.dispose();
            log.info(`Context engine unregistered: ${id}`);
          },
        };
      },
      contextEngines: () => engines.ids(),
    }),
  });
}
