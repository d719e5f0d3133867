/*
** m1nd-cockpit's page-checksum layer for SQLite (MIT OR Apache-2.0, like
** the rest of the project).
**
** Why: a store whose bytes were damaged on disk (a torn write, a block
** overwritten by something else) must fail its read with an error that names
** the cause, never hand back a wrong answer. SQLite lets a database reserve
** bytes at the end of every page; this layer keeps a checksum of each page in
** its last 8 of them, writes it with the page and checks it on every read.
**
** What: a VFS shim registered as SQLite's default VFS, wrapping the VFS that
** was the default before. Every call goes to the wrapped VFS; only these
** differ, and only for main database files (journals, WAL and temporary files
** pass through untouched):
**
**   1. A page has a checksum iff the database header (page 1, byte 20, "bytes
**      of reserved space at the end of each page") says exactly 8. The layer
**      learns that value whenever the first bytes of page 1 are read or
**      written, and assumes no checksums until it has seen them. A change of
**      layout (VACUUM after SQLITE_FCNTL_RESERVE_BYTES) writes page 1 first,
**      as does the rollback of one (page 1 is the first page it journals), so
**      the layer knows the layout before it writes any other page of it.
**   2. Writing a whole page of a file with checksums writes a copy of the page
**      with the checksum in its last 8 bytes; the caller's buffer is never
**      changed. A whole page written past the end of the file first fills
**      the gap with zero pages carrying their checksums: SQLite may skip
**      writing a page (a page freed in the same transaction) while it writes
**      later ones, and read it back later; without the fill that read finds
**      a hole of zeros and no checksum, and fails (3) for a page that was
**      never damaged.
**   3. Reading a whole page of a file with checksums, with verification on,
**      recomputes the checksum after the read and fails the read with
**      SQLITE_IOERR_DATA when it does not match. Short reads (past the end of
**      the file, zero-filled) and partial-page reads (such as the 100-byte
**      header) are not checked.
**   4. `PRAGMA checksum_verification = ON|OFF` switches (3) for one connection
**      and answers the current value ("1" or "0").
**   5. The SQL function `verify_checksum(page)` answers 1 when a page-sized
**      blob matches its checksum, 0 when not, NULL for anything else; it is
**      added to every connection, so the checksum has one implementation.
**   6. Memory-mapped reads would bypass (3), so main database files offer no
**      mapping: SQLite reads them with xRead.
**
** The checksum is 64-bit FNV-1a over bytes [0, pagesize - 8) of the page,
** stored little-endian. It is chosen to catch accidental damage cheaply; it is
** not a MAC and does not stop deliberate edits by someone who can write the
** file, which the security model already leaves to file permissions.
**
** Everything here uses SQLite's public VFS API only; it is compiled by
** build.rs against the sqlite3.h of the SQLite that rusqlite bundles.
*/
#include <sqlite3.h>
#include <string.h>

/* Bytes at the end of each page that hold its checksum. */
#define PSUM_BYTES 8
/* Offset in the header of "reserved bytes per page". */
#define RESERVE_OFFSET 20
/* The registered name of this VFS. */
#define PSUM_VFS_NAME "m1nd-checksum"

/* The wrapped VFS of a VFS of ours. */
#define WRAPPED(p) ((sqlite3_vfs *)((p)->pAppData))

/* An open file: this struct, followed in the same allocation by the wrapped
** VFS's file. */
typedef struct PsumFile {
  sqlite3_file base;   /* Base class; must be first. */
  sqlite3_file *pReal; /* The wrapped VFS's file, right after this struct. */
  int isMainDb;        /* Opened with SQLITE_OPEN_MAIN_DB: the only kind checked. */
  int hasChecksums;    /* Page 1 last seen says 8 reserved bytes per page. */
  int verify;          /* Check pages on read (PRAGMA checksum_verification). */
} PsumFile;

/* sizeof(PsumFile) rounded up so the wrapped file after it is 8-aligned. */
#define PSUM_FILE_SIZE ((int)((sizeof(PsumFile) + 7) & ~(size_t)7))

/* ---------------------------------------------------------------- checksum */

/* One step of 64-bit FNV-1a. */
#define FNV1A_STEP(h, byte) ((h) = ((h) ^ (byte)) * 0x100000001b3ULL)

