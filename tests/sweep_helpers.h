/* Helpers of the sweep tests (test_sweep.c, test_sweep_gen.c): the cpnsim binary they
 * run, a scratch directory per test and files written into it, and specs parsed from
 * strings. Each helper aborts the test (cr_assert) on an error. */
#ifndef CPN_TEST_SWEEP_HELPERS_H
#define CPN_TEST_SWEEP_HELPERS_H

#include <stddef.h>

#include "../sim/tools/sweep.h"

/* ./cpnsim, or $CPNSIM (make test sets it to an absolute path, so that a test may cd). */
const char *cpnsim_bin(void);
/* Makes a fresh directory /tmp/cpn-TAG-XXXXXX into dir. */
void scratch_mkdtemp(char dir[64], const char *tag);
/* Writes text to dir/name. */
void scratch_write(const char *dir, const char *name, const char *text);
/* Parses a spec named "spec.json" whose paths resolve against "specdir"; NULL (with
 * the message in err) when it is rejected. */
struct sweep_spec *spec_parse_str(const char *text, char *err, size_t errlen);

#endif
