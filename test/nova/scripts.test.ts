/**
 * The rendered Nova Job scripts (src/nova/scripts) run for real under `/bin/sh -eu -c` (dash), against a SCRIPTED
 * fake `nova-manage` and `nova-status` on PATH — nova-operator.md, "The cells sequence", "Release upgrade",
 * "DBArchive". The fakes log every call (argv word by word, and the OS_DATABASE__CONNECTION they ran with) and
 * answer from a scenario: per verb, the nth call's exit code, stdout and how many (fake) seconds it took. A verb
 * the scenario does not name fails loudly (exit 99). `sleep` and `date +%s` are faked on a shared clock so the
 * archive budget is tested at its real 3000 seconds without waiting; `date -d` goes to the real date.
 * The db-sync guard runs under both mawk (Debian's default awk, what the nova image has) and gawk.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCellsReport } from '../../src/nova/cells-report.js';
import {
  ARCHIVE_ACTIVE_DEADLINE_SECONDS,
  ARCHIVE_BUDGET_SECONDS,
  ARCHIVE_DELETED_ROWS_CODES,
  archiveEnv,
  actionFor,
  CONTRACT_ROUNDS_EXHAUSTED_EXIT,
  ONLINE_DATA_MIGRATIONS_CODES,
  renderArchiveScript,
  renderContractScript,
  renderDbSyncScript,
  renderExpandScript,
  renderMigrateScript,
  UPGRADE_CHECK_CODES,
} from '../../src/nova/scripts/index.js';

// ---------------------------------------------------------------------------------------------------------------
// The harness

/** One answer of a fake: exit code, stdout, and the fake seconds the call takes (advances the shared clock). */
interface Answer {
  rc?: number;
  out?: string;
  secs?: number;
}
/** Per verb (`nova-manage api_db sync`, `nova-status upgrade check`, …) the answers of its 1st, 2nd, … call; the last repeats. */
type Scenario = Record<string, Answer[]>;

interface Call {
  prog: string;
  args: string[];
  /** The OS_DATABASE__CONNECTION the call ran with ('<unset>' when none). */
  dbConnection: string;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  calls: Call[];
  /** Verbs in call order, e.g. 'nova-manage cell_v2 list_cells'. */
  verbs: string[];
  sleeps: string[];
  dir: string;
}

const START_CLOCK = 1_700_000_000;

const FAKE_TOOL = `#!/bin/sh
set -eu
prog=\${0##*/}
{
  printf 'CALL %s\\n' "$prog"
  for a in "$@"; do printf 'ARG %s\\n' "$a"; done
  printf 'ENV %s\\n' "\${OS_DATABASE__CONNECTION-<unset>}"
  printf 'END\\n'
} >> "$FAKE_DIR/calls.log"
if [ "\${1-}" = --config-file ]; then shift 2; fi
key="$prog-\${1-}-\${2-}"
base="$FAKE_DIR/scenario/$key"
if [ ! -e "$base.known" ]; then echo "fake $prog: unexpected call: $*" >&2; exit 99; fi
n=$(( $(cat "$FAKE_DIR/count.$key" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$FAKE_DIR/count.$key"
i=$n
while [ "$i" -gt 0 ] && [ ! -e "$base.$i.rc" ]; do i=$((i - 1)); done
[ "$i" -gt 0 ] || exit 0
if [ -e "$base.$i.secs" ]; then echo $(( $(cat "$FAKE_DIR/clock") + $(cat "$base.$i.secs") )) > "$FAKE_DIR/clock"; fi
if [ -e "$base.$i.out" ]; then cat "$base.$i.out"; fi
exit "$(cat "$base.$i.rc")"
`;

const FAKE_SLEEP = `#!/bin/sh
set -eu
printf 'SLEEP %s\\n' "$1" >> "$FAKE_DIR/sleeps.log"
echo $(( $(cat "$FAKE_DIR/clock") + $1 )) > "$FAKE_DIR/clock"
`;

const realDate = ['/usr/bin/date', '/bin/date'].find((p) => existsSync(p))!;
const FAKE_DATE = `#!/bin/sh
for last in "$@"; do :; done
if [ "\${last-}" = '+%s' ]; then cat "$FAKE_DIR/clock"; exit 0; fi
exec ${realDate} "$@"
`;

const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

interface RunOptions {
  env?: Record<string, string>;
  /** Which awk is `awk` on PATH (default: the system's). A path to a script replaces it. */
  awk?: string;
  /** Leave NOVA_CONFIG_DIR unset (the script's default /etc/nova applies). */
  noConfigDir?: boolean;
}