/* 64-bit FNV-1a of n bytes.
**
** Every page written or read runs through here, so it is the write path's
** largest cost. FNV-1a is one byte at a time by definition (each step
** multiplies the one before), so the loop takes eight bytes per turn: the
** same steps in the same order, with one loop test per eight bytes instead
** of per byte (every page size is a multiple of eight; the tail loop takes
** any other length). */
static sqlite3_uint64 fnv1a64(const unsigned char *a, int n) {
  sqlite3_uint64 h = 0xcbf29ce484222325ULL;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    FNV1A_STEP(h, a[i]);
    FNV1A_STEP(h, a[i + 1]);
    FNV1A_STEP(h, a[i + 2]);
    FNV1A_STEP(h, a[i + 3]);
    FNV1A_STEP(h, a[i + 4]);
    FNV1A_STEP(h, a[i + 5]);
    FNV1A_STEP(h, a[i + 6]);
    FNV1A_STEP(h, a[i + 7]);
  }
  for (; i < n; i++) {
    FNV1A_STEP(h, a[i]);
  }
  return h;
}

/* The checksum of a page of n bytes, little-endian, into out[0..8). */
static void pageChecksum(const unsigned char *page, int n, unsigned char *out) {
  sqlite3_uint64 h = fnv1a64(page, n - PSUM_BYTES);
  int i;
  for (i = 0; i < PSUM_BYTES; i++) {
    out[i] = (unsigned char)(h >> (8 * i));
  }
}

/* Whether the last 8 bytes of the n-byte page match its checksum. */
static int pageIsIntact(const unsigned char *page, int n) {
  unsigned char sum[PSUM_BYTES];
  pageChecksum(page, n, sum);
  return memcmp(sum, page + n - PSUM_BYTES, PSUM_BYTES) == 0;
}

/* Whether n bytes at offset could be one whole page: n is a SQLite page size
** (a power of two from 512 to 65536) and offset is a multiple of it. */
static int isWholePage(int n, sqlite3_int64 offset) {
  return n >= 512 && n <= 65536 && (n & (n - 1)) == 0 && (offset & (n - 1)) == 0;
}

/* Learn whether pages have checksums from bytes read from or written to
** offset 0 of the file, when they reach the header's reserve byte. */
static void learnReserve(PsumFile *p, const void *buf, int n, sqlite3_int64 offset) {
  if (offset == 0 && n > RESERVE_OFFSET) {
    p->hasChecksums = ((const unsigned char *)buf)[RESERVE_OFFSET] == PSUM_BYTES;
  }
}

/* ---------------------------------------------------------------- io methods */

static int psumClose(sqlite3_file *pFile) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xClose(p->pReal);
}

static int psumRead(sqlite3_file *pFile, void *buf, int n, sqlite3_int64 offset) {
  PsumFile *p = (PsumFile *)pFile;
  int rc = p->pReal->pMethods->xRead(p->pReal, buf, n, offset);
  if (rc != SQLITE_OK || !p->isMainDb) return rc;
  learnReserve(p, buf, n, offset);
  if (p->hasChecksums && p->verify && isWholePage(n, offset) && !pageIsIntact(buf, n)) {
    return SQLITE_IOERR_DATA;
  }
  return SQLITE_OK;
}

/* Before writing an n-byte page at offset, write a checksummed zero page at
** every page boundary between the end of the file and offset, so no page
** inside the file is left without a checksum (invariant 2). */
static int fillGap(PsumFile *p, int n, sqlite3_int64 offset) {
  sqlite3_int64 size = 0;
  sqlite3_int64 at;
  unsigned char *zero;
  int rc = p->pReal->pMethods->xFileSize(p->pReal, &size);
  if (rc != SQLITE_OK || size >= offset) return rc;
  zero = sqlite3_malloc(n);
  if (zero == 0) return SQLITE_NOMEM;
  memset(zero, 0, (size_t)n);
  pageChecksum(zero, n, zero + n - PSUM_BYTES);
  for (at = (size + n - 1) / n * n; at < offset && rc == SQLITE_OK; at += n) {
    rc = p->pReal->pMethods->xWrite(p->pReal, zero, n, at);
  }
  sqlite3_free(zero);
  return rc;
}

