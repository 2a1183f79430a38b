import type { Action } from '@terrarium/schema';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { parseMysqlDump } from './mysql-dump';
import { isSqlHarnessStep } from './sql-sufficiency';
import { createSqlWorld } from './sql-world';

// A dump in mysqldump's shape, written for this test.
const DUMP = `CREATE DATABASE IF NOT EXISTS \`shop\` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;
USE \`shop\`;
DROP TABLE IF EXISTS \`Item\`;
CREATE TABLE \`Item\` (
  \`Item_ID\` int NOT NULL AUTO_INCREMENT,
  \`Name\` varchar(40) COLLATE utf8mb4_general_ci DEFAULT NULL,
  \`Price\` double DEFAULT NULL,
  PRIMARY KEY (\`Item_ID\`),
  KEY \`name_idx\` (\`Name\`(10))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES \`Item\` WRITE;
INSERT INTO \`Item\` VALUES (1,'Tea',2.5),(2,'O\\'Neil\\'s jam',4),(3,'milk',NULL);
UNLOCK TABLES;
`;

const sql = (command: string): Action => ({ type: 'command', command, interpreter: 'sql' });

describe('SQL world (sql.js) answering as InterCode MySQL did', () => {
  it('answers SHOW TABLES, DESCRIBE, queries and errors in the recorded shapes', async () => {
    const [database] = parseMysqlDump(DUMP);
    if (database === undefined) throw new Error('no database parsed');
    const world = createSqlWorld('shop', await initSqlJs(), database);
    const answers: string[] = [];
    for (const command of [
      'SHOW TABLES',
      'DESCRIBE Item',
      "SELECT Name, Price FROM Item WHERE name = 'TEA'",
      'SELECT Name FROM Item ORDER BY Item_ID',
      'SELECT nope FROM Item WHERE Item_ID = 1',
      'SELECT Name FROM Item WHERE nope = 1',
      'SELECT * FROM Items',
    ]) {
      answers.push((await world.step(sql(command))).observation.content);
    }
    expect(answers).toEqual([
      "[('item',)]",
      "[('Item_ID', b'int', 'NO', 'PRI', None, 'auto_increment'), ('Name', b'varchar(40)', 'YES', 'MUL', None, ''), ('Price', b'double', 'YES', '', None, '')]",
      "[('Tea', 2.5)]",
      `[('Tea',), ("O'Neil's jam",), ('milk',)]`,
      "Error executing query: Unknown column 'nope' in 'field list'",
      "Error executing query: Unknown column 'nope' in 'where clause'",
      "Error executing query: Table 'shop.items' doesn't exist",
    ]);
  });

  it('forks and snapshots keep database states apart', async () => {
    const [database] = parseMysqlDump(DUMP);
    if (database === undefined) throw new Error('no database parsed');
    const world = createSqlWorld('shop', await initSqlJs(), database);
    const snapshot = world.snapshot();
    const fork = world.fork();
    await fork.step(sql('DELETE FROM Item WHERE Item_ID = 1'));
    expect(world.query('SELECT COUNT(*) FROM Item').rows).toEqual([[3]]);
    expect(fork.query('SELECT COUNT(*) FROM Item').rows).toEqual([[2]]);
    await world.step(sql("UPDATE Item SET Name = 'x'"));
    world.restore(snapshot);
    expect(world.query('SELECT Name FROM Item WHERE Item_ID = 1').rows).toEqual([['Tea']]);
    expect(world.tables()).toEqual(['Item']);
  });
});

describe('SQL harness steps', () => {
  it("are InterCode's submit and its replies to actions it could not read as SQL", () => {
    const reminder = 'Format your SQL command as follows:\n```SQL\nYour SQL code here\n```\n';
    expect(isSqlHarnessStep('submit;', 'anything')).toBe(true);
    expect(isSqlHarnessStep('  SUBMIT ', 'anything')).toBe(true);
    expect(isSqlHarnessStep("Output: [('cat', 12.0)] Reward: 1", reminder)).toBe(true);
    expect(isSqlHarnessStep('SELECT submit FROM t', "[('x',)]")).toBe(false);
    expect(isSqlHarnessStep('DESC country;', "[('Code', b'char(3)')]")).toBe(false);
  });
});
