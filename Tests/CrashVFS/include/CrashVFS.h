#ifndef MARGINALIA_CRASH_VFS_H
#define MARGINALIA_CRASH_VFS_H

#include <sqlite3.h>

// A test-only SQLite VFS, "marginalia-crash", that wraps the default (unix) VFS.
//
// Every write, truncate and sync of a database, journal or WAL file goes through to the real file, and is
// also recorded: the file's "durable" image is what it held at its last sync. The VFS can then
//   - crash at the Nth sync: that sync and all later writes fail, and the image a power loss would leave
//     behind (the durable images, plus a seeded random subset of the unsynced sectors when tearing) can be
//     written out as files for a fresh open to read;
//   - fail the Nth write, sync or truncate, once or from then on, with an I/O error or SQLITE_FULL.
// One set of state for the whole process: tests that use it must not run in parallel with each other.

/// Registers the VFS under the name "marginalia-crash" (not as the default). Returns an SQLite result code.
int crashvfs_register(void);

/// Forgets every recorded file, counter, crash point and fault.
void crashvfs_reset(void);

/// Crash at the `n`th sync from now (1-based; 0: never). With `tear`, each unsynced sector is kept or lost at
/// random from `seed`; without, every unsynced write is lost.
void crashvfs_crash_at_sync(int n, int tear, unsigned long long seed);

/// Whether the crash happened.
int crashvfs_crashed(void);

/// Writes the files as the crash left them (or, before any crash, as their durable images) into
/// `directory`, under their own base names. Returns the number of files written, or -1 on an error.
int crashvfs_write_crash_image(const char *directory);

/// The kinds of operation a fault can hit, and that are counted.
enum crashvfs_kind { CRASHVFS_WRITE = 0, CRASHVFS_SYNC = 1, CRASHVFS_TRUNCATE = 2 };

/// The result codes a fault can return (SQLite's, under names Swift can import).
enum crashvfs_code {
    CRASHVFS_IOERR_WRITE = SQLITE_IOERR_WRITE,
    CRASHVFS_IOERR_FSYNC = SQLITE_IOERR_FSYNC,
    CRASHVFS_IOERR_TRUNCATE = SQLITE_IOERR_TRUNCATE,
    CRASHVFS_FULL = SQLITE_FULL,
};

/// Fails the `n`th operation of `kind` from now (1-based) with `code` (an SQLite result code such as
/// SQLITE_IOERR_WRITE or SQLITE_FULL); with `persistent`, every later one of that kind too. 0 clears it.
void crashvfs_fail(int kind, int n, int persistent, int code);

/// Stops failing (the counters go on).
void crashvfs_stop_faults(void);

/// How many operations of `kind` were attempted since the last reset.
int crashvfs_count(int kind);

/// How many operations an injected fault failed since the last reset.
int crashvfs_failures(void);

#endif
