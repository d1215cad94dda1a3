/* util: error codes, error messages, checked allocation, strict number parsing,
 * whole-file reading, SHA-256 and atomic (temporary name + rename) output files.
 * It owns no simulation state. */
#ifndef CPN_UTIL_H
#define CPN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CPN_VERSION "0.1.0"

/* splitmix64's finaliser: a bijection on 64 bits whose output bits all depend on every
 * input bit. The one hash behind every draw made from a key (noise, background load)
 * and every hash table keyed by integers. */
static inline uint64_t cpn_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Error codes: 0 is success, failures are negative. */
enum cpn_err {
    CPN_OK = 0,
    CPN_EINPUT = -1, /* bad input or usage: exit status 2 */
    CPN_EIO = -2,    /* an output could not be written: exit status 1 */
    CPN_ESTOP = -4,  /* stopped by SIGINT or SIGTERM: `cpnsim run` dies of the signal */
};
/* Exit status for an error code: 0, 2 for CPN_EINPUT, 1 otherwise. */
int cpn_exit_status(int code);

/* Size of the error buffers that readers fill ("file:line: field: what is wrong"). */
#define CPN_ERR_LEN 512

/* Writes a formatted message into err (of size len); err may be NULL. Returns code,
 * so that a reader can `return cpn_fail(err, len, CPN_EINPUT, "...")`. */
int cpn_fail(char *err, size_t len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Broken invariants abort with file and line; they are not error codes. */
#define CPN_ASSERT(c) ((c) ? (void)0 : cpn_panic(__FILE__, __LINE__, #c))
_Noreturn void cpn_panic(const char *file, int line, const char *what);

/* Allocation that aborts (with a message) when memory is exhausted. */
void *cpn_malloc(size_t n);
void *cpn_calloc(size_t n, size_t size);
void *cpn_realloc(void *p, size_t n);
/* n bytes (uninitialised) at an address that is a multiple of align, a power of two
 * that divides n; free() frees them. */
void *cpn_malloc_aligned(size_t align, size_t n);
/* Grows *p (an array of *cap elements of `size` bytes) to hold at least `need`. */
void cpn_grow(void **p, size_t *cap, size_t need, size_t size);
char *cpn_strdup(const char *s);
/* "a/b" in a new string the caller frees. */
char *cpn_path_join(const char *a, const char *b);

/* Strict parsers: the whole string must be the number, finite, no blanks;
 * cpn_parse_double takes decimal notation only (no hex, inf or nan) and gives
 * strtod's value to the bit.
 * Return 0 on success (leaving *out set), CPN_EINPUT otherwise (leaving *out untouched). */
int cpn_parse_double(const char *s, double *out);
int cpn_parse_u64(const char *s, uint64_t *out);

/* The most cpn_read_file reads: 2 GiB, ten times the JSON of a million jobs. */
#define CPN_READ_MAX ((size_t)2 << 30)
/* Reads a whole file into a NUL-terminated buffer that the caller frees. Returns 0, or
 * CPN_EINPUT with "path: reason" in err: a text file holds no NUL byte (refused as soon
 * as it is read, with its line), and none is larger than CPN_READ_MAX. */
int cpn_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);
/* Whether f is a regular file larger than CPN_READ_MAX: refused from its size, unread. */
bool cpn_file_too_large(FILE *f);
/* CPN_EINPUT with the message of an input over CPN_READ_MAX, for every reader. */
int cpn_fail_too_large(const char *path, char *err, size_t errlen);

/* SHA-256 of a buffer as 64 lower-case hex digits and a NUL. */
void cpn_sha256_hex(const void *buf, size_t len, char out[65]);
/* Finishes a nettle SHA-256 context (which it resets) into 64 hex digits and a NUL. */
struct sha256_ctx;
void cpn_sha256_digest_hex(struct sha256_ctx *ctx, char out[65]);

/* An output file written under a temporary name in the same directory and renamed
 * into place by afile_commit, so that an interrupted run never leaves a half-written
 * file under the final name. */
struct afile_bg;
struct afile {
    FILE *f;
    char *tmp_path;
    char *path;
    char *buf;           /* f's buffer (glibc ignores a size given without one) */
    struct afile_bg *bg; /* the commit under way on a thread (afile_commit_start), or NULL */
};
/* Removes the temporaries (".NAME.tmp.PID") that a killed writer left in dir: those
 * whose PID is no longer a process. */
void afile_remove_stale(const char *dir);
/* Opens dir/name for writing. Returns 0 or CPN_EIO with a message. */
int afile_open(struct afile *af, const char *dir, const char *name, char *err, size_t errlen);
/* Flushes, closes and renames. Returns 0, or CPN_EIO (and removes the temporary). */
int afile_commit(struct afile *af, char *err, size_t errlen);
/* afile_commit on a thread of its own, so that the disk writes the file (the fsync) and
 * the rename drops the file it replaces while the caller goes on: afile_commit_start
 * starts it (where no thread can be started, afile_commit_finish does all of it), and
 * afile_commit_finish waits for it and returns what afile_commit did. The caller must
 * not touch af in between, and finishes every commit it starts. */