static int psumWrite(sqlite3_file *pFile, const void *buf, int n, sqlite3_int64 offset) {
  PsumFile *p = (PsumFile *)pFile;
  unsigned char *copy;
  int rc;
  if (!p->isMainDb) return p->pReal->pMethods->xWrite(p->pReal, buf, n, offset);
  /* Page 1 may be the write that turns checksums on (or off): learn first, so
  ** page 1 itself is written the way its own header says. */
  learnReserve(p, buf, n, offset);
  if (!p->hasChecksums || !isWholePage(n, offset)) {
    return p->pReal->pMethods->xWrite(p->pReal, buf, n, offset);
  }
  rc = fillGap(p, n, offset);
  if (rc != SQLITE_OK) return rc;
  copy = sqlite3_malloc(n);
  if (copy == 0) return SQLITE_NOMEM;
  memcpy(copy, buf, (size_t)n);
  pageChecksum(copy, n, copy + n - PSUM_BYTES);
  rc = p->pReal->pMethods->xWrite(p->pReal, copy, n, offset);
  sqlite3_free(copy);
  return rc;
}

static int psumTruncate(sqlite3_file *pFile, sqlite3_int64 size) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xTruncate(p->pReal, size);
}

static int psumSync(sqlite3_file *pFile, int flags) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xSync(p->pReal, flags);
}

static int psumFileSize(sqlite3_file *pFile, sqlite3_int64 *pSize) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xFileSize(p->pReal, pSize);
}

static int psumLock(sqlite3_file *pFile, int eLock) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xLock(p->pReal, eLock);
}

static int psumUnlock(sqlite3_file *pFile, int eLock) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xUnlock(p->pReal, eLock);
}

static int psumCheckReservedLock(sqlite3_file *pFile, int *pResOut) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xCheckReservedLock(p->pReal, pResOut);
}

/* Whether a pragma argument means "on" (1), "off" (0), or neither (-1). */
static int parseSwitch(const char *z) {
  static const char *const on[] = {"on", "1", "true", "yes"};
  static const char *const off[] = {"off", "0", "false", "no"};
  size_t i;
  for (i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
    if (sqlite3_stricmp(z, on[i]) == 0) return 1;
    if (sqlite3_stricmp(z, off[i]) == 0) return 0;
  }
  return -1;
}

/* PRAGMA checksum_verification [= ON|OFF]: az[1] is the pragma's name, az[2]
** its argument or NULL; an answer or error message goes in az[0]. */
static int psumPragma(PsumFile *p, char **az) {
  if (az[2] != 0) {
    int on = parseSwitch(az[2]);
    if (on < 0) {
      az[0] = sqlite3_mprintf("checksum_verification takes ON or OFF, not \"%s\"", az[2]);
      return SQLITE_ERROR;
    }
    p->verify = on;
  }
  az[0] = sqlite3_mprintf("%d", p->verify);
  return az[0] == 0 ? SQLITE_NOMEM : SQLITE_OK;
}

static int psumFileControl(sqlite3_file *pFile, int op, void *pArg) {
  PsumFile *p = (PsumFile *)pFile;
  if (p->isMainDb && op == SQLITE_FCNTL_PRAGMA) {
    char **az = (char **)pArg;
    if (sqlite3_stricmp(az[1], "checksum_verification") == 0) return psumPragma(p, az);
  }
  /* Anything else (other pragmas included) is the wrapped file's to answer;
  ** it says SQLITE_NOTFOUND for what it does not know, so SQLite handles it. */
  return p->pReal->pMethods->xFileControl(p->pReal, op, pArg);
}

static int psumSectorSize(sqlite3_file *pFile) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xSectorSize(p->pReal);
}

static int psumDeviceCharacteristics(sqlite3_file *pFile) {
  PsumFile *p = (PsumFile *)pFile;
  return p->pReal->pMethods->xDeviceCharacteristics(p->pReal);
}

/* The version-2 and -3 methods exist only when the wrapped file has them. */
static int realHas(const PsumFile *p, int iVersion) {
  return p->pReal->pMethods->iVersion >= iVersion;
}

static int psumShmMap(sqlite3_file *pFile, int iPg, int pgsz, int bExtend, void volatile **pp) {
  PsumFile *p = (PsumFile *)pFile;
  if (!realHas(p, 2)) return SQLITE_IOERR_SHMMAP;
  return p->pReal->pMethods->xShmMap(p->pReal, iPg, pgsz, bExtend, pp);
}

static int psumShmLock(sqlite3_file *pFile, int offset, int n, int flags) {
  PsumFile *p = (PsumFile *)pFile;
  if (!realHas(p, 2)) return SQLITE_IOERR_SHMLOCK;
  return p->pReal->pMethods->xShmLock(p->pReal, offset, n, flags);
}

