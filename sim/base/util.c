/* util: small shared helpers. Allocation failure aborts with a message: the
 * simulator cannot continue without memory, and a clear message beats a NULL
 * dereference. SHA-256 comes from nettle. */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE, sync_file_range (Linux) */
#include "util.h"

#include <fcntl.h>

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <inttypes.h>
#include <math.h>
#include <gsl/gsl_sort_double.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

int cpn_exit_status(int code)
{
    if (code == CPN_OK)
        return 0;
    return code == CPN_EINPUT ? 2 : 1;
}

int cpn_fail(char *err, size_t len, int code, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return code;
}

_Noreturn void cpn_panic(const char *file, int line, const char *what)
{
    fprintf(stderr, "cpnsim: internal error at %s:%d: %s\n", file, line, what);
    abort();
}

/* Blocks from this size on are asked to be backed by transparent huge pages. */
#define CPN_HUGE_MIN ((size_t)4 << 20)
#define CPN_HUGE_PAGE ((uintptr_t)2 << 20)

/* Asks the kernel to back the 2-MiB-aligned part of a large block with huge pages
 * (where the system leaves that to madvise, as Debian's default does). A million-job
 * run touches some 400 MB of fresh arrays; with 4-KiB pages the page faults were over a
 * third of reading and writing it, and huge pages take their number from 95,000 to
 * 17,000 (docs/performance.md). Only the memory use changes, never a result; where it
 * is not supported, nothing happens. */
static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n < CPN_HUGE_MIN)
        return;
    uintptr_t a = ((uintptr_t)p + CPN_HUGE_PAGE - 1) & ~(CPN_HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(CPN_HUGE_PAGE - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static void *checked(void *p, size_t n)
{
    if (!p && n) {
        fprintf(stderr, "cpnsim: out of memory (allocating %zu bytes)\n", n);
        abort();
    }
    advise_huge(p, n);
    return p;
}

void *cpn_malloc(size_t n) { return checked(malloc(n ? n : 1), n); }

void *cpn_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        cpn_panic(__FILE__, __LINE__, "allocation size overflows");
    return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *cpn_realloc(void *p, size_t n) { return checked(realloc(p, n ? n : 1), n); }

void *cpn_malloc_aligned(size_t align, size_t n)
{
    return checked(aligned_alloc(align, n ? n : align), n);
}

void cpn_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            cpn_panic(__FILE__, __LINE__, "array size overflows");
        c *= 2;
    }
    *p = cpn_realloc(*p, c * size);
    *cap = c;
}

char *cpn_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = cpn_malloc(n);
    memcpy(d, s, n);
    return d;
}

char *cpn_path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = cpn_malloc(n);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* The decimal syntax cpn_parse_double takes: [+-] digits [. digits] [(e|E) [+-] digits],
 * with a digit before or after the point. Sets *m to the first 19 significant digits
 * and *e10 to the power of ten they are to be scaled by; *exact is false when digits
 * were dropped or the exponent is out of int range. Returns false on other syntax
 * (hex, inf, nan, spaces), which strtod would take but a job file must not. */
static bool decimal_syntax(const char *p, bool *neg, uint64_t *m, long *e10, bool *exact)
{
    /* In locals: stores through m would oblige the compiler to read each character
     * again (a char may alias them). */
    uint64_t v = 0;
    long e = 0;
    int nd = 0;
    bool any = false, ex = true, ng = false;
    if (*p == '+' || *p == '-')
        ng = *p++ == '-';
    for (int frac = 0; frac < 2; frac++) {
        /* Leading zeros: only their place counts. */
        if (v == 0)
            for (; *p == '0'; p++) {
                any = true;
                e -= frac;
            }
        for (; (unsigned)(*p - '0') < 10; p++) {
            any = true;
            if (nd < 19) {
                v = v * 10 + (uint64_t)(*p - '0'), nd++;
                e -= frac;
            } else {
                ex = false; /* strtod rounds the rest */
            }
        }
        if (frac == 0 && *p == '.')
            p++;
        else
            break;
    }
    *neg = ng, *m = v, *e10 = e, *exact = ex;
    if (!any)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        bool eneg = *p == '-';
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return false;
        long x = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (x < 100000)
                x = x * 10 + (*p - '0');
            else
                *exact = false;
        *e10 += eneg ? -x : x;
    }
    return *p == '\0';
}

