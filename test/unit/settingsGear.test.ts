import { strict as assert } from 'node:assert';
import { SETTINGS_QUERY } from '../../src/host/settingsQuery';

interface Manifest {
  name: string;
  publisher: string;
  contributes: {
    commands: { command: string; title: string; icon?: string }[];
    menus: Record<string, { command: string; when: string; group?: string }[]>;
  };
}

describe('the settings gear in the chat view title bar', () => {
  it('package.json contributes Open Settings with a gear, in the chat view title', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as Manifest;
    const cmd = pkg.contributes.commands.find((c) => c.command === 'contextPipeline.openSettings');
    assert.equal(cmd?.icon, '$(gear)');
    assert.equal(cmd?.title, 'Open Settings');
    const inTitle = pkg.contributes.menus['view/title']!.find((m) => m.command === 'contextPipeline.openSettings');
    assert.equal(inTitle?.when, 'view == contextPipeline.chat');
    assert.match(inTitle?.group ?? '', /^navigation/);
  });

  it("opens the Settings editor on this extension's id", async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as Manifest;
    assert.equal(SETTINGS_QUERY, `@ext:${pkg.publisher}.${pkg.name}`);
  });
});