static void psumShmBarrier(sqlite3_file *pFile) {
  PsumFile *p = (PsumFile *)pFile;
  if (realHas(p, 2)) p->pReal->pMethods->xShmBarrier(p->pReal);
}

static int psumShmUnmap(sqlite3_file *pFile, int deleteFlag) {
  PsumFile *p = (PsumFile *)pFile;
  if (!realHas(p, 2)) return SQLITE_OK;
  return p->pReal->pMethods->xShmUnmap(p->pReal, deleteFlag);
}

static int psumFetch(sqlite3_file *pFile, sqlite3_int64 offset, int n, void **pp) {
  PsumFile *p = (PsumFile *)pFile;
  /* No mapping of a main database: every page is read, and checked, by xRead. */
  if (p->isMainDb || !realHas(p, 3)) {
    *pp = 0;
    return SQLITE_OK;
  }
  return p->pReal->pMethods->xFetch(p->pReal, offset, n, pp);
}

static int psumUnfetch(sqlite3_file *pFile, sqlite3_int64 offset, void *ptr) {
  PsumFile *p = (PsumFile *)pFile;
  if (!realHas(p, 3)) return SQLITE_OK;
  return p->pReal->pMethods->xUnfetch(p->pReal, offset, ptr);
}

static const sqlite3_io_methods psumIoMethods = {
    3, /* iVersion */
    psumClose,
    psumRead,
    psumWrite,
    psumTruncate,
    psumSync,
    psumFileSize,
    psumLock,
    psumUnlock,
    psumCheckReservedLock,
    psumFileControl,
    psumSectorSize,
    psumDeviceCharacteristics,
    psumShmMap,
    psumShmLock,
    psumShmBarrier,
    psumShmUnmap,
    psumFetch,
    psumUnfetch,
};

/* ---------------------------------------------------------------- vfs methods */

static int psumOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile, int flags, int *pOutFlags) {
  PsumFile *p = (PsumFile *)pFile;
  int rc;
  memset(p, 0, sizeof(*p));
  p->pReal = (sqlite3_file *)((char *)pFile + PSUM_FILE_SIZE);
  p->isMainDb = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  p->verify = 1;
  p->pReal->pMethods = 0;
  rc = WRAPPED(pVfs)->xOpen(WRAPPED(pVfs), zName, p->pReal, flags, pOutFlags);
  /* SQLite calls xClose iff pMethods is set, so set it iff the wrapped file
  ** needs closing. */
  p->base.pMethods = p->pReal->pMethods ? &psumIoMethods : 0;
  return rc;
}

static int psumDelete(sqlite3_vfs *pVfs, const char *zName, int syncDir) {
  return WRAPPED(pVfs)->xDelete(WRAPPED(pVfs), zName, syncDir);
}

static int psumAccess(sqlite3_vfs *pVfs, const char *zName, int flags, int *pResOut) {
  return WRAPPED(pVfs)->xAccess(WRAPPED(pVfs), zName, flags, pResOut);
}

static int psumFullPathname(sqlite3_vfs *pVfs, const char *zName, int nOut, char *zOut) {
  return WRAPPED(pVfs)->xFullPathname(WRAPPED(pVfs), zName, nOut, zOut);
}

static void *psumDlOpen(sqlite3_vfs *pVfs, const char *zPath) {
  return WRAPPED(pVfs)->xDlOpen(WRAPPED(pVfs), zPath);
}

static void psumDlError(sqlite3_vfs *pVfs, int nByte, char *zErrMsg) {
  WRAPPED(pVfs)->xDlError(WRAPPED(pVfs), nByte, zErrMsg);
}

static void (*psumDlSym(sqlite3_vfs *pVfs, void *pHandle, const char *zSymbol))(void) {
  return WRAPPED(pVfs)->xDlSym(WRAPPED(pVfs), pHandle, zSymbol);
}

static void psumDlClose(sqlite3_vfs *pVfs, void *pHandle) {
  WRAPPED(pVfs)->xDlClose(WRAPPED(pVfs), pHandle);
}

static int psumRandomness(sqlite3_vfs *pVfs, int nByte, char *zBufOut) {
  return WRAPPED(pVfs)->xRandomness(WRAPPED(pVfs), nByte, zBufOut);
}

static int psumSleep(sqlite3_vfs *pVfs, int nMicro) {
  return WRAPPED(pVfs)->xSleep(WRAPPED(pVfs), nMicro);
}

