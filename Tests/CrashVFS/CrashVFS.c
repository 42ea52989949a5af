// A test-only SQLite VFS that records writes and syncs, can lose or tear unsynced writes as a power loss would,
// and can fail chosen writes, syncs and truncates. See include/CrashVFS.h.
//
// It wraps the default VFS as SQLite's own test shims do: "The VFS object ... new VFSes can be registered and
// existing VFSes can be unregistered ... a shim that sits in the middle and passes calls through"
// https://www.sqlite.org/vfs.html
#include "CrashVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Tearing keeps or loses unsynced data in units of this many bytes: the smallest sector a disk writes whole.
#define CRASHVFS_SECTOR 512

typedef struct Pending {
    int isTruncate;
    sqlite3_int64 offset;  // the write's offset, or the truncated size
    int amount;
    unsigned char *data;
    struct Pending *next;
} Pending;

typedef struct Buffer {
    unsigned char *bytes;
    sqlite3_int64 size;
    sqlite3_int64 capacity;
} Buffer;

// One database, journal or WAL file, by path: what it held at its last sync, and the writes since.
typedef struct Record {
    char *path;
    Buffer durable;
    Pending *head;
    Pending *tail;
    Buffer image;  // the file as the crash left it
    struct Record *next;
} Record;

typedef struct CrashFile {
    sqlite3_file base;
    Record *record;  // NULL for files that are not recorded (temporary files)
    sqlite3_file *real;
} CrashFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *realVFS;
static sqlite3_vfs crashVFS;
static sqlite3_io_methods crashMethods;
static Record *records;
static int counts[3];
static int failKind = -1, failAt, failPersistent, failCode, failures;
static int crashAt, crashTear, crashed, syncsSinceArm;
static unsigned long long randomState;

static unsigned long long nextRandom(void) {
    unsigned long long z = (randomState += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// MARK: - Images

static int bufferWrite(Buffer *buffer, sqlite3_int64 offset, const void *data, int amount) {
    if (amount <= 0) return SQLITE_OK;
    sqlite3_int64 end = offset + amount;
    if (end > buffer->capacity) {
        sqlite3_int64 capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < end) capacity *= 2;
        unsigned char *bytes = realloc(buffer->bytes, (size_t)capacity);
        if (!bytes) return SQLITE_NOMEM;
        buffer->bytes = bytes;
        buffer->capacity = capacity;
    }
    if (offset > buffer->size) memset(buffer->bytes + buffer->size, 0, (size_t)(offset - buffer->size));
    memcpy(buffer->bytes + offset, data, (size_t)amount);
    if (end > buffer->size) buffer->size = end;
    return SQLITE_OK;
}

static void bufferTruncate(Buffer *buffer, sqlite3_int64 size) {
    if (size < buffer->size) buffer->size = size;
}

static void freePending(Record *record) {
    Pending *pending = record->head;
    while (pending) {
        Pending *next = pending->next;
        free(pending->data);
        free(pending);
        pending = next;
    }
    record->head = record->tail = NULL;
}

static void freeRecord(Record *record) {
    freePending(record);
    free(record->durable.bytes);
    free(record->image.bytes);
    free(record->path);
    free(record);
}

static void addPending(Record *record, int isTruncate, sqlite3_int64 offset, const void *data, int amount) {
    Pending *pending = calloc(1, sizeof(Pending));
    if (!pending) return;
    pending->isTruncate = isTruncate;
    pending->offset = offset;
    pending->amount = amount;
    if (amount > 0) {
        pending->data = malloc((size_t)amount);
        if (!pending->data) {
            free(pending);
            return;
        }
        memcpy(pending->data, data, (size_t)amount);
    }
    if (record->tail) record->tail->next = pending; else record->head = pending;
    record->tail = pending;
}

// The file as a power loss now would leave it: the durable image, and with tearing each unsynced sector (and
// truncate) kept or lost at random, in the order they were made.
static void takeImage(Record *record) {
    record->image.size = 0;
    bufferWrite(&record->image, 0, record->durable.bytes, (int)record->durable.size);
    if (!crashTear) return;
    for (Pending *pending = record->head; pending; pending = pending->next) {
        if (pending->isTruncate) {
            if (nextRandom() & 1) bufferTruncate(&record->image, pending->offset);
            continue;
        }
        sqlite3_int64 start = pending->offset;
        sqlite3_int64 end = pending->offset + pending->amount;
        while (start < end) {
            sqlite3_int64 boundary = (start / CRASHVFS_SECTOR + 1) * CRASHVFS_SECTOR;
            sqlite3_int64 stop = boundary < end ? boundary : end;
            if (nextRandom() & 1) {
                bufferWrite(&record->image, start, pending->data + (start - pending->offset), (int)(stop - start));
            }
            start = stop;
        }
    }
}

static void crashNow(void) {
    for (Record *record = records; record; record = record->next) takeImage(record);
    crashed = 1;
}

// Whether the next operation of `kind` must fail, counting it; sets *code.
static int injectFault(int kind, int *code) {
    int number = ++counts[kind];
    if (kind != failKind || failAt <= 0) return 0;
    if (number == failAt || (failPersistent && number > failAt)) {
        *code = failCode;
        failures++;
        return 1;
    }
    return 0;
}

// MARK: - File methods

static int crashClose(sqlite3_file *file) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xClose(self->real);
}

