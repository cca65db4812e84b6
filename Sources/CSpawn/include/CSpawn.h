#ifndef HERALD_CSPAWN_H
#define HERALD_CSPAWN_H

#include <spawn.h>

/// glibc's posix_spawn extensions, which Swift's Glibc module does not show (they need _GNU_SOURCE).
int cspawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);

#endif
