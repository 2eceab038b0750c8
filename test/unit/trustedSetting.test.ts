import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ignoredSettingWarning,
  isBoolean,
  isString,
  userLevelValue,
  workspaceCostNotice,
  workspaceCostSettings,
  type InspectedSetting,
} from '../../src/host/trustedSetting';
import { MAX_INSTRUCTION_TOKENS } from '../../src/core/projectContext/instructions';

const root = join(__dirname, '..', '..');

describe('user-only settings (baseUrl, enableRunCommand)', () => {
  it('are declared with application scope, so VS Code itself never takes them from a workspace', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      contributes: {
        configuration:
          | { properties: Record<string, { scope?: string }> }
          | Array<{ properties: Record<string, { scope?: string }> }>;
      };
    };
    const sections = Array.isArray(pkg.contributes.configuration)
      ? pkg.contributes.configuration
      : [pkg.contributes.configuration];
    const props = Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, { scope?: string }>;
    for (const key of ['contextPipeline.baseUrl', 'contextPipeline.enableRunCommand'])
      assert.equal(props[key]?.scope, 'application', key);
  });

  it('are read only from the user settings (globalValue) or the default, never from the workspace', () => {
    const attack = {
      defaultValue: '',
      workspaceValue: 'https://attacker.example',
      workspaceFolderValue: 'http://localhost.attacker.example',
    };
    assert.deepEqual(userLevelValue(attack, isString, ''), { value: '', ignored: ['workspace', 'workspace folder'] });
    assert.deepEqual(userLevelValue({ ...attack, globalValue: 'http://127.0.0.1:8787' }, isString, ''), {
      value: 'http://127.0.0.1:8787',
      ignored: ['workspace', 'workspace folder'],
    });
    assert.deepEqual(userLevelValue({ defaultValue: false, workspaceValue: true }, isBoolean, false), {
      value: false,
      ignored: ['workspace'],
    });
    assert.deepEqual(userLevelValue({ defaultValue: false, globalValue: true }, isBoolean, false), {
      value: true,
      ignored: [],
    });
  });

  it('notice a value set in any workspace folder (inspected with the folder as scope), or language-specific', () => {
    assert.deepEqual(
      userLevelValue({ defaultValue: false }, isBoolean, false, [undefined, { workspaceFolderValue: true }]),
      { value: false, ignored: ['workspace folder'] },
    );
    assert.deepEqual(
      userLevelValue({ defaultValue: '', workspaceLanguageValue: 'https://x.example' }, isString, '').ignored,
      ['workspace'],
    );
  });

  it('fall back to the default when the user value has the wrong type, and to the fallback without either', () => {
    assert.equal(userLevelValue({ defaultValue: false, globalValue: 'yes' }, isBoolean, false).value, false);
    assert.equal(userLevelValue(undefined, isString, '').value, '');
  });

  it('explain in the warning which setting was ignored, where, and why', () => {
    const w = ignoredSettingWarning('contextPipeline', 'baseUrl', ['workspace']);
    assert.match(w, /ignored `contextPipeline\.baseUrl` in this workspace settings/);
    assert.match(w, /API key/);
    assert.match(w, /only from your user settings/);
    assert.match(
      ignoredSettingWarning('contextPipeline', 'enableRunCommand', ['workspace folder']),
      /folder settings: whether Claude may run shell commands/,
    );
  });
});

describe('cost settings a workspace sets: honoured, and said once', () => {
  it('names a workspace-set instruction budget, whose maximum is the schema’s (issue 34 #7)', () => {
    const set = workspaceCostSettings(
      new Map<string, InspectedSetting>([['instructions.maxTokens', { workspaceValue: 820_000 }]]),
    );
    assert.deepEqual(set, [{ key: 'instructions.maxTokens', value: 820_000 }]);
    const schema = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        contributes: { configuration: { properties: Record<string, { maximum?: number }> } };
      }
    ).contributes.configuration.properties['contextPipeline.instructions.maxTokens'];
    assert.equal(schema?.maximum, MAX_INSTRUCTION_TOKENS);
  });

  it('lists the cost settings the workspace or a folder sets to another value than the user, folder first', () => {
    const set = workspaceCostSettings(
      new Map<string, InspectedSetting>([
        ['model', { globalValue: 'claude-sonnet-4-6', workspaceValue: 'claude-opus-4-6' }],
        ['thinking', { workspaceValue: 'high', workspaceFolderValue: 'max' }],
        ['maxOutputTokens', { globalValue: 8000, workspaceValue: 8000 }],
        ['cacheTtl', { globalValue: '1h' }],
        ['softThreshold', { workspaceValue: 0.5 }],
      ]),
    );
    assert.deepEqual(set, [
      { key: 'model', value: 'claude-opus-4-6' },
      { key: 'thinking', value: 'max' },
    ]);
    const notice = workspaceCostNotice('contextPipeline', set) ?? '';
    assert.match(
      notice,
      /^This workspace's settings choose contextPipeline\.model = "claude-opus-4-6", contextPipeline\.thinking = "max"\./,
    );
    assert.match(notice, /override your user settings/);
    assert.equal(workspaceCostNotice('contextPipeline', []), undefined);
    assert.match(workspaceCostNotice('s', [{ key: 'model', value: 'x'.repeat(100) }]) ?? '', /x{58}…/);
  });
});