/* The largest power of ten that decimal_extended scales by: 10^27 = 5^27 x 2^27, and
 * 5^27 < 2^64, so each is exact in x87's 64-bit mantissa. */
#define CPN_P10L_MAX 27

/* m x 10^e10 correctly rounded to a double, for the mantissas of 17 to 19 digits that
 * Clinger's fast path leaves (a third of a job file's times, each a costly strtod): one
 * operation in long double (64-bit mantissa, the x87's), then rounding to double. The
 * two roundings give strtod's value unless the first lands within one long-double unit
 * of a point halfway between two doubles, which is checked: returns false then, or
 * where long double arithmetic has no 64-bit mantissa, and the caller asks strtod. Results lie
 * between 10^-27 and 10^47, far from subnormals and overflow. */
static bool decimal_extended(uint64_t m, int e10, double *out)
{
#if LDBL_MANT_DIG == 64
    /* Whether long double arithmetic really carries 64 bits here: valgrind emulates the
     * x87 with doubles, and there this path would round once, at double precision. */
    volatile long double one = 1;
    if (one + LDBL_EPSILON == one)
        return false;
    static const long double p10l[CPN_P10L_MAX + 1] = {
        1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
        1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
        1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    long double p = p10l[e10 < 0 ? -e10 : e10];
    long double r = e10 < 0 ? (long double)m / p : (long double)m * p;
    if (r == 0)
        return false;
    int ex;
    uint64_t bits = (uint64_t)ldexpl(frexpl(r, &ex), 64); /* r's 64-bit mantissa, exactly */
    uint64_t below = bits & 0x7FF; /* the 11 bits a double drops */
    if (below >= 0x3FF && below <= 0x401)
        return false;
    *out = (double)r;
    return true;
#else
    (void)m;
    (void)e10;
    (void)out;
    return false;
#endif
}

int cpn_parse_double(const char *s, double *out)
{
    /* 10^0 to 10^22, each a double exactly. */
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool neg, exact;
    uint64_t m;
    long e10;
    if (!s || !decimal_syntax(s, &neg, &m, &e10, &exact))
        return CPN_EINPUT;
    /* Clinger's fast path: a mantissa and a power of ten that are both exact doubles
     * give the correctly rounded value in one operation, the same bits as strtod (the
     * text of a job file is nearly always such a number). Longer mantissas try
     * decimal_extended; anything else goes to strtod. */
    if (exact && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m;
        v = e10 < 0 ? v / p10[-e10] : v * p10[e10];
        *out = neg ? -v : v;
        return CPN_OK;
    }
    double v;
    if (exact && e10 >= -CPN_P10L_MAX && e10 <= CPN_P10L_MAX && decimal_extended(m, (int)e10, &v)) {
        *out = neg ? -v : v;
        return CPN_OK;
    }
    char *end;
    errno = 0;
    v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return CPN_EINPUT;
    *out = v;
    return CPN_OK;
}

int cpn_parse_u64(const char *s, uint64_t *out)
{
    /* Digits only, as strtoull(s, &end, 10) with *end == '\0' and no ERANGE takes them
     * (without its sign, blanks and locale: a job file has a million of these). */
    if (!s || *s < '0' || *s > '9')
        return CPN_EINPUT;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return CPN_EINPUT;
        v = v * 10 + d;
    }
    if (*s)
        return CPN_EINPUT;
    *out = v;
    return CPN_OK;
}

bool cpn_file_too_large(FILE *f)
{
    struct stat st;
    return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)CPN_READ_MAX;
}

