/**
 * Reads a MySQL dump (the Spider databases InterCode SQL ran on) into SQLite statements, one
 * database at a time, keeping what MySQL's `DESCRIBE` would show. Only the subset mysqldump
 * writes: CREATE TABLE and INSERT; session settings, locks and comments are dropped.
 */
export interface ColumnInfo {
  field: string;
  /** MySQL's column type as declared, e.g. `int`, `varchar(255)`, `float(10,2)`. */
  type: string;
  nullable: boolean;
  key: '' | 'PRI' | 'UNI' | 'MUL';
  /** The DEFAULT literal without quotes; null for none or NULL. */
  defaultValue: string | null;
  extra: string;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
}

export interface DumpDatabase {
  name: string;
  tables: TableInfo[];
  /** SQLite statements that create and fill the database, in dump order. */
  statements: string[];
}

/** Splits on `;` at line ends outside quotes (mysqldump puts one statement per line group). */
function statementsOf(text: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '-' && text.startsWith('-- ', i) && (i === 0 || text.charAt(i - 1) === '\n')) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === ';') {
      statements.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const rest = text.slice(start).trim();
  if (rest !== '') statements.push(rest);
  return statements.filter((statement) => statement !== '');
}

/** MySQL string escapes (`\'`, `\\`, `\n`…) rewritten as SQLite literals (`''`). */
function sqliteLiterals(statement: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < statement.length; i++) {
    const c = statement.charAt(i);
    if (!inString) {
      if (c === "'") inString = true;
      out += c;
      continue;
    }
    if (c === '\\') {
      const next = statement.charAt(++i);
      const escaped: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '0': '\u0000',
        "'": "''",
        '"': '"',
        '\\': '\\',
      };
      out += escaped[next] ?? next;
    } else if (c === "'") {
      if (statement.charAt(i + 1) === "'") {
        out += "''";
        i++;
      } else {
        inString = false;
        out += c;
      }
    } else out += c;
  }
  return out;
}

const TEXT_TYPE = /^(var)?char|text|enum|set/i;

function createTable(statement: string): { table: TableInfo; sqlite: string } | null {
  const head = /^CREATE TABLE `([^`]+)` \(/.exec(statement);
  if (head?.[1] === undefined) return null;
  const body = statement.slice(head[0].length, statement.lastIndexOf(')'));
  const lines = body
    .split('\n')
    .map((line) => line.trim().replace(/,$/, ''))
    .filter((line) => line !== '');
  const columns: ColumnInfo[] = [];
  const keep: string[] = [];
  const primary: string[] = [];
  for (const line of lines) {
    const column = /^`([^`]+)` (\S+)(.*)$/.exec(line);
    if (column !== null) {
      const [, field = '', type = '', rest = ''] = column;
      const defaultMatch = /DEFAULT (NULL|'((?:[^'\\]|\\.)*)'|\S+)/.exec(rest);
      const rawDefault = defaultMatch?.[1];
      columns.push({
        field,
        type,
        nullable: !/NOT NULL/.test(rest),
        key: '',
        defaultValue:
          rawDefault === undefined || rawDefault === 'NULL'
            ? null
            : (defaultMatch?.[2] ?? rawDefault),
        extra: /AUTO_INCREMENT/.test(rest) ? 'auto_increment' : '',
      });
      // MySQL compares text case-insensitively under its default collation; SQLite's NOCASE does
      // the same for ASCII, which is what Spider holds.
      const collate = TEXT_TYPE.test(type) ? ' COLLATE NOCASE' : '';
      const cleaned = rest
        .replace(/ COLLATE \w+| CHARACTER SET \w+| AUTO_INCREMENT| unsigned| zerofill/gi, '')
        .replace(/ ON UPDATE CURRENT_TIMESTAMP/i, '');
      keep.push(`\`${field}\` ${type.replace(/^enum\(.*\)$/i, 'text')}${collate}${cleaned}`);
      continue;
    }
    const primaryKey = /^PRIMARY KEY \((.*)\)$/.exec(line);
    if (primaryKey?.[1] !== undefined) {
      primary.push(
        ...primaryKey[1].split(',').map((part) => part.replace(/`|\(\d+\)/g, '').trim()),
      );
      // MySQL index prefix lengths (`col`(255)) are not SQL SQLite reads.
      keep.push(line.replace(/`\(\d+\)/g, '`'));
      continue;
    }
    const key = /^(UNIQUE )?KEY `[^`]*` \((.*)\)$/.exec(line);
    if (key?.[2] !== undefined) {
      const first = key[2]
        .split(',')[0]
        ?.replace(/`|\(\d+\)/g, '')
        .trim();
      const info = columns.find((c) => c.field === first);
      if (info !== undefined && info.key === '') info.key = key[1] === undefined ? 'MUL' : 'UNI';
      continue;
    }
    if (line.startsWith('CONSTRAINT')) {
      // FOREIGN KEY columns show as MUL in DESCRIBE (MySQL indexes them); SQLite keeps the clause.
      keep.push(line);
    }
  }
  for (const field of primary) {
    const info = columns.find((c) => c.field === field);
    if (info !== undefined) info.key = 'PRI';
  }
  return {
    table: { name: head[1], columns },
    sqlite: `CREATE TABLE \`${head[1]}\` (\n  ${keep.join(',\n  ')}\n)`,
  };
}

export function parseMysqlDump(text: string): DumpDatabase[] {
  const databases: DumpDatabase[] = [];
  let current: DumpDatabase | null = null;
  for (const raw of statementsOf(text)) {
    const statement = raw.replace(/\/\*![\s\S]*?\*\//g, '').trim();
    const use = /^USE `([^`]+)`$/.exec(statement);
    if (use?.[1] !== undefined) {
      current = { name: use[1], tables: [], statements: [] };
      databases.push(current);
      continue;
    }
    if (current === null) continue;
    if (statement.startsWith('CREATE TABLE')) {
      const created = createTable(statement);
      if (created !== null) {
        current.tables.push(created.table);
        current.statements.push(created.sqlite);
      }
    } else if (statement.startsWith('INSERT INTO')) {
      current.statements.push(sqliteLiterals(statement));
    }
  }
  return databases;
}