static int psumCurrentTime(sqlite3_vfs *pVfs, double *pTimeOut) {
  return WRAPPED(pVfs)->xCurrentTime(WRAPPED(pVfs), pTimeOut);
}

static int psumGetLastError(sqlite3_vfs *pVfs, int nByte, char *zOut) {
  return WRAPPED(pVfs)->xGetLastError(WRAPPED(pVfs), nByte, zOut);
}

/* The version-2 and -3 VFS methods are only offered when the wrapped VFS has
** them (the registered iVersion is the wrapped one's), so these may call
** straight through. */
static int psumCurrentTimeInt64(sqlite3_vfs *pVfs, sqlite3_int64 *pTimeOut) {
  return WRAPPED(pVfs)->xCurrentTimeInt64(WRAPPED(pVfs), pTimeOut);
}

static int psumSetSystemCall(sqlite3_vfs *pVfs, const char *zName, sqlite3_syscall_ptr pCall) {
  return WRAPPED(pVfs)->xSetSystemCall(WRAPPED(pVfs), zName, pCall);
}

static sqlite3_syscall_ptr psumGetSystemCall(sqlite3_vfs *pVfs, const char *zName) {
  return WRAPPED(pVfs)->xGetSystemCall(WRAPPED(pVfs), zName);
}

static const char *psumNextSystemCall(sqlite3_vfs *pVfs, const char *zName) {
  return WRAPPED(pVfs)->xNextSystemCall(WRAPPED(pVfs), zName);
}

/* ---------------------------------------------------------------- sql function */

/* verify_checksum(page): 1 when a page-sized blob's last 8 bytes are the
** checksum of the rest, 0 when not, NULL when the value is not a page-sized
** blob. */
static void verifyChecksumFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *page;
  int n;
  (void)argc;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return;
  page = sqlite3_value_blob(argv[0]);
  n = sqlite3_value_bytes(argv[0]);
  if (page == 0 || !isWholePage(n, 0)) return;
  sqlite3_result_int(ctx, pageIsIntact(page, n));
}

/* Run for every new connection (sqlite3_auto_extension). */
static int addVerifyChecksum(sqlite3 *db, char **pzErrMsg, const void *pApi) {
  (void)pzErrMsg;
  (void)pApi;
  return sqlite3_create_function(db, "verify_checksum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0,
                                 verifyChecksumFunc, 0, 0);
}

/* ---------------------------------------------------------------- registration */

static sqlite3_vfs psumVfs = {
    0,              /* iVersion: the wrapped VFS's, set at registration */
    0,              /* szOsFile: set at registration */
    0,              /* mxPathname: the wrapped VFS's */
    0,              /* pNext */
    PSUM_VFS_NAME, /* zName */
    0,              /* pAppData: the wrapped VFS */
    psumOpen,
    psumDelete,
    psumAccess,
    psumFullPathname,
    psumDlOpen,
    psumDlError,
    psumDlSym,
    psumDlClose,
    psumRandomness,
    psumSleep,
    psumCurrentTime,
    psumGetLastError,
    psumCurrentTimeInt64,
    psumSetSystemCall,
    psumGetSystemCall,
    psumNextSystemCall,
};

/* Register the checksum layer as the default VFS, wrapping the current
** default, and add verify_checksum() to every connection opened from now on.
** Returns a SQLite result code. Registering again is a no-op; the caller runs
** it once per process (and before any other thread can use the VFS). */
int m1nd_checksum_vfs_register(void) {
  sqlite3_vfs *pOrig;
  int rc;
  if (psumVfs.pAppData != 0) return SQLITE_OK;
  pOrig = sqlite3_vfs_find(0);
  if (pOrig == 0) return SQLITE_ERROR;
  if (strcmp(pOrig->zName, PSUM_VFS_NAME) == 0) return SQLITE_OK;
  rc = sqlite3_auto_extension((void (*)(void))addVerifyChecksum);
  if (rc != SQLITE_OK) return rc;
  psumVfs.iVersion = pOrig->iVersion < 3 ? pOrig->iVersion : 3;
  psumVfs.szOsFile = PSUM_FILE_SIZE + pOrig->szOsFile;
  psumVfs.mxPathname = pOrig->mxPathname;
  psumVfs.pAppData = pOrig;
  rc = sqlite3_vfs_register(&psumVfs, 1);
  if (rc != SQLITE_OK) psumVfs.pAppData = 0;
  return rc;
}
