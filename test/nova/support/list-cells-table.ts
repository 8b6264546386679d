/**
 * What a scripted nova-manage prints for `cell_v2 list_cells`: the real command's table, with cell0 and cell1 rows
 * only once the script's state directory has the files `cell0` / `cell1` (written by its `map_cell0` / `create_cell`).
 * Shell lines for the scripted nova-manage of test/e2e/nova.e2e.test.ts and the chaos suite's stand-in.
 */
export const SCRIPTED_CELL1 = '5d3b0a52-3a6e-4c55-9d0e-2f1b6c7a8e91';

export const listCellsTableShell = (state: string, indent = '    '): string =>
  [
    "echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'",
    "echo '|  Name |                 UUID                 | Transport URL |           Database Connection            | Disabled |'",
    "echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'",
    `[ -f ${state}/cell0 ] && echo '| cell0 | 00000000-0000-0000-0000-000000000000 |     none:/    | mysql+pymysql://u:****@db:3306/nova_cell0 |  False   |'`,
    `[ -f ${state}/cell1 ] && echo '| cell1 | ${SCRIPTED_CELL1} | rabbit://g:****@mq:5672/ | mysql+pymysql://u:****@db:3306/nova?charset=utf8 |  False   |'`,
    "echo '+-------+--------------------------------------+---------------+------------------------------------------+----------+'",
  ]
    .map((line) => `${indent}${line}`)
    .join('\n');