int cpn_fail_too_large(const char *path, char *err, size_t errlen)
{
    return cpn_fail(err, errlen, CPN_EINPUT,
                    "%s: larger than %u MiB, the most cpnsim reads of a JSON, YAML or trace file "
                    "(docs/reliability.md)",
                    path, (unsigned)(CPN_READ_MAX >> 20));
}

int cpn_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    /* A regular file's size sizes the buffer at once (growing it by doubling copied
     * the file up to twice more); a pipe or device starts at 64 KiB and grows. */
    size_t cap = 1 << 16, n = 0;
    if (cpn_file_too_large(f)) {
        /* Refused by its size, unread: it had been read to the limit first, 2 GiB of
         * memory and seconds for nothing. */
        fclose(f);
        return cpn_fail_too_large(path, err, errlen);
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)cap)
        cap = (size_t)st.st_size + 2;
    char *b = cpn_malloc(cap);
    int rc = CPN_OK;
    for (;;) {
        if (n + 1 >= cap)
            cpn_grow((void **)&b, &cap, n + 2, 1);
        size_t want = cap - n - 1;
        if (want > CPN_READ_MAX + 1 - n)
            want = CPN_READ_MAX + 1 - n;
        size_t got = fread(b + n, 1, want, f);
        /* Checked as read, so that /dev/zero or a binary file fails at once rather
         * than after filling memory. */
        const char *nul = memchr(b + n, '\0', got);
        n += got;
        if (nul) {
            uint64_t line = 1; /* counted only for the message */
            for (const char *p = b; (p = memchr(p, '\n', (size_t)(nul - p))); p++)
                line++;
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%" PRIu64 ": a NUL byte (not a text file)",
                          path, line);
            break;
        }
        if (n > CPN_READ_MAX) {
            rc = cpn_fail_too_large(path, err, errlen);
            break;
        }
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!rc && bad)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: read error", path);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return CPN_OK;
}

void cpn_sha256_hex(const void *buf, size_t len, char out[65])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, buf);
    cpn_sha256_digest_hex(&ctx, out);
}

void cpn_sha256_digest_hex(struct sha256_ctx *ctx, char out[65])
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof d, d);
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The write buffer of an afile. */
#define CPN_AFILE_BUF ((size_t)1 << 20)

int afile_open(struct afile *af, const char *dir, const char *name, char *err, size_t errlen)
{
    size_t n = strlen(dir) + strlen(name) + 64;
    char *path = cpn_malloc(n), *tmp = cpn_malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    snprintf(tmp, n, "%s/.%s.tmp.%ld", dir, name, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        free(path);
        free(tmp);
        return cpn_fail(err, errlen, CPN_EIO, "%s/%s: cannot write: %s", dir, name, strerror(e));
    }
    /* Large writes: a million-job jobs.csv is 130 MB, 16,000 write calls with stdio's
     * default buffer and 130 with this one. */
    af->buf = cpn_malloc(CPN_AFILE_BUF);
    setvbuf(f, af->buf, _IOFBF, CPN_AFILE_BUF);
    af->f = f;
    af->tmp_path = tmp;
    af->path = path;
    return CPN_OK;
}

