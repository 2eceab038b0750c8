import { strict as assert } from 'node:assert';
import {
  ANTHROPIC_ORIGIN,
  classifyBaseUrl,
  endpointNotice,
  isLoopbackHost,
  withEndpointBanner,
} from '../../src/core/security/endpoint';

const kind = (url: string) => classifyBaseUrl(url).kind;

describe('classifyBaseUrl', () => {
  it("is fooled by none of the review's attack URLs (the old regex called them all local)", () => {
    const oldRegex = /^https?:\/\/(127\.|localhost|\[::1\])/;
    for (const url of [
      'http://localhost.attacker.example',
      'http://127.attacker.example',
      'https://localhost@attacker.example',
    ]) {
      assert.ok(oldRegex.test(url), `the old check trusted ${url}`);
      assert.equal(kind(url), 'remote', url);
    }
    const userinfo = classifyBaseUrl('https://localhost@attacker.example');
    assert.equal(userinfo.kind, 'remote');
    assert.equal('origin' in userinfo ? userinfo.origin : '', 'https://attacker.example');
    assert.match(
      endpointNotice(userinfo) ?? '',
      /https:\/\/attacker\.example — not Anthropic's API.*user name or password/,
    );
  });

  it('calls only loopback hosts local, with ports, uppercase and other notations of 127/8', () => {
    for (const url of [
      'http://127.0.0.1:8787',
      'http://localhost:8787',
      'http://LOCALHOST:8787/',
      'http://[::1]:8787',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://127.255.255.254',
      'http://127.0.0.1.:8787',
    ]) {
      assert.equal(kind(url), 'local', url);
    }
    assert.deepEqual(classifyBaseUrl('http://127.0.0.1:8787/'), { kind: 'local', origin: 'http://127.0.0.1:8787' });
  });

  it('treats look-alikes, trailing-dot names, other private addresses and mapped IPv6 as remote', () => {
    for (const url of [
      'http://localhost.:1',
      'http://127.0.0.1.attacker.example',
      'http://127.0.0.1%2eattacker.example/',
      'http://0.0.0.0/',
      'http://10.0.0.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::2]/',
      'http://localhost-proxy/',
      'https://example.com',
    ]) {
      assert.equal(kind(url), 'remote', url);
    }
  });

  it('never trusts a loopback URL that carries credentials', () => {
    for (const url of ['http://user@127.0.0.1:8787', 'https://user:pw@localhost/', 'http://:pw@[::1]/'])
      assert.equal(kind(url), 'remote', url);
  });

  it("knows Anthropic's API only by its exact https origin", () => {
    for (const url of [
      '',
      '  ',
      'https://api.anthropic.com',
      'HTTPS://API.ANTHROPIC.COM/',
      'https://api.anthropic.com:443/v1',
    ])
      assert.equal(kind(url), 'anthropic', url);
    for (const url of [
      'http://api.anthropic.com',
      'https://api.anthropic.com.',
      'https://api.anthropic.com:8443',
      'https://api.anthropic.com.attacker.example',
      'https://me@api.anthropic.com',
    ])
      assert.equal(kind(url), 'remote', url);
    assert.equal(endpointNotice(classifyBaseUrl('')), undefined);
    assert.deepEqual(classifyBaseUrl(''), { kind: 'anthropic', origin: ANTHROPIC_ORIGIN });
  });

  it('refuses what is not an http(s) URL, and ambiguous text, as invalid with a reason', () => {
    for (const url of [
      '127.0.0.1:8787',
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      'http://127.0.0.1\\@evil.example/',
      'http://127.0.0.1:8787/\u0000',
      'http://local host/',
      'not a url',
    ]) {
      const e = classifyBaseUrl(url);
      assert.equal(e.kind, 'invalid', url);
      assert.match(endpointNotice(e) ?? '', /contextPipeline\.baseUrl is not usable: .+\. Nothing is sent/);
    }
  });

  it('says where requests go, for local and remote servers, and warns about plain http', () => {
    assert.equal(
      endpointNotice(classifyBaseUrl('http://127.0.0.1:8787')),
      "Offline: requests go to the local server at http://127.0.0.1:8787 — not Anthropic's API.",
    );
    assert.equal(
      endpointNotice(classifyBaseUrl('https://proxy.example/v1')),
      "Requests go to https://proxy.example — not Anthropic's API. Your API key is sent there with every request.",
    );
    assert.match(endpointNotice(classifyBaseUrl('http://proxy.example')) ?? '', /unencrypted/);
  });

  it("gives the chat header a banner for everything but Anthropic's API", () => {
    assert.deepEqual(withEndpointBanner(''), {});
    assert.deepEqual(withEndpointBanner('https://api.anthropic.com/'), {});
    assert.equal(withEndpointBanner('http://127.0.0.1:8787').endpoint?.kind, 'local');
    assert.equal(withEndpointBanner('http://localhost.attacker.example').endpoint?.kind, 'remote');
    assert.match(
      withEndpointBanner('http://localhost.attacker.example').endpoint?.notice ?? '',
      /^Requests go to http:\/\/localhost\.attacker\.example — not Anthropic's API/,
    );
    assert.equal(withEndpointBanner('ftp://x').endpoint?.kind, 'invalid');
  });
});

describe('isLoopbackHost', () => {
  it('accepts exactly localhost, 127.0.0.0/8 and [::1]', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) assert.ok(isLoopbackHost(h), h);
    for (const h of [
      'localhost.',
      '127.0.0.1.',
      '128.0.0.1',
      '127.0.0.256',
      '::1',
      '[::ffff:7f00:1]',
      'localhost.attacker.example',
      '127.attacker.example',
      '',
    ])
      assert.ok(!isLoopbackHost(h), h);
  });
});
