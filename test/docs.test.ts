import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_DIRS = ['src', 'test', 'scripts', 'bench', 'docs'];
const GUIDES = ['README.md', 'ARCHITECTURE.md', 'contracts/README.md'];

function filesUnder(dir: string): string[] {
  const absolute = path.join(ROOT, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute).flatMap((name) => {
    const relative = path.join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(path.join(ROOT, relative)).isDirectory() ? filesUnder(relative) : [relative];
  });
}

const texts = () =>
  [...GUIDES, ...SOURCE_DIRS.flatMap(filesUnder)]
    .filter((f) => /\.(ts|md|json)$/.test(f))
    .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));

/** GitHub's anchor of a markdown heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/**
 * The documentation stands on its own: nothing cites a document the repository does not hold,
 * and every reference to one of its guides (`docs/api.md#errors` in a comment, a markdown link)
 * reaches a file and a heading that exist.
 */
describe('the documentation', () => {
  it('keeps ARCHITECTURE.md one page a newcomer reads in five minutes: at most 200 lines', () => {
    const lines = readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8').split('\n').length;
    assert.ok(
      lines <= 200,
      `ARCHITECTURE.md has ${lines} lines: say less, or say it in the code it is about`,
    );
  });

  it('cites no document outside the repository', () => {
    // The team's own specs and style guide live outside the repository (this file names them).
    const outside = /\b(API|SERVICE-SPEC|STYLE)\.md\b|SERVICE-SPEC/;
    const found = texts()
      .filter(({ file, text }) => file !== path.join('test', 'docs.test.ts') && outside.test(text))
      .map(({ file }) => file);
    assert.deepEqual(found, [], `files citing a document outside the repository: ${found.join(', ')}`);
  });

  it('points every docs/….md#anchor reference at an existing heading', () => {
    const problems: string[] = [];
    for (const { file, text } of texts()) {
      for (const [, doc, anchor] of text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        const target = path.join('docs', doc!);
        if (!existsSync(path.join(ROOT, target))) problems.push(`${file}: ${target} does not exist`);
        else if (anchor && !anchorsOf(target).has(anchor))
          problems.push(`${file}: ${target}#${anchor} has no heading`);
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('has relative markdown links that reach files and headings of the repository', () => {
    const problems: string[] = [];
    const markdown = [...GUIDES, ...filesUnder('docs').filter((f) => f.endsWith('.md'))];
    for (const file of markdown) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [relative, anchor] = target!.split('#');
        const resolved = relative ? path.join(path.dirname(file), relative) : file;
        if (!existsSync(path.join(ROOT, resolved))) problems.push(`${file}: ${target} does not exist`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
          problems.push(`${file}: ${target} has no such heading`);
        }
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