int afile_commit(struct afile *af, char *err, size_t errlen)
{
    int bad = ferror(af->f) != 0;
    int e = bad ? EIO : 0;
    if (fflush(af->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && fsync(fileno(af->f)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        e = errno;
    }
    int closed = fclose(af->f);
    free(af->buf);
    af->buf = NULL;
    if (closed != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->f = NULL;
    if (!bad && rename(af->tmp_path, af->path) != 0) {
        bad = 1;
        e = errno;
    }
    int rc = CPN_OK;
    if (bad) {
        rc = cpn_fail(err, errlen, CPN_EIO, "%s: cannot write: %s", af->path, strerror(e));
        remove(af->tmp_path);
    }
    free(af->tmp_path);
    free(af->path);
    af->tmp_path = af->path = NULL;
    return rc;
}

void cpn_start_writeback(int fd)
{
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
#endif
}

/* POSIX threads rather than C11's: ThreadSanitizer (GCC 12) does not see threads that
 * thrd_create starts, and crashes in them. */
struct cpn_thread {
    pthread_t t;
    int (*fn)(void *);
    void *arg;
};

static void *cpn_thread_main(void *arg)
{
    struct cpn_thread *t = arg;
    t->fn(t->arg);
    return NULL;
}

struct cpn_thread *cpn_thread_start(int (*fn)(void *), void *arg)
{
    struct cpn_thread *t = cpn_malloc(sizeof *t);
    *t = (struct cpn_thread){.fn = fn, .arg = arg};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the mask */
    bool started = pthread_create(&t->t, NULL, cpn_thread_main, t) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started)
        return t;
    free(t);
    return NULL;
}

void cpn_thread_join(struct cpn_thread *t)
{
    pthread_join(t->t, NULL);
    free(t);
}

/* A commit under way on a thread: what afile_commit returned. */
struct afile_bg {
    struct afile *af;
    struct cpn_thread *thread;
    int rc;
    char err[CPN_ERR_LEN];
};

static int afile_bg_run(void *arg)
{
    struct afile_bg *bg = arg;
    bg->rc = afile_commit(bg->af, bg->err, sizeof bg->err);
    return 0;
}

void afile_commit_start(struct afile *af)
{
    CPN_ASSERT(af->f && !af->bg);
    struct afile_bg *bg = cpn_malloc(sizeof *bg);
    *bg = (struct afile_bg){.af = af};
    af->bg = bg; /* before the thread starts: it does not read this field */
    bg->thread = cpn_thread_start(afile_bg_run, bg);
}

int afile_commit_finish(struct afile *af, char *err, size_t errlen)
{
    struct afile_bg *bg = af->bg;
    if (!bg)
        return afile_commit(af, err, errlen);
    if (bg->thread)
        cpn_thread_join(bg->thread);
    else
        afile_bg_run(bg);
    af->bg = NULL;
    int rc = bg->rc;
    if (rc)
        cpn_fail(err, errlen, rc, "%s", bg->err);
    free(bg);
    return rc;
}

void afile_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *t = e->d_name[0] == '.' ? strstr(e->d_name, ".tmp.") : NULL;
        if (!t)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(t + strlen(".tmp."), &end, 10);
        /* A live process's temporary is its own business (another run into the same
         * directory); kill(pid, 0) fails with ESRCH once the writer is gone. */
        if (*end || errno || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
            char *p = cpn_path_join(dir, e->d_name);
            remove(p);
            free(p);
        }
    }
    closedir(d);
}

void afile_abort(struct afile *af)
{
    CPN_ASSERT(!af->bg);
    if (af->f)
        fclose(af->f);
    free(af->buf);
    af->buf = NULL;
    if (af->tmp_path)
        remove(af->tmp_path);
    free(af->tmp_path);
    free(af->path);
    af->f = NULL;
    af->tmp_path = af->path = NULL;
}

int cpn_mkdir_p(const char *path, char *err, size_t errlen)
{
    char *p = cpn_strdup(path);
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c == '/' || c == '\0') {
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                int rc = cpn_fail(err, errlen, CPN_EIO, "%s: cannot create directory: %s", p,
                                  strerror(e));
                free(p);
                return rc;
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    free(p);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cpn_fail(err, errlen, CPN_EIO, "%s: not a directory", path);
    return CPN_OK;
}

double cpn_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t cpn_utf8_seq(const unsigned char *p, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong below */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates above */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* past U+10FFFF above */
    } else
        return 0;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return len;
}

/* "00" to "99": two digits per division (a million-job jobs.csv writes 15 million
 * numbers). */
static const char cpn_digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                      "25262728293031323334353637383940414243444546474849"
                                      "50515253545556575859606162636465666768697071727374"
                                      "75767778798081828384858687888990919293949596979899";

