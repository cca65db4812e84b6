#ifndef HERALD_CSQLITESETTINGS_H
#define HERALD_CSQLITESETTINGS_H

/// Stops SQLite's memory statistics for the whole process: 0, or SQLITE_MISUSE (21), changing nothing, once SQLite has
/// been used in the process.
int csqlite_disable_memory_statistics(void);

#endif