static int crashRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xRead(self->real, buffer, amount, offset);
}

static int crashWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    CrashFile *self = (CrashFile *)file;
    int code = SQLITE_OK;
    pthread_mutex_lock(&lock);
    int fail = injectFault(CRASHVFS_WRITE, &code) || (crashed && (code = SQLITE_IOERR_WRITE));
    pthread_mutex_unlock(&lock);
    if (fail) return code;
    int rc = self->real->pMethods->xWrite(self->real, data, amount, offset);
    if (rc == SQLITE_OK && self->record) {
        pthread_mutex_lock(&lock);
        addPending(self->record, 0, offset, data, amount);
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

static int crashTruncate(sqlite3_file *file, sqlite3_int64 size) {
    CrashFile *self = (CrashFile *)file;
    int code = SQLITE_OK;
    pthread_mutex_lock(&lock);
    int fail = injectFault(CRASHVFS_TRUNCATE, &code) || (crashed && (code = SQLITE_IOERR_TRUNCATE));
    pthread_mutex_unlock(&lock);
    if (fail) return code;
    int rc = self->real->pMethods->xTruncate(self->real, size);
    if (rc == SQLITE_OK && self->record) {
        pthread_mutex_lock(&lock);
        addPending(self->record, 1, size, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

static int crashSync(sqlite3_file *file, int flags) {
    CrashFile *self = (CrashFile *)file;
    int code = SQLITE_OK;
    pthread_mutex_lock(&lock);
    int fail = injectFault(CRASHVFS_SYNC, &code);
    if (!fail && !crashed && crashAt > 0 && ++syncsSinceArm == crashAt) crashNow();
    if (!fail && crashed) {
        fail = 1;
        code = SQLITE_IOERR_FSYNC;
    }
    pthread_mutex_unlock(&lock);
    if (fail) return code;
    int rc = self->real->pMethods->xSync(self->real, flags);
    if (rc == SQLITE_OK && self->record) {
        pthread_mutex_lock(&lock);
        Record *record = self->record;
        for (Pending *pending = record->head; pending; pending = pending->next) {
            if (pending->isTruncate) bufferTruncate(&record->durable, pending->offset);
            else bufferWrite(&record->durable, pending->offset, pending->data, pending->amount);
        }
        freePending(record);
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

static int crashFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xFileSize(self->real, size);
}

static int crashLock(sqlite3_file *file, int level) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xLock(self->real, level);
}

static int crashUnlock(sqlite3_file *file, int level) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xUnlock(self->real, level);
}

static int crashCheckReservedLock(sqlite3_file *file, int *result) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xCheckReservedLock(self->real, result);
}

static int crashFileControl(sqlite3_file *file, int op, void *argument) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xFileControl(self->real, op, argument);
}

static int crashSectorSize(sqlite3_file *file) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xSectorSize(self->real);
}