/* Writes v's decimal digits so that they end just before end (at most 20 of them);
 * returns where they begin. Four digits per division by a constant: the quotients
 * are one chain of dependent multiplications, and each step of it is the latency. */
static char *digits_before(char *end, uint64_t v)
{
    while (v >= 10000) {
        unsigned g = (unsigned)(v % 10000);
        v /= 10000;
        end -= 4;
        memcpy(end, cpn_digit_pairs + 2 * (g / 100), 2);
        memcpy(end + 2, cpn_digit_pairs + 2 * (g % 100), 2);
    }
    unsigned u = (unsigned)v;
    if (u >= 100) {
        end -= 2;
        memcpy(end, cpn_digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        end -= 2;
        memcpy(end, cpn_digit_pairs + 2 * u, 2);
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

/* 10^i, i < 20. */
static const uint64_t cpn_pow10[20] = {UINT64_C(1),
                                       UINT64_C(10),
                                       UINT64_C(100),
                                       UINT64_C(1000),
                                       UINT64_C(10000),
                                       UINT64_C(100000),
                                       UINT64_C(1000000),
                                       UINT64_C(10000000),
                                       UINT64_C(100000000),
                                       UINT64_C(1000000000),
                                       UINT64_C(10000000000),
                                       UINT64_C(100000000000),
                                       UINT64_C(1000000000000),
                                       UINT64_C(10000000000000),
                                       UINT64_C(100000000000000),
                                       UINT64_C(1000000000000000),
                                       UINT64_C(10000000000000000),
                                       UINT64_C(100000000000000000),
                                       UINT64_C(1000000000000000000),
                                       UINT64_C(10000000000000000000)};

/* How many decimal digits v has (1 for 0), so that its text is written in place. */
static size_t digits_of(uint64_t v)
{
#if defined(__GNUC__)
    /* log10(2) is about 1233 / 4096: t is the count, or one more than it. v | 1 has as
     * many digits as v (10^k - 1 is odd). */
    uint64_t w = v | 1;
    size_t t = ((size_t)(64 - __builtin_clzll(w)) * 1233) >> 12;
    return t + 1 - (w < cpn_pow10[t]);
#else
    size_t n = 1;
    while (n < 20 && v >= cpn_pow10[n])
        n++;
    return n;
#endif
}

size_t cpn_fmt_u64(char *buf, uint64_t v)
{
    size_t n = digits_of(v);
    digits_before(buf + n, v);
    buf[n] = '\0';
    return n;
}

/* The slow path of cpn_fmt_fixed: printf itself. */
static size_t fmt_fixed_printf(char buf[CPN_FIXED_BUF], double v, int decimals)
{
    int n = snprintf(buf, CPN_FIXED_BUF, "%.*f", decimals, v);
    return n > 0 ? (size_t)n : 0;
}

size_t cpn_fmt_fixed(char buf[CPN_FIXED_BUF], double v, int decimals)
{
    static const double scale[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    CPN_ASSERT(decimals >= 0 && decimals <= 9);
    /* Below 2^40 the product's rounding error is at most 2^-13, so a fraction more than
     * 2^-10 away from one half rounds the way the exact product does. */
    double x = fabs(v) * scale[decimals];
    if (!(x < 1099511627776.0))
        return fmt_fixed_printf(buf, v, decimals);
    /* x is in [0, 2^40): truncation is floor, without a call into libm. Through int64_t,
     * each conversion is one instruction (x86-64 has no unsigned one before AVX-512). */
    int64_t whole = (int64_t)x;
    double frac = x - (double)whole;
    if (fabs(frac - 0.5) < 1.0 / 1024)
        return fmt_fixed_printf(buf, v, decimals);
    uint64_t m = (uint64_t)whole + (frac > 0.5);
    /* The outputs' milliseconds divide by a constant, the rest by a table's power. */
    uint64_t ip, fp;
    if (decimals == 3) {
        ip = m / 1000;
        fp = m % 1000;
    } else {
        ip = m / cpn_pow10[decimals];
        fp = m % cpn_pow10[decimals];
    }
    /* In place, right to left within each part: the sign, the whole part, the point
     * and the decimals (zero-padded). */
    char *s = buf;
    if (signbit(v))
        *s++ = '-';
    s += digits_of(ip);
    digits_before(s, ip);
    if (decimals > 0) {
        *s = '.';
        s += 1 + decimals;
        char *e = s;
        unsigned f = (unsigned)fp;
        if (decimals == 3) { /* the outputs' milliseconds: a digit and a pair, no loop */
            e[-3] = (char)('0' + f / 100);
            memcpy(e - 2, cpn_digit_pairs + 2 * (f % 100), 2);
        } else {
            int d = decimals;
            for (; d >= 2; d -= 2) {
                e -= 2;
                memcpy(e, cpn_digit_pairs + 2 * (f % 100), 2);
                f /= 100;
            }
            if (d)
                *--e = (char)('0' + f);
        }
    }
    *s = '\0';
    return (size_t)(s - buf);
}

/* Below this many, a comparison sort is quicker than four passes over 64-Ki buckets
 * (and radix_sort's digits are 8 bits). */
#define CPN_RADIX_MIN 16384

/* A double's bits u as an unsigned key that orders like the number: negatives have
 * every bit flipped, the others the sign bit set. */
static inline uint64_t radix_bits_key(uint64_t u) { return (u >> 63) ? ~u : u | (UINT64_C(1) << 63); }

static uint64_t radix_key(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return radix_bits_key(u);
}

static double radix_value(uint64_t u)
{
    u = (u >> 63) ? u & ~(UINT64_C(1) << 63) : ~u;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The sort key of word w: w itself, or with dbl the key of the double whose bits it is. */
static inline uint64_t radix_word_key(uint64_t w, bool dbl) { return dbl ? radix_bits_key(w) : w; }

/* The 8-byte word at w[i], as bits. */
static inline uint64_t radix_word(const unsigned char *w, size_t i)
{
    uint64_t u;
    memcpy(&u, w + i * sizeof u, sizeof u);
    return u;
}

/* Sorts the n 8-byte words of v, and val[0..n) beside them when val is not NULL, by
 * their keys, stably: a word is its own key, or with `dbl` a double keyed by radix_key.
 * Least significant digit first, digits of 16 bits (8 below CPN_RADIX_MIN words, where
 * 64-Ki buckets would cost more than the words), a pass skipped where every key has the
 * same digit. The words move as they are, their keys worked out as they are read: no
 * array of keys, and with the caller's tmp (n words) and vtmp (n values, with val) no
 * fresh memory for a million numbers, whose first touches cost more than the sort's
 * passes. One digit is counted at a time: a summary's sort is where a run's memory
 * peaks, and the counts of all four would add 1.5 MiB to it. Both kinds of word pass
 * through memcpy, so a double is never read through another type. */
static inline __attribute__((always_inline)) void radix_sort(void *v, void *tmp, uint32_t *val,
                                                            uint32_t *vtmp, size_t n, bool dbl)
{
    const unsigned bits = n < CPN_RADIX_MIN ? 8 : 16;
    const size_t buckets = (size_t)1 << bits, mask = buckets - 1;
    size_t *count = cpn_malloc(buckets * sizeof *count);
    unsigned char *src = v, *dst = tmp;
    uint32_t *vsrc = val, *vdst = vtmp;
    for (unsigned shift = 0; shift < 64; shift += bits) {
        memset(count, 0, buckets * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(radix_word_key(radix_word(src, i), dbl) >> shift) & mask]++;
        if (n == 0 || count[(radix_word_key(radix_word(src, 0), dbl) >> shift) & mask] == n)
            continue; /* one digit for all: the order stays */
        size_t sum = 0;
        for (size_t d = 0; d < buckets; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t w = radix_word(src, i);
            size_t at = count[(radix_word_key(w, dbl) >> shift) & mask]++;
            memcpy(dst + at * sizeof w, &w, sizeof w);
            if (val)
                vdst[at] = vsrc[i];
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
        uint32_t *vt = vsrc;
        vsrc = vdst;
        vdst = vt;
    }
    if (src != (unsigned char *)v) {
        memcpy(v, src, n * sizeof(uint64_t));
        if (val)
            memcpy(val, vsrc, n * sizeof *val);
    }
    free(count);
}

/* radix_sort with the caller's room, or, where tmp or vtmp (with val) is NULL, room of
 * its own for the call: the one convention of the sorts below. Inline in each, as
 * radix_sort is: one copy for both kinds of word tests `dbl` at every word read (9 M
 * more instructions under default on 100,000 jobs). */
static inline __attribute__((always_inline)) void radix_sort_room(void *v, void *tmp, uint32_t *val, uint32_t *vtmp, size_t n, bool dbl)
{
    void *own = tmp ? NULL : cpn_malloc((n ? n : 1) * sizeof(uint64_t));
    uint32_t *vown = val && !vtmp ? cpn_malloc((n ? n : 1) * sizeof *vown) : NULL;
    radix_sort(v, tmp ? tmp : own, val, vtmp ? vtmp : vown, n, dbl);
    free(own);
    free(vown);
}

void cpn_sort_doubles_with(double *v, uint32_t *val, size_t n, double *tmp, uint32_t *vtmp)
{
    radix_sort_room(v, tmp, val, vtmp, n, true);
}

void cpn_sort_by_key(uint64_t *key, uint32_t *val, size_t n, uint64_t *tmp, uint32_t *vtmp)
{
    radix_sort_room(key, tmp, val, vtmp, n, false);
}

void cpn_sort_doubles(double *v, size_t n, double *tmp)
{
    if (n < CPN_RADIX_MIN) {
        gsl_sort(v, 1, n);
        return;
    }
    radix_sort_room(v, tmp, NULL, NULL, n, true);
}

void cpn_merge_doubles(const double *a, size_t na, const double *b, size_t nb, double *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = radix_key(b[j]) < radix_key(a[i]) ? b[j++] : a[i++];
    memcpy(out + k, a + i, (na - i) * sizeof *out);
    memcpy(out + k + na - i, b + j, (nb - j) * sizeof *out);
}

/* Moves the k-th smallest of key[0..n) (k < n) to key[k], the smaller ones before it and
 * the larger after: Wirth's selection, the pivot the median of three (signed indices:
 * j may pass below lo). */
static void select_key(uint64_t *key, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        uint64_t a = key[lo], b = key[mid], c = key[hi];
        uint64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (key[i] < pivot)
                i++;
            while (key[j] > pivot)
                j--;
            if (i <= j) {
                uint64_t t = key[i];
                key[i] = key[j];
                key[j] = t;
                i++;
                j--;
            }
        }
        /* Now key[lo..j] <= pivot <= key[i..hi], and what lies between equals pivot. */
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return;
    }
}

double cpn_median_doubles(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    size_t lhs = (n - 1) / 2, rhs = n / 2;
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i]) || (v[i] == 0 && signbit(v[i]))) {
            /* gsl_sort leaves NaN where its comparisons happen to, and -0 and +0 in either
             * order: without them, equal numbers have equal bits and any order gives
             * the same median. */
            cpn_sort_doubles(v, n, NULL);
            return lhs == rhs ? v[lhs] : (v[lhs] + v[rhs]) / 2.0;
        }
    /* Keys that order the numbers as < does. */
    uint64_t *key = cpn_malloc(n * sizeof *key);
    for (size_t i = 0; i < n; i++)
        key[i] = radix_key(v[i]);
    select_key(key, n, lhs);
    double lo = radix_value(key[lhs]), med = lo;
    if (rhs != lhs) {
        uint64_t m = key[rhs];
        for (size_t i = rhs + 1; i < n; i++)
            m = key[i] < m ? key[i] : m;
        med = (lo + radix_value(m)) / 2.0;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = radix_value(key[i]);
    free(key);
    return med;
}
