import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setupTest, type TestEnv } from './harness.ts';

/**
 * The `pattern`s of the OpenAPI document mean the same to every client's regular expressions as
 * to the service's validator (ECMA-262 with the u flag, ajv): a client that checks its input
 * against the document before sending it, or that tests the service with what the document
 * refuses, must see the same line. So a pattern uses only what every common dialect (ECMA-262,
 * PCRE, Python, Go's RE2, Java) reads alike: code points as \xHH, no \uHHHH (PCRE and RE2 read it
 * otherwise: `[^\u0000-\u001f]` there refuses `?`), no Unicode classes, lookaround or
 * back-references, and no shorthand class (\s, \S, \d, \w) whose meaning differs with Unicode.
 */
const document = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));

function patternsOf(node: unknown, where: string, found: { pattern: string; where: string }[] = []) {
  if (Array.isArray(node)) {
    for (const [i, child] of node.entries()) patternsOf(child, `${where}/${i}`, found);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) {
      if (key === 'pattern' && typeof child === 'string') found.push({ pattern: child, where });
      else patternsOf(child, `${where}/${key}`, found);
    }
  }
  return found;
}

const NOT_PORTABLE: [RegExp, string][] = [
  [/\\u/, '\\u escape (write \\xHH)'],
  [/\\[pP]\{/, 'Unicode property class'],
  [/\(\?[=!<]/, 'lookaround'],
  [/\\[1-9]|\\k</, 'back-reference'],
  [/\\[sSdDwWbB]/, 'shorthand class whose meaning differs with Unicode'],
];

describe('the patterns of the OpenAPI document', () => {
  const patterns = patternsOf(document, '');

  it('are read alike by every common regular expression dialect', () => {
    assert.ok(patterns.length > 100, `${patterns.length} patterns found`);
    const problems = patterns.flatMap(({ pattern, where }) =>
      NOT_PORTABLE.filter(([construct]) => construct.test(pattern)).map(
        ([, what]) => `${where}: ${JSON.stringify(pattern)} has a ${what}`,
      ),
    );
    assert.deepEqual(problems, []);
  });

  it('mean the same with and without Unicode mode, on every ASCII character and some beyond', () => {
    const samples = [
      ...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)),
      'é',
      '\u00a0',
      '\u2028',
      '😀',
      '!!! ???',
    ];
    const problems: string[] = [];
    for (const { pattern, where } of patterns) {
      const [plain, unicode] = [new RegExp(pattern), new RegExp(pattern, 'u')];
      for (const sample of samples)
        if (plain.test(sample) !== unicode.test(sample))
          problems.push(`${where}: ${JSON.stringify(pattern)} differs on ${JSON.stringify(sample)}`);
    }
    assert.deepEqual(problems, []);
  });
});

describe('a string the document allows is taken, one it refuses is refused', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env?.close());

  it('a campaign name: any printable text, never a control character', async () => {
    const { admin } = await env.createTenant();
    const create = (name: string) =>
      env.call('POST', '/v1/marketing-campaigns', { token: admin.token, body: { name } });
    for (const name of ['!!! ???', 'Genesis: 0-9 @ A-Z [drop] \\ é 😀'])
      assert.equal((await create(name)).statusCode, 201, name);
    for (const name of ['a\u0001b', 'line\nbreak', 'tab\there', 'del\u007f'])
      assert.equal((await create(name)).statusCode, 400, JSON.stringify(name));
  });
});