function runScript(script: string, scenario: Scenario, options: RunOptions = {}): Run {
  const dir = mkdtempSync(join(tmpdir(), 'regent-nova-scripts-'));
  tempDirs.push(dir);
  const bin = join(dir, 'bin');
  const scen = join(dir, 'scenario');
  mkdirSync(bin);
  mkdirSync(scen);
  mkdirSync(join(dir, 'etc'));
  writeExecutable(join(bin, 'nova-manage'), FAKE_TOOL);
  writeExecutable(join(bin, 'nova-status'), FAKE_TOOL);
  writeExecutable(join(bin, 'sleep'), FAKE_SLEEP);
  writeExecutable(join(bin, 'date'), FAKE_DATE);
  if (options.awk) symlinkSync(options.awk, join(bin, 'awk'));
  writeFileSync(join(dir, 'clock'), String(START_CLOCK));
  for (const [verb, answers] of Object.entries(scenario)) {
    const key = verb.split(' ').join('-');
    writeFileSync(join(scen, `${key}.known`), '');
    answers.forEach((a, i) => {
      writeFileSync(join(scen, `${key}.${i + 1}.rc`), String(a.rc ?? 0));
      if (a.out !== undefined) writeFileSync(join(scen, `${key}.${i + 1}.out`), a.out);
      if (a.secs !== undefined) writeFileSync(join(scen, `${key}.${i + 1}.secs`), String(a.secs));
    });
  }
  const env: Record<string, string> = { PATH: `${bin}:/usr/bin:/bin`, FAKE_DIR: dir, ...(options.noConfigDir ? {} : { NOVA_CONFIG_DIR: join(dir, 'etc') }), ...options.env };
  const r = spawnSync('/bin/sh', ['-eu', '-c', script], { env, encoding: 'utf8', timeout: 20_000 });
  const read = (f: string): string => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  const calls = parseCalls(read('calls.log'));
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    calls,
    verbs: calls.map(verbOf),
    sleeps: read('sleeps.log').split('\n').filter((l) => l !== '').map((l) => l.slice('SLEEP '.length)),
    dir,
  };
}

function parseCalls(log: string): Call[] {
  const calls: Call[] = [];
  let cur: Call | undefined;
  for (const line of log.split('\n')) {
    if (line.startsWith('CALL ')) cur = { prog: line.slice(5), args: [], dbConnection: '' };
    else if (line.startsWith('ARG ') && cur) cur.args.push(line.slice(4));
    else if (line.startsWith('ENV ') && cur) cur.dbConnection = line.slice(4);
    else if (line === 'END' && cur) calls.push(cur);
  }
  return calls;
}

/** The command's arguments after `--config-file <path>`. */
function argsAfterConfig(c: Call): string[] {
  return c.args[0] === '--config-file' ? c.args.slice(2) : c.args;
}
function verbOf(c: Call): string {
  return [c.prog, ...argsAfterConfig(c).slice(0, 2)].join(' ');
}
function callsOf(run: Run, verb: string): Call[] {
  return run.calls.filter((c) => verbOf(c) === verb);
}

// A list_cells table as nova-manage prints it (prettytable, centred).
interface CellRow {
  name: string;
  uuid: string;
  transport: string;
  db: string;
  disabled?: boolean;
}
function cellsTable(rows: CellRow[]): string {
  const header = ['Name', 'UUID', 'Transport URL', 'Database Connection', 'Disabled'];
  const body = rows.map((r) => [r.name, r.uuid, r.transport, r.db, r.disabled ? 'True' : 'False']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)) + 2);
  const centre = (s: string, w: number): string => {
    const left = Math.floor((w - s.length) / 2);
    return ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
  };
  const border = '+' + widths.map((w) => '-'.repeat(w)).join('+') + '+';
  const line = (cells: string[]): string => '|' + cells.map((c, i) => centre(c, widths[i]!)).join('|') + '|';
  return [border, line(header), border, ...body.map(line), border].join('\n') + '\n';
}

const CELL0_UUID = '00000000-0000-0000-0000-000000000000';
const CELL1_UUID = '2b6e3f4c-8a1d-4c3e-9f0a-1b2c3d4e5f60';
const OTHER_UUID = '9d8c7b6a-5f4e-4d3c-8b2a-190817263544';
const cell0Row: CellRow = { name: 'cell0', uuid: CELL0_UUID, transport: 'none:/', db: 'mysql+pymysql://openstack:****@127.0.0.1/nova_cell0?charset=utf8' };
const cell1Row: CellRow = { name: 'cell1', uuid: CELL1_UUID, transport: 'rabbit://guest:****@127.0.0.1:5672/', db: 'mysql+pymysql://openstack:****@127.0.0.1/nova?charset=utf8' };

const CELL0_TEMPLATE = '{scheme}://{username}:{password}@{hostname}:{port}/nova_cell0?{query}';
const CELL_TEMPLATE = '{scheme}://{username}:{password}@{hostname}:{port}/nova?{query}';
const TRANSPORT_TEMPLATE = '{scheme}://{username}:{password}@{hostname}:{port}/{path}';

