// Loads sd-bus from libsystemd at run time (include/CSystemd.h says why).
#include "CSystemd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct herald_sd_bus_table herald_sd_bus;

static pthread_mutex_t herald_systemd_lock = PTHREAD_MUTEX_INITIALIZER;
static int herald_systemd_loaded = 0;

int herald_systemd_load(const char *library, char *reason, size_t reason_size) {
    pthread_mutex_lock(&herald_systemd_lock);
    if (herald_systemd_loaded) {
        pthread_mutex_unlock(&herald_systemd_lock);
        return 0;
    }
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *error = dlerror();
        snprintf(reason, reason_size, "%s", error ? error : "dlopen failed");
        pthread_mutex_unlock(&herald_systemd_lock);
        return -1;
    }
    struct herald_sd_bus_table table;
    const char *missing = NULL;
#define HERALD_SD_BUS_RESOLVE(type, name, parameters, arguments) \
    if (missing == NULL) { \
        *(void **)(&table.name) = dlsym(handle, #name); \
        if (table.name == NULL) missing = #name; \
    }
    HERALD_SD_BUS_FUNCTIONS(HERALD_SD_BUS_RESOLVE)
#undef HERALD_SD_BUS_RESOLVE
    if (missing != NULL) {
        snprintf(reason, reason_size, "%s has no %s", library, missing);
        dlclose(handle);
        pthread_mutex_unlock(&herald_systemd_lock);
        return -1;
    }
    herald_sd_bus = table;
    herald_systemd_loaded = 1;
    pthread_mutex_unlock(&herald_systemd_lock);
    return 0;
}
