set testdir [file dirname $argv0]
source $testdir/tester.tcl
set testprefix sync
set ::timeout 60000

do_execsql_test 1.0 {
  CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT NOT NULL);
  INSERT INTO t1 VALUES(1, 'one'), (2, 'two');
  SELECT b FROM t1 ORDER BY a DESC;
} {two one}

ifcapable wal {
do_catchsql_test 1.1 {
  PRAGMA journal_mode = WAL;
} {0 {wal}}

}

do_catchsql_test 1.2 {
  INSERT INTO t1 VALUES(1, 'uno');
} {1 {UNIQUE constraint failed: t1.a}}

finish_test
