/**
 * Layering (issue 18): the audit code serves the web, the CLI and tests without the command line, so
 * nothing under src/audit imports src/cli — static imports, `import type`, re-exports and dynamic
 * `import()` alike. Reads every source file under src/audit and resolves each import specifier.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const AUDIT = join(ROOT, 'src/audit');
const CLI = join(ROOT, 'src/cli');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:[cm]?[jt]s|tsx)$/.test(entry.name) ? [path] : [];
  });

/** Every module specifier a file names: import/export … from, import type, import(), require(). */
export const specifiersOf = (text: string): string[] => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

/** The specifiers of `file` that resolve into src/cli (a relative path into it, or an absolute one). */
const cliImports = (file: string, text: string): string[] =>
  specifiersOf(text).filter((specifier) => {
    if (!specifier.startsWith('.') && !specifier.startsWith('/')) return /(^|\/)src\/cli(\/|$)/.test(specifier);
    const target = resolve(dirname(file), specifier);
    return target === CLI || target.startsWith(CLI + sep);
  });

describe('audit layering: src/audit does not import src/cli', () => {
  it('the check sees every kind of import (so an empty result means something)', () => {
    const file = join(AUDIT, 'web/example.ts');
    const text = [
      "import { a } from '../../cli/context.js';",
      "import type { B } from '../../cli/errors.js';",
      "export { c } from '../../cli/format.js';",
      "const d = await import('../../cli/commands/start.js');",
      "import { e } from '../../store/open-existing.js';",
    ].join('\n');
    expect(cliImports(file, text)).to.deep.equal(['../../cli/context.js', '../../cli/errors.js', '../../cli/format.js', '../../cli/commands/start.js']);
  });

  it('no file under src/audit imports anything under src/cli', () => {
    const files = sourceFiles(AUDIT);
    expect(files.length).to.be.greaterThan(10);
    const offending = files.flatMap((file) => cliImports(file, readFileSync(file, 'utf8')).map((specifier) => `${relative(ROOT, file)} imports ${specifier}`));
    expect(offending, 'move what both need below both (src/store/open-existing.ts, src/machine-registry/, src/errors/)').to.deep.equal([]);
    // The scan did read imports: commands.ts opens the store through the shared module.
    expect(specifiersOf(readFileSync(join(AUDIT, 'commands.ts'), 'utf8'))).to.include('../store/open-existing.js');
  });
});