static int crashDeviceCharacteristics(sqlite3_file *file) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xDeviceCharacteristics(self->real);
}

static int crashShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **pointer) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xShmMap(self->real, region, size, extend, pointer);
}

static int crashShmLock(sqlite3_file *file, int offset, int count, int flags) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xShmLock(self->real, offset, count, flags);
}

static void crashShmBarrier(sqlite3_file *file) {
    CrashFile *self = (CrashFile *)file;
    self->real->pMethods->xShmBarrier(self->real);
}

static int crashShmUnmap(sqlite3_file *file, int deleteFlag) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xShmUnmap(self->real, deleteFlag);
}

static int crashFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xFetch(self->real, offset, amount, pointer);
}

static int crashUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    CrashFile *self = (CrashFile *)file;
    return self->real->pMethods->xUnfetch(self->real, offset, pointer);
}

// MARK: - VFS methods

static Record *findRecord(const char *path, Record ***link) {
    Record **at = &records;
    while (*at && strcmp((*at)->path, path) != 0) at = &(*at)->next;
    if (link) *link = at;
    return *at;
}

static int crashOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    CrashFile *self = (CrashFile *)file;
    self->real = (sqlite3_file *)&self[1];
    self->record = NULL;
    int rc = realVFS->xOpen(realVFS, name, self->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        file->pMethods = NULL;
        return rc;
    }
    file->pMethods = &crashMethods;
    int recorded = flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL);
    if (!recorded || !name) return SQLITE_OK;
    pthread_mutex_lock(&lock);
    Record *record = findRecord(name, NULL);
    if (!record && (record = calloc(1, sizeof(Record))) && (record->path = strdup(name))) {
        // What the file holds when first opened is taken as durable: the tests flush it before.
        sqlite3_int64 size = 0;
        self->real->pMethods->xFileSize(self->real, &size);
        unsigned char *bytes = size > 0 ? malloc((size_t)size) : NULL;
        if (bytes && self->real->pMethods->xRead(self->real, bytes, (int)size, 0) == SQLITE_OK) {
            bufferWrite(&record->durable, 0, bytes, (int)size);
        }
        free(bytes);
        record->next = records;
        records = record;
    }
    self->record = record;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

static int crashDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    // After the crash the image is kept as it was taken; before it, a deleted file is gone for good.
    Record **link;
    Record *record = crashed ? NULL : findRecord(name, &link);
    if (record) {
        *link = record->next;
        freeRecord(record);
    }
    pthread_mutex_unlock(&lock);
    return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int crashAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, result);
}

static int crashFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, output);
}

static int crashRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVFS->xRandomness(realVFS, size, output);
}

static int crashSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVFS->xSleep(realVFS, microseconds);
}

static int crashCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return realVFS->xCurrentTime(realVFS, now);
}

static int crashGetLastError(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVFS->xGetLastError(realVFS, size, output);
}

static int crashCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return realVFS->xCurrentTimeInt64(realVFS, now);
}

// MARK: - Control

