import { strict as assert } from 'node:assert';
import { sessionPickItem } from '../../src/host/sessions/sessionPick';
import type { SessionSummary } from '../../src/host/sessions/sessionSummary';

const base: SessionSummary = {
  id: '2026-11-20T10-00-00-abcdef',
  title: 'Fix the login test',
  createdAt: 0,
  updatedAt: 0,
  turns: 3,
  hasMessages: true,
  model: 'claude-sonnet-4-5',
  sizeBytes: 2048,
  damaged: false,
};
const at = () => 'then';

describe('Sessions… quick pick rows', () => {
  it('a healthy session: no icon, resume, exports and delete', () => {
    const item = sessionPickItem(base, at);
    assert.equal(item.label, 'Fix the login test');
    assert.equal(item.detail, undefined);
    assert.deepEqual(item.actions, ['Resume', 'Export as Markdown', 'Export as JSONL', 'Delete']);
    assert.match(item.description, /^then · 3 turns · 2(\.0)? KB · claude-sonnet-4-5$/);
  });

  it('a damaged session: warning icon, the reason, open and repair, delete', () => {
    const item = sessionPickItem({ ...base, damaged: true, damage: 'Its last line is incomplete.' }, at);
    assert.equal(item.label, '$(warning) Fix the login test');
    assert.match(item.detail ?? '', /^Damaged: Its last line is incomplete\. Opening it repairs it/);
    assert.deepEqual(item.actions, ['Open and repair', 'Export as Markdown', 'Export as JSONL', 'Delete']);
  });

  it('an unreadable session: warning icon, the error, open (which explains) and delete, no export', () => {
    const item = sessionPickItem({ ...base, title: '', damaged: true, error: 'EACCES: permission denied' }, at);
    assert.equal(item.label, '$(warning) (empty session)');
    assert.match(item.detail ?? '', /could not be read \(EACCES: permission denied\)/);
    assert.deepEqual(item.actions, ['Open and repair', 'Delete']);
  });
});
