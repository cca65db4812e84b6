// SQLite's process-wide settings. sqlite3_config is variadic, which Swift cannot call; it is declared here rather than
// taken from sqlite3.h so that this target needs no header beyond the toolchain's.
#include "CSQLiteSettings.h"

int sqlite3_config(int option, ...);

enum { configMemoryStatistics = 9 };  // SQLITE_CONFIG_MEMSTATUS

int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(configMemoryStatistics, 0);
}