int crashvfs_register(void) {
    pthread_mutex_lock(&lock);
    int rc = SQLITE_OK;
    if (!realVFS) {
        sqlite3_vfs *base = sqlite3_vfs_find(NULL);
        if (!base || base->iVersion < 2) {
            rc = SQLITE_ERROR;
        } else {
            realVFS = base;
            crashVFS = (sqlite3_vfs){0};
            crashVFS.iVersion = 2;
            crashVFS.szOsFile = (int)sizeof(CrashFile) + base->szOsFile;
            crashVFS.mxPathname = base->mxPathname;
            crashVFS.zName = "marginalia-crash";
            crashVFS.xOpen = crashOpen;
            crashVFS.xDelete = crashDelete;
            crashVFS.xAccess = crashAccess;
            crashVFS.xFullPathname = crashFullPathname;
            crashVFS.xRandomness = crashRandomness;
            crashVFS.xSleep = crashSleep;
            crashVFS.xCurrentTime = crashCurrentTime;
            crashVFS.xGetLastError = crashGetLastError;
            crashVFS.xCurrentTimeInt64 = crashCurrentTimeInt64;
            crashMethods = (sqlite3_io_methods){
                .iVersion = 3, .xClose = crashClose, .xRead = crashRead, .xWrite = crashWrite,
                .xTruncate = crashTruncate, .xSync = crashSync, .xFileSize = crashFileSize, .xLock = crashLock,
                .xUnlock = crashUnlock, .xCheckReservedLock = crashCheckReservedLock,
                .xFileControl = crashFileControl, .xSectorSize = crashSectorSize,
                .xDeviceCharacteristics = crashDeviceCharacteristics, .xShmMap = crashShmMap,
                .xShmLock = crashShmLock, .xShmBarrier = crashShmBarrier, .xShmUnmap = crashShmUnmap,
                .xFetch = crashFetch, .xUnfetch = crashUnfetch,
            };
            rc = sqlite3_vfs_register(&crashVFS, 0);
            if (rc != SQLITE_OK) realVFS = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void crashvfs_reset(void) {
    pthread_mutex_lock(&lock);
    while (records) {
        Record *next = records->next;
        freeRecord(records);
        records = next;
    }
    memset(counts, 0, sizeof counts);
    failKind = -1;
    failAt = failPersistent = failCode = failures = 0;
    crashAt = crashTear = crashed = syncsSinceArm = 0;
    pthread_mutex_unlock(&lock);
}

void crashvfs_crash_at_sync(int n, int tear, unsigned long long seed) {
    pthread_mutex_lock(&lock);
    crashAt = n;
    crashTear = tear;
    randomState = seed;
    syncsSinceArm = 0;
    pthread_mutex_unlock(&lock);
}

int crashvfs_crashed(void) {
    pthread_mutex_lock(&lock);
    int result = crashed;
    pthread_mutex_unlock(&lock);
    return result;
}

int crashvfs_write_crash_image(const char *directory) {
    pthread_mutex_lock(&lock);
    int written = 0;
    for (Record *record = records; record; record = record->next) {
        Buffer *image = crashed ? &record->image : &record->durable;
        const char *slash = strrchr(record->path, '/');
        const char *base = slash ? slash + 1 : record->path;
        size_t length = strlen(directory) + strlen(base) + 2;
        char *path = malloc(length);
        if (!path) {
            written = -1;
            break;
        }
        snprintf(path, length, "%s/%s", directory, base);
        FILE *out = fopen(path, "wb");
        free(path);
        if (!out) {
            written = -1;
            break;
        }
        size_t size = (size_t)image->size;
        int ok = (size == 0 || fwrite(image->bytes, 1, size, out) == size);
        if (fclose(out) != 0 || !ok) {
            written = -1;
            break;
        }
        written++;
    }
    pthread_mutex_unlock(&lock);
    return written;
}

void crashvfs_fail(int kind, int n, int persistent, int code) {
    pthread_mutex_lock(&lock);
    failKind = n > 0 ? kind : -1;
    failAt = n > 0 ? counts[kind] + n : 0;
    failPersistent = persistent;
    failCode = code;
    pthread_mutex_unlock(&lock);
}

void crashvfs_stop_faults(void) {
    pthread_mutex_lock(&lock);
    failKind = -1;
    failAt = 0;
    pthread_mutex_unlock(&lock);
}

int crashvfs_count(int kind) {
    pthread_mutex_lock(&lock);
    int result = counts[kind];
    pthread_mutex_unlock(&lock);
    return result;
}

int crashvfs_failures(void) {
    pthread_mutex_lock(&lock);
    int result = failures;
    pthread_mutex_unlock(&lock);
    return result;
}