void afile_commit_start(struct afile *af);
int afile_commit_finish(struct afile *af, char *err, size_t errlen);
/* Closes and removes the temporary; safe on a closed or zeroed afile. */
void afile_abort(struct afile *af);

/* Asks the system to start writing what was written to file descriptor fd to the disk
 * now, without waiting, so that the fsync of a large file that follows (afile_commit)
 * waits for less. Only the timing changes (Linux's sync_file_range; elsewhere nothing is
 * asked). */
void cpn_start_writeback(int fd);

/* Runs fn(arg) on a thread of its own, with every signal blocked there so that signals
 * reach the caller's thread (whose work watches for them). Returns a handle for
 * cpn_thread_join, or NULL where no thread can be started: the caller then calls fn
 * itself. The threads never share mutable state beyond what their caller hands them. */
struct cpn_thread;
struct cpn_thread *cpn_thread_start(int (*fn)(void *), void *arg);
/* Waits for the thread to return and frees the handle. */
void cpn_thread_join(struct cpn_thread *t);

/* Creates a directory and its parents (mkdir -p). Returns 0 or CPN_EIO. */
int cpn_mkdir_p(const char *path, char *err, size_t errlen);

/* Monotonic wall clock in seconds, for wall_s only: never for simulated time. */
double cpn_wall_s(void);

/* The length (1 to 4) of the well-formed UTF-8 sequence that starts p (n bytes left),
 * or 0 when none does (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF). NUL counts as a sequence of 1. */
size_t cpn_utf8_seq(const unsigned char *p, size_t n);

/* Longest text of cpn_fmt_fixed, NUL included. */
#define CPN_FIXED_BUF 352
/* Writes v with `decimals` digits after the point (0 to 9) into buf, exactly as
 * printf's "%.*f" does (glibc: the binary value rounded, ties to even, "-0.000" for a
 * negative value that rounds to zero), and returns its length. Outputs print millions
 * of such numbers; printf's exact conversion was a tenth of a run's time. Values whose
 * rounding is not certain in double arithmetic (huge, non-finite, or within 2^-10 of
 * a tie) are handed to snprintf itself, so the text is always printf's. */
size_t cpn_fmt_fixed(char buf[CPN_FIXED_BUF], double v, int decimals);
/* Sorts v[0..n) in increasing order, as gsl_sort does (the same array for numbers that
 * are not NaN; -0 before +0), in O(n) from 16,384 numbers on: summaries sort a million
 * job times several times, and gsl_sort's heap sort was 4% of such a run. tmp is room
 * for n numbers that the sort may use, or NULL (it then takes its own). */
void cpn_sort_doubles(double *v, size_t n, double *tmp);
/* Merges a[0..na) and b[0..nb), each sorted by cpn_sort_doubles, into out[0..na + nb),
 * which overlaps neither. When no number is NaN and the zeros have one sign, that is
 * the array cpn_sort_doubles makes of them all (there is only one sorted array), to
 * the bit: a summary that has sorted most of its times adds the rest without sorting
 * them all again. */
void cpn_merge_doubles(const double *a, size_t na, const double *b, size_t nb, double *out);
/* The median gsl_stats_median_from_sorted_data gives of v[0..n) sorted by
 * cpn_sort_doubles, to the bit, found by selection in O(n) (a summary wants three
 * medians of a million numbers, not their order); 0 when n is 0. v is reordered. */
double cpn_median_doubles(double *v, size_t n);
/* Sorts v[0..n), and val[0..n) beside it, by v, stably (pairs of equal numbers keep
 * their order; -0 before +0), in O(n): the radix sort of cpn_sort_doubles at every n.
 * tmp and vtmp are room for n numbers and n values that the sort uses, as for
 * cpn_sort_doubles: either may be NULL, and the sort then allocates it for the call. */
void cpn_sort_doubles_with(double *v, uint32_t *val, size_t n, double *tmp, uint32_t *vtmp);
/* Sorts key[0..n), and val[0..n) beside it when not NULL, by key, stably, in O(n): the
 * same radix sort, for callers whose order packs into unsigned words; tmp and vtmp as
 * for cpn_sort_doubles_with. */
void cpn_sort_by_key(uint64_t *key, uint32_t *val, size_t n, uint64_t *tmp, uint32_t *vtmp);
/* Writes v in decimal into buf (at least 21 bytes) and returns its length. */
size_t cpn_fmt_u64(char *buf, uint64_t v);

#endif
