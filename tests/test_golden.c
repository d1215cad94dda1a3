/* Golden outputs: every scenario of tests/golden/scenarios.txt (each policy on q40 and
 * q100, stale and ideal controller, rf and oracle predictor; 2,000 Philly jobs; a mixed
 * cluster; a duration-only queue; horizon and deadlock runs; the default scenario)
 * must give the jobs.csv, timeline.csv and summary.json whose hashes are pinned in
 * tests/golden/expected.sha256. A refactor leaves them as they are; a change of the
 * model updates them on purpose with `make golden` (tests/golden/README.md). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "helpers.h"

Test(golden, outputs_match_the_pinned_hashes, .timeout = 600)
{
    const char *b = getenv("CPNSIM");
    cr_assert_eq(sh("sh scripts/golden.sh check %s", b ? b : "./cpnsim"), 0,
                 "an output changed: see the lines above; if on purpose, `make golden`");
}
