/**
 * Choose Model…: a quick pick of the models the key can use (the Models API's list, or the
 * maintained table while it loads or when it cannot be reached), each with its window and
 * prices and what switching would mean for the open conversation (core/models/modelChoices).
 * Typing an id not listed offers it as is (a proxy's alias, a dated id). The choice goes to
 * `contextPipeline.model` where it takes effect: the workspace's settings when they set the
 * model, else the user's. The chat and budget follow the setting (settings.ts).
 */
import * as vscode from 'vscode';
import { settingTarget } from './settingTarget';
import type { CacheTtl } from '../core/conversation/conversationModel';
import { isModelId, modelChoices, type ListedModel, type ModelChoice } from '../core/models/modelChoices';
import { DEFAULT_MODEL } from '../core/pipeline/config';
import { toast } from './toasts';

/** The command's id. */
export const CHOOSE_MODEL_COMMAND = 'contextPipeline.chooseModel';

/** What the picker reads. */
export interface ChooseModelDeps {
  /** The Models API's list; undefined when it could not be reached (no key, offline, an error). */
  readonly listModels: () => Promise<readonly ListedModel[] | undefined>;
  /** The open conversation's prompt tokens (0 when none is open). */
  readonly promptTokens: () => number;
  readonly log: vscode.LogOutputChannel;
}

interface ModelItem extends vscode.QuickPickItem {
  readonly id: string;
}

function itemOf(c: ModelChoice): ModelItem {
  return {
    id: c.id,
    label: c.current ? `$(check) ${c.id}` : c.id,
    description: c.description,
    ...(c.detail ? { detail: c.detail } : {}),
  };
}

/** Registers Choose Model…. */
export function registerChooseModel(deps: ChooseModelDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CHOOSE_MODEL_COMMAND, () =>
    chooseModel(deps).catch((err: unknown) => {
      deps.log.error('Choose Model failed.', { error: String(err) });
      toast.error(`Context Pipeline: could not change the model — ${String(err)}`);
    }),
  );
}

async function chooseModel(deps: ChooseModelDeps): Promise<void> {
  const config = vscode.workspace.getConfiguration('contextPipeline');
  const current = (config.get<string>('model') ?? '').trim() || DEFAULT_MODEL;
  const window = config.get<number>('contextWindow') ?? 0;
  const base = {
    current,
    promptTokens: deps.promptTokens(),
    cacheTtl: (config.get<string>('cacheTtl') === '1h' ? '1h' : '5m') as CacheTtl,
    ...(window > 0 ? { windowSetting: Math.floor(window) } : {}),
  };
  let choices = modelChoices(base);
  const pick = vscode.window.createQuickPick<ModelItem>();
  pick.title = 'Choose Model';
  pick.placeholder = 'The model that answers in the chat — type to filter, or type another model id';
  pick.matchOnDescription = true;
  /** Fills the list; `focusCurrent`: the current model is the active item (not while the user types). */
  const render = (focusCurrent: boolean): void => {
    const typed = pick.value.trim();
    const custom: ModelItem[] =
      typed && isModelId(typed) && !choices.some((c) => c.id === typed)
        ? [{ id: typed, label: typed, description: 'use this model id', alwaysShow: true }]
        : [];
    pick.items = [...custom, ...choices.map(itemOf)];
    const active = focusCurrent ? pick.items.find((i) => i.id === current) : undefined;
    if (active) pick.activeItems = [active];
  };
  render(true);
  pick.busy = true;
  pick.onDidChangeValue(() => render(false));
  const listed = (models: readonly ListedModel[] | undefined): void => {
    pick.busy = false;
    if (models && models.length > 0) {
      choices = modelChoices({ ...base, listed: models });
      render(pick.value.trim() === '');
    } else pick.title = 'Choose Model — the Models API was not reached: the models the extension knows';
  };
  deps.listModels().then(listed, (err: unknown) => {
    deps.log.error('Choose Model: listing the models failed.', { error: String(err) });
    listed(undefined);
  });
  const chosen = await new Promise<string | undefined>((resolve) => {
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0]?.id);
      pick.hide();
    });
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  if (chosen === undefined || chosen === current) return;
  const { target, scope } = settingTarget(config, 'model');
  await config.update('model', chosen, target);
  deps.log.info(`Model set to ${chosen} in the ${scope} settings.`);
}
