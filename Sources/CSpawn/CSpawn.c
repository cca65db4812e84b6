// glibc's posix_spawn extensions that Swift's Glibc module hides: ChildProcess starts every program through them.
//
// Why not swiftlang/swift-subprocess (1.0.2, in the package mirror)? Checked on 2026-11-24: on Linux it also spawns
// with posix_spawn and posix_spawn_file_actions_addclosefrom_np, has a process group and a working directory, and
// does not go through Foundation's Process.run() (swift-corelibs-foundation#5472), so it would do. But its API runs a
// process inside a closure and returns when it ends, while the daemon keeps the apps it launches beyond any call and
// the extension runner gives its process a socket for standard input, reads its output on a thread of its own with a
// cap, and kills its group on its own deadline: ChildProcess would be rebuilt on top of it, and every build of
// HeraldDevice would compile swift-system and a second C shim, for these two calls.
#define _GNU_SOURCE
#include "CSpawn.h"

int cspawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