/** The db-sync scenario: the first listing is `before`, the final one `after`. */
function dbSyncScenario(before: CellRow[], after: CellRow[] = [cell0Row, cell1Row], overrides: Scenario = {}): Scenario {
  return {
    'nova-manage api_db sync': [{}],
    'nova-manage cell_v2 map_cell0': [{}],
    'nova-manage cell_v2 list_cells': [{ out: cellsTable(before) }, { out: cellsTable(after) }],
    'nova-manage cell_v2 create_cell': [{}],
    'nova-manage db sync': [{}],
    ...overrides,
  };
}

const AWKS = ['/usr/bin/mawk', '/usr/bin/gawk'].filter((p) => existsSync(p));

// ---------------------------------------------------------------------------------------------------------------

describe('nova scripts', () => {
  describe('every script', () => {
    const scripts: [string, string, Scenario][] = [
      ['db-sync', renderDbSyncScript({ cellSchema: 'nova', terminationLog: '/dev/null' }), dbSyncScenario([cell0Row])],
      ['expand', renderExpandScript(), { 'nova-status upgrade check': [{}], 'nova-manage api_db sync': [{}], 'nova-manage db sync': [{}] }],
      ['migrate', renderMigrateScript(), { 'nova-manage cell_v2 list_cells': [{ out: cellsTable([cell0Row, cell1Row]) }] }],
      ['contract', renderContractScript(), { 'nova-manage db online_data_migrations': [{}] }],
      ['archive', renderArchiveScript(), { 'nova-manage db archive_deleted_rows': [{}] }],
    ];
    for (const [name, script, scenario] of scripts) {
      it(`${name}: every nova-manage and nova-status call reads "$NOVA_CONFIG_DIR/nova.conf" and nothing else`, () => {
        const run = runScript(script, scenario, { env: { NOVA_CELL0_DATABASE_CONNECTION: 'c0', ...archiveEnvRecord() } });
        expect(run.status, run.stderr).to.equal(0);
        expect(run.calls.length).to.be.above(0);
        for (const c of run.calls) expect(c.args.slice(0, 2)).to.deep.equal(['--config-file', join(run.dir, 'etc', 'nova.conf')]);
      });
      it(`${name}: NOVA_CONFIG_DIR defaults to /etc/nova`, () => {
        const run = runScript(script, scenario, { noConfigDir: true, env: { NOVA_CELL0_DATABASE_CONNECTION: 'c0', ...archiveEnvRecord() } });
        expect(run.status, run.stderr).to.equal(0);
        for (const c of run.calls) expect(c.args.slice(0, 2)).to.deep.equal(['--config-file', '/etc/nova/nova.conf']);
      });
      it(`${name}: parses under dash's -n and carries no credential`, () => {
        const r = spawnSync('/bin/sh', ['-n', '-c', script], { encoding: 'utf8' });
        expect(r.status, r.stderr).to.equal(0);
        expect(script).to.not.match(/password=|:\/\/[^{'\s]+:[^{'\s]+@/);
      });
    }
  });

  for (const awk of AWKS) {
    describe(`db-sync, the cells sequence (awk = ${awk})`, () => {
      const script = (log: string): string => renderDbSyncScript({ cellSchema: 'nova', terminationLog: log });
      const run = (before: CellRow[], after?: CellRow[], overrides?: Scenario): Run & { log: string; logPath: string } => {
        const dir = mkdtempSync(join(tmpdir(), 'regent-nova-log-'));
        tempDirs.push(dir);
        const logPath = join(dir, 'termination-log');
        const r = runScript(script(logPath), dbSyncScenario(before, after, overrides), { awk });
        return { ...r, logPath, log: existsSync(logPath) ? readFileSync(logPath, 'utf8') : '' };
      };

      it('S1-S8 the eight commands run in order on a fresh install (only cell0 mapped): create_cell runs', () => {
        const r = run([cell0Row]);
        expect(r.status, r.stderr).to.equal(0);
        expect(r.verbs).to.deep.equal([
          'nova-manage api_db sync',
          'nova-manage cell_v2 map_cell0',
          'nova-manage cell_v2 list_cells',
          'nova-manage cell_v2 create_cell',
          'nova-manage db sync',
          'nova-manage cell_v2 list_cells',
        ]);
      });
      it('S2 map_cell0 maps <cellSchema>_cell0 through the single-quoted nova template', () => {
        const r = run([cell0Row]);
        expect(argsAfterConfig(callsOf(r, 'nova-manage cell_v2 map_cell0')[0]!)).to.deep.equal(['cell_v2', 'map_cell0', '--database_connection', CELL0_TEMPLATE]);
      });
      it('S5 create_cell names cell1 with the transport and database templates, the cell schema in the path', () => {
        const r = run([cell0Row]);
        expect(argsAfterConfig(callsOf(r, 'nova-manage cell_v2 create_cell')[0]!)).to.deep.equal([
          'cell_v2', 'create_cell', '--name', 'cell1', '--transport-url', TRANSPORT_TEMPLATE, '--database_connection', CELL_TEMPLATE,
        ]);
      });
      it('S4 create_cell is skipped when a cell named cell1 exists', () => {
        const r = run([cell0Row, cell1Row]);
        expect(r.status, r.stderr).to.equal(0);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
        expect(r.verbs).to.include('nova-manage db sync');
      });
      it('S4 create_cell is skipped when cell1 exists under another schema (the name alone is enough)', () => {
        const r = run([cell0Row, { ...cell1Row, db: 'mysql+pymysql://openstack:****@db/elsewhere?charset=utf8' }]);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
      });
      it('S4 create_cell is skipped when a cell of another name maps the cell schema (brownfield)', () => {
        const r = run([cell0Row, { name: 'main', uuid: OTHER_UUID, transport: 'rabbit://nova:****@mq:5672/nova', db: 'mysql+pymysql://nova:****@db.example:3306/nova?charset=utf8&read_timeout=30' }]);
        expect(r.status, r.stderr).to.equal(0);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
      });
      it('S4 the schema match strips the query and needs none', () => {
        const r = run([cell0Row, { name: 'main', uuid: OTHER_UUID, transport: 'rabbit://nova:****@mq:5672/', db: 'mysql+pymysql://nova:****@db/nova' }]);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
      });
      it('S4 create_cell is NOT skipped when "cell1" appears only inside a URL\'s user, host or vhost', () => {
        const r = run([
          { ...cell0Row, db: 'mysql+pymysql://cell1:****@cell1.db.example/nova_cell0?charset=utf8' },
          { name: 'legacy', uuid: OTHER_UUID, transport: 'rabbit://cell1:****@cell1.mq.example:5672/cell1', db: 'mysql+pymysql://cell1:****@cell1.db.example/cell1?charset=utf8' },
        ]);
        expect(r.status, r.stderr).to.equal(0);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(1);
      });
      it('S4 a name that only contains cell1 (cell10, old-cell1) is not cell1', () => {
        const r = run([cell0Row, { ...cell1Row, name: 'cell10', db: 'mysql+pymysql://o:****@h/other' }, { ...cell1Row, uuid: OTHER_UUID, name: 'old-cell1', db: 'mysql+pymysql://o:****@h/other2' }]);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(1);
      });
      it('S4 a schema that only starts or ends like the cell schema (nova_cell0, nova2, xnova) is not the cell schema', () => {
        const r = run([cell0Row, { name: 'a', uuid: OTHER_UUID, transport: 'none:/', db: 'mysql+pymysql://o:****@h/nova2?x=nova' }, { name: 'b', uuid: CELL1_UUID, transport: 'none:/', db: 'mysql+pymysql://o:****@nova/xnova' }]);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(1);
      });
      for (const [what, out] of [['with no output', ''], ['after printing part of the table (cell0 only)', cellsTable([cell0Row])]] as const) {
        it(`S3 a failed first listing ${what} stops the script before create_cell (never read as a table without cell1)`, () => {
          const r = run([cell0Row], undefined, { 'nova-manage cell_v2 list_cells': [{ rc: 1, out }] });
          expect(r.status).to.equal(1);
          expect(r.verbs).to.deep.equal(['nova-manage api_db sync', 'nova-manage cell_v2 map_cell0', 'nova-manage cell_v2 list_cells']);
        });
      }
      it('S4 a listing with no cell row at all (cell0 was just mapped) stops the script before create_cell', () => {
        const r = run([], undefined, { 'nova-manage cell_v2 list_cells': [{ out: 'An error occurred\n' }] });
        expect(r.status).to.equal(3);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
        expect(r.stderr).to.include('no cell rows');
      });
      it('S4 an awk that fails is not read as "no cell found"', () => {
        const broken = join(mkdtempSync(join(tmpdir(), 'regent-awk-')), 'awk');
        tempDirs.push(join(broken, '..'));
        writeExecutable(broken, '#!/bin/sh\nexit 2\n');
        const r = runScript(script('/dev/null'), dbSyncScenario([cell0Row]), { awk: broken });
        expect(r.status).to.equal(2);
        expect(callsOf(r, 'nova-manage cell_v2 create_cell')).to.have.length(0);
        expect(r.verbs).to.not.include('nova-manage db sync');
      });
      it('S7 a failed final listing fails the script and writes no report', () => {
        const r = run([cell0Row], undefined, { 'nova-manage cell_v2 list_cells': [{ out: cellsTable([cell0Row]) }, { rc: 1, out: cellsTable([cell0Row, cell1Row]) }] });
        expect(r.status).to.not.equal(0);
        expect(r.log).to.equal('');
      });
      it('S8 the termination log holds exactly one <name>=<uuid> line per cell, in table order', () => {
        const r = run([cell0Row]);
        expect(r.status, r.stderr).to.equal(0);
        expect(r.log).to.equal(`cell0=${CELL0_UUID}\ncell1=${CELL1_UUID}\n`);
      });
      it('S8 stray nova-manage output around the table does not reach the report, and parseCellsReport reads it back', () => {
        const noisy = 'Modules with known eventlet monkey patching issues were imported\n' + cellsTable([cell0Row, cell1Row, { name: 'cell2', uuid: OTHER_UUID, transport: 'rabbit://g:****@h:5672/', db: 'mysql+pymysql://o:****@h/nova_cell2' }]) + 'done\n';
        const r = run([cell0Row], undefined, { 'nova-manage cell_v2 list_cells': [{ out: cellsTable([cell0Row]) }, { out: noisy }] });
        expect(r.status, r.stderr).to.equal(0);
        expect(r.log.split('\n').filter((l) => l !== '')).to.deep.equal([`cell0=${CELL0_UUID}`, `cell1=${CELL1_UUID}`, `cell2=${OTHER_UUID}`]);
        expect(parseCellsReport(r.log)).to.deep.equal([
          { name: 'cell0', uuid: CELL0_UUID },
          { name: 'cell1', uuid: CELL1_UUID },
          { name: 'cell2', uuid: OTHER_UUID },
        ]);
      });
      for (const [verb, rest] of [
        ['nova-manage api_db sync', []],
        ['nova-manage cell_v2 map_cell0', ['nova-manage api_db sync']],
        ['nova-manage cell_v2 create_cell', ['nova-manage api_db sync', 'nova-manage cell_v2 map_cell0', 'nova-manage cell_v2 list_cells']],
        ['nova-manage db sync', ['nova-manage api_db sync', 'nova-manage cell_v2 map_cell0', 'nova-manage cell_v2 list_cells', 'nova-manage cell_v2 create_cell']],
      ] as const) {
        it(`the commands are chained on success: a failing ${verb.replace('nova-manage ', '')} stops the script there`, () => {
          const r = run([cell0Row], undefined, { [verb]: [{ rc: 1 }] });
          expect(r.status).to.equal(1);
          expect(r.verbs).to.deep.equal([...rest, verb]);
          expect(r.log).to.equal('');
        });
      }
    });
  }

  describe('db-sync rendering', () => {
    it('the cell schema (and so cell0\'s derived name) must match ^[A-Za-z0-9_]{1,64}$', () => {
      for (const bad of ["nova'; rm -rf /; '", '', 'nova-db', 'nova cell', 'x'.repeat(65), 'x'.repeat(59)]) {
        expect(() => renderDbSyncScript({ cellSchema: bad }), JSON.stringify(bad)).to.throw(RangeError);
      }
      expect(() => renderDbSyncScript({ cellSchema: 'x'.repeat(58) })).to.not.throw();
    });
    it('the termination log defaults to /dev/termination-log', () => {
      expect(renderDbSyncScript({ cellSchema: 'nova' })).to.include("TERMINATION_LOG='/dev/termination-log'");
    });
    it('a termination-log path with spaces and quotes is written to verbatim', () => {
      const dir = mkdtempSync(join(tmpdir(), "regent nova 'log' "));
      tempDirs.push(dir);
      const logPath = join(dir, "it's the log");
      const r = runScript(renderDbSyncScript({ cellSchema: 'nova', terminationLog: logPath }), dbSyncScenario([cell0Row]));
      expect(r.status, r.stderr).to.equal(0);
      expect(readFileSync(logPath, 'utf8')).to.equal(`cell0=${CELL0_UUID}\ncell1=${CELL1_UUID}\n`);
    });
  });

  describe('expand', () => {
    const scenario = (checkRc: number, overrides: Scenario = {}): Scenario => ({
      'nova-status upgrade check': [{ rc: checkRc }],
      'nova-manage api_db sync': [{}],
      'nova-manage db sync': [{}],
      ...overrides,
    });
    it('E1 a passing upgrade check is followed by api_db sync, then db sync', () => {
      const r = runScript(renderExpandScript(), scenario(0));
      expect(r.status, r.stderr).to.equal(0);
      expect(r.verbs).to.deep.equal(['nova-status upgrade check', 'nova-manage api_db sync', 'nova-manage db sync']);
    });
    it('E2 a warning (1) goes on and is logged', () => {
      const r = runScript(renderExpandScript(), scenario(1));
      expect(r.status, r.stderr).to.equal(0);
      expect(r.verbs).to.deep.equal(['nova-status upgrade check', 'nova-manage api_db sync', 'nova-manage db sync']);
      expect(r.stderr).to.include('exit 1');
    });
    for (const code of [2, 255, 3]) {
      it(`E3 ${code === 3 ? 'an undocumented code' : code === 2 ? 'a failure (2)' : 'an error (255)'} stops the phase with that code before anything is migrated`, () => {
        const r = runScript(renderExpandScript(), scenario(code));
        expect(r.status).to.equal(code);
        expect(r.verbs).to.deep.equal(['nova-status upgrade check']);
      });
    }
    it('E4 a failed api_db sync stops before db sync', () => {
      const r = runScript(renderExpandScript(), scenario(0, { 'nova-manage api_db sync': [{ rc: 1 }] }));
      expect(r.status).to.equal(1);
      expect(r.verbs).to.deep.equal(['nova-status upgrade check', 'nova-manage api_db sync']);
    });
    it('E5 a failed db sync fails the phase', () => {
      expect(runScript(renderExpandScript(), scenario(0, { 'nova-manage db sync': [{ rc: 1 }] })).status).to.equal(1);
    });
  });

  describe('migrate', () => {
    it('M1 the phase is one cell_v2 list_cells', () => {
      const r = runScript(renderMigrateScript(), { 'nova-manage cell_v2 list_cells': [{ out: cellsTable([cell0Row, cell1Row]) }] });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.calls.map(argsAfterConfig)).to.deep.equal([['cell_v2', 'list_cells']]);
    });
    it('M2 a listing the new code cannot make fails the phase', () => {
      expect(runScript(renderMigrateScript(), { 'nova-manage cell_v2 list_cells': [{ rc: 1 }] }).status).to.equal(1);
    });
  });

  describe('contract', () => {
    const CELL_DB = 'mysql+pymysql://nova:pw@db/nova';
    const CELL0_DB = 'mysql+pymysql://nova:pw@db/nova_cell0';
    const env = { OS_DATABASE__CONNECTION: CELL_DB, NOVA_CELL0_DATABASE_CONNECTION: CELL0_DB };
    const contract = (codes: number[], script = renderContractScript()): Run =>
      runScript(script, { 'nova-manage db online_data_migrations': codes.map((rc) => ({ rc })) }, { env });
    const passes = (r: Run): string[] => r.calls.map((c) => (c.dbConnection === CELL0_DB ? 'cell0' : c.dbConnection === CELL_DB ? 'cell' : `? ${c.dbConnection}`));

    it('C1 loops on 1 and stops on 0, first the cell schema, then cell0 through the cell0 connection', () => {
      const r = contract([1, 1, 0, 1, 0]);
      expect(r.status, r.stderr).to.equal(0);
      expect(passes(r)).to.deep.equal(['cell', 'cell', 'cell', 'cell0', 'cell0']);
    });
    it('C2 every round is online_data_migrations --max-count 1000', () => {
      const r = contract([1, 0, 0]);
      for (const c of r.calls) expect(argsAfterConfig(c)).to.deep.equal(['db', 'online_data_migrations', '--max-count', '1000']);
    });
    it('C3 a 0 on the first round is a done pass: one round per schema', () => {
      const r = contract([0]);
      expect(r.status, r.stderr).to.equal(0);
      expect(passes(r)).to.deep.equal(['cell', 'cell0']);
    });
    it('C4 a 2 in the cell-schema pass fails with 2 and cell0 is not attempted', () => {
      const r = contract([1, 2]);
      expect(r.status).to.equal(2);
      expect(passes(r)).to.deep.equal(['cell', 'cell']);
    });
    it('C5 a 2 in the cell0 pass fails the script with 2', () => {
      const r = contract([0, 1, 2]);
      expect(r.status).to.equal(2);
      expect(passes(r)).to.deep.equal(['cell', 'cell0', 'cell0']);
    });
    it('C6 invalid input (127) stops with 127', () => {
      const r = contract([127]);
      expect(r.status).to.equal(127);
      expect(r.calls).to.have.length(1);
    });
    it('C7 any other code stops with that code', () => {
      const r = contract([1, 5]);
      expect(r.status).to.equal(5);
      expect(r.calls).to.have.length(2);
    });
    it('C8 a persistent 1 is bounded: after maxRounds rounds the pass fails with 75 and says so', () => {
      const r = contract([1], renderContractScript({ maxRounds: 4 }));
      expect(r.status).to.equal(CONTRACT_ROUNDS_EXHAUSTED_EXIT);
      expect(passes(r)).to.deep.equal(['cell', 'cell', 'cell', 'cell']);
      expect(r.stderr).to.include('still migrating after 4 rounds');
    });
    it('C8 the bound counts per pass: cell0 gets its own rounds', () => {
      const r = contract([1, 1, 0, 1, 1, 0], renderContractScript({ maxRounds: 3 }));
      expect(r.status, r.stderr).to.equal(0);
      expect(passes(r)).to.deep.equal(['cell', 'cell', 'cell', 'cell0', 'cell0', 'cell0']);
    });
    it('C8 the default bound is 1000 rounds', () => {
      expect(renderContractScript()).to.equal(renderContractScript({ maxRounds: 1000 }));
      expect(() => renderContractScript({ maxRounds: 0 })).to.throw(RangeError);
    });
    it('C9 a missing NOVA_CELL0_DATABASE_CONNECTION fails before the first round', () => {
      const r = runScript(renderContractScript(), { 'nova-manage db online_data_migrations': [{}] }, { env: { OS_DATABASE__CONNECTION: CELL_DB } });
      expect(r.status).to.not.equal(0);
      expect(r.calls).to.have.length(0);
      expect(r.stderr).to.include('NOVA_CELL0_DATABASE_CONNECTION');
    });
  });

  describe('archive', () => {
    const archive = (answers: Answer[], env: Record<string, string> = archiveEnvRecord()): Run =>
      runScript(renderArchiveScript(), { 'nova-manage db archive_deleted_rows': answers }, { env });
    const batches = (r: Run): Call[] => callsOf(r, 'nova-manage db archive_deleted_rows');

    it('A1 loops on 1 with the pause between batches and stops on 0 (1,1,0 → exit 0)', () => {
      const r = archive([{ rc: 1 }, { rc: 1 }, { rc: 0 }], archiveEnvRecord({ sleepSeconds: 7 }));
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(3);
      expect(r.sleeps).to.deep.equal(['7', '7']);
    });
    it('A2 a first 0 is one batch and no pause', () => {
      const r = archive([{ rc: 0 }]);
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(1);
      expect(r.sleeps).to.deep.equal([]);
    });
    it('A3 a failed batch stops the loop and fails the Job with its code (1,2 → 2)', () => {
      const r = archive([{ rc: 1 }, { rc: 2 }, { rc: 0 }]);
      expect(r.status).to.equal(2);
      expect(batches(r)).to.have.length(2);
    });
    for (const code of [3, 4, 9]) {
      it(`A3 exit ${code} stops the loop at once and fails with ${code}`, () => {
        const r = archive([{ rc: code }, { rc: 0 }]);
        expect(r.status).to.equal(code);
        expect(batches(r)).to.have.length(1);
        expect(r.sleeps).to.deep.equal([]);
      });
    }
    it('A4 no window: the batch is exactly --all-cells --max_rows "$MAX_ROWS", no empty argument, no --before/--task-log', () => {
      const r = archive([{ rc: 0 }], archiveEnvRecord({ maxRows: 250 }));
      expect(argsAfterConfig(batches(r)[0]!)).to.deep.equal(['db', 'archive_deleted_rows', '--all-cells', '--max_rows', '250']);
    });
    it('A4 an empty RETENTION_DAYS is no window', () => {
      const r = archive([{ rc: 0 }], { ...archiveEnvRecord(), RETENTION_DAYS: '' });
      expect(argsAfterConfig(batches(r)[0]!)).to.deep.equal(['db', 'archive_deleted_rows', '--all-cells', '--max_rows', '1000']);
    });
    it('A5 with RETENTION_DAYS every batch carries --before <YYYY-MM-DD> --task-log as separate words, the date that many days back (UTC)', () => {
      const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
      const before = day(Date.now() - 30 * 86_400_000);
      const r = archive([{ rc: 1 }, { rc: 0 }], archiveEnvRecord({ retentionDays: 30 }));
      const after = day(Date.now() - 30 * 86_400_000);
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(2);
      for (const c of batches(r)) {
        const args = argsAfterConfig(c);
        expect(args.slice(0, 5)).to.deep.equal(['db', 'archive_deleted_rows', '--all-cells', '--max_rows', '1000']);
        expect(args).to.have.length(8);
        expect(args[5]).to.equal('--before');
        expect(args[6]).to.match(/^\d{4}-\d{2}-\d{2}$/).and.to.be.oneOf([before, after]);
        expect(args[7]).to.equal('--task-log');
      }
    });
    it('A5 a RETENTION_DAYS that is not a whole number fails before any batch', () => {
      const r = archive([{ rc: 0 }], { ...archiveEnvRecord(), RETENTION_DAYS: '30; echo' });
      expect(r.status).to.equal(4);
      expect(batches(r)).to.have.length(0);
    });
    it('A6 never --purge, never --until-complete, whatever the window', () => {
      for (const env of [archiveEnvRecord(), archiveEnvRecord({ retentionDays: 0 })]) {
        const r = archive([{ rc: 1 }, { rc: 0 }], env);
        expect(batches(r)).to.have.length(2);
        for (const c of batches(r)) for (const flag of ['--purge', '--until-complete']) expect(c.args).to.not.include(flag);
      }
    });
    it('A7 the budget: no batch starts once 3000 s are spent (batches of 1000 s → exactly 3), and a last 1 is success', () => {
      const r = archive([{ rc: 1, secs: 1000 }]);
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(3);
      expect(r.stderr).to.include('budget');
    });
    it('A7 a batch still starts just inside the budget (batches of 999 s → 4)', () => {
      const r = archive([{ rc: 1, secs: 999 }]);
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(4);
    });
    it('A7 the pause counts against the budget: no batch starts after a pause that spent it', () => {
      // 0–1000 batch, pause to 1500, 1500–2500 batch, pause to 3000: spent, so no third batch.
      const r = archive([{ rc: 1, secs: 1000 }], archiveEnvRecord({ sleepSeconds: 500 }));
      expect(r.status, r.stderr).to.equal(0);
      expect(batches(r)).to.have.length(2);
      expect(r.sleeps).to.deep.equal(['500', '500']);
    });
    it('A7 no pause is taken once the budget is spent', () => {
      const r = archive([{ rc: 1, secs: 3000 }], archiveEnvRecord({ sleepSeconds: 5 }));
      expect(batches(r)).to.have.length(1);
      expect(r.sleeps).to.deep.equal([]);
    });
    it('A7 a failure in the last batch before the budget still fails the Job', () => {
      const r = archive([{ rc: 1, secs: 1000 }, { rc: 1, secs: 1000 }, { rc: 3, secs: 1000 }]);
      expect(r.status).to.equal(3);
      expect(batches(r)).to.have.length(3);
    });
    it('A8 the budget stops new batches ten minutes before the active deadline', () => {
      expect(ARCHIVE_BUDGET_SECONDS).to.equal(3000);
      expect(ARCHIVE_ACTIVE_DEADLINE_SECONDS - ARCHIVE_BUDGET_SECONDS).to.equal(600);
    });
    it('A9 MAX_ROWS and SLEEP are required', () => {
      for (const drop of ['MAX_ROWS', 'SLEEP']) {
        const env = archiveEnvRecord();
        delete env[drop];
        const r = archive([{ rc: 0 }], env);
        expect(r.status, drop).to.not.equal(0);
        expect(batches(r)).to.have.length(0);
        expect(r.stderr).to.include(drop);
      }
    });
  });

  describe('archiveEnv', () => {
    it('defaults to 1000 rows per batch, no pause, and no window', () => {
      expect(archiveEnv()).to.deep.equal([{ name: 'MAX_ROWS', value: '1000' }, { name: 'SLEEP', value: '0' }]);
    });
    it('sets RETENTION_DAYS only when a window is given (0 days is a window)', () => {
      expect(archiveEnv({ maxRows: 50, sleepSeconds: 2, retentionDays: 0 })).to.deep.equal([
        { name: 'MAX_ROWS', value: '50' },
        { name: 'SLEEP', value: '2' },
        { name: 'RETENTION_DAYS', value: '0' },
      ]);
    });
    it('refuses values nova-manage or the script would reject at run time', () => {
      expect(() => archiveEnv({ maxRows: 0 })).to.throw(RangeError);
      expect(() => archiveEnv({ maxRows: 1.5 })).to.throw(RangeError);
      expect(() => archiveEnv({ sleepSeconds: -1 })).to.throw(RangeError);
      expect(() => archiveEnv({ retentionDays: -3 })).to.throw(RangeError);
    });
  });

  describe('exit-code tables', () => {
    it('nova-status upgrade check: 0 and 1 go on, 2 and 255 and anything else stop', () => {
      expect([0, 1, 2, 255, 7].map((c) => actionFor(UPGRADE_CHECK_CODES, c))).to.deep.equal(['proceed', 'proceed', 'fail', 'fail', 'fail']);
    });
    it('online_data_migrations: 0 done, 1 again, 2 and 127 and anything else stop', () => {
      expect([0, 1, 2, 127, 3].map((c) => actionFor(ONLINE_DATA_MIGRATIONS_CODES, c))).to.deep.equal(['proceed', 'again', 'fail', 'fail', 'fail']);
    });
    it('archive_deleted_rows: 0 done, 1 again, 2, 3, 4 and anything else stop', () => {
      expect([0, 1, 2, 3, 4, 5].map((c) => actionFor(ARCHIVE_DELETED_ROWS_CODES, c))).to.deep.equal(['proceed', 'again', 'fail', 'fail', 'fail', 'fail']);
    });
    it('every documented code has a case arm in the script that reads it', () => {
      for (const [table, script] of [[UPGRADE_CHECK_CODES, renderExpandScript()], [ONLINE_DATA_MIGRATIONS_CODES, renderContractScript()], [ARCHIVE_DELETED_ROWS_CODES, renderArchiveScript()]] as const) {
        for (const c of table.codes) expect(script, `${table.command} ${c.code}`).to.match(new RegExp(`^\\s+${c.code}\\) `, 'm'));
      }
    });
  });
});

/** archiveEnv as a plain env record for the runner. */
function archiveEnvRecord(options: Parameters<typeof archiveEnv>[0] = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of archiveEnv(options)) if ('value' in e) out[e.name] = e.value;
  return out;
}
