#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call: whether closing the last connection
// checkpoints the write-ahead log into the database file (not for a file found damaged).
static inline int csqlite_set_checkpoint_on_close(sqlite3 *db, int enabled) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}

#include <sys/stat.h>

// The unix VFS, except that a database's write-ahead log that exists and holds a header is
// opened without SQLITE_OPEN_CREATE. SQLite flushes the directory of a log it opens with that
// flag once per connection, at its first commit, in case the log was just created: a flush of
// the data directory or the state directory in every process that saves (0.2 ms here). A log
// with a header was written by a connection whose first commit flushed its directory then; a
// log truncated to nothing at a checkpoint, or created by a reader, is opened as SQLite does.
// What is left: a first writer killed between writing a log and flushing it, and a power cut
// before the file system next commits its journal (on ext4 within seconds, or at the next fsync
// of any file on it), could lose the log's name and the later commits in it.
// Every other call is the unix VFS's own.
static int csqlite_existing_log_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file,
                                     int flags, int *outFlags) {
  // The unix VFS's own open, given this VFS (a copy of it, with its data) as its own.
  int (*unixOpen)(sqlite3_vfs *, sqlite3_filename, sqlite3_file *, int, int *) =
      sqlite3_vfs_find("unix")->xOpen;
  struct stat status;
  if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) && name != 0
      && lstat(name, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0) {
    int rc = unixOpen(vfs, name, file, flags & ~SQLITE_OPEN_CREATE, outFlags);
    // Removed meanwhile (another program's connection closing as the last): created as usual.
    if (rc != SQLITE_CANTOPEN) return rc;
  }
  return unixOpen(vfs, name, file, flags, outFlags);
}

// Registers that VFS (not as the default) as "unix-existing-log", once per process: call it
// from one place only.
static inline int csqlite_register_existing_log_vfs(void) {
  static sqlite3_vfs vfs;
  sqlite3_vfs *unixVfs = sqlite3_vfs_find("unix");
  if (unixVfs == 0) return SQLITE_ERROR;
  vfs = *unixVfs;
  vfs.zName = "unix-existing-log";
  vfs.pNext = 0;
  vfs.xOpen = csqlite_existing_log_open;
  return sqlite3_vfs_register(&vfs, 0);
}
