/* The tables of README.md and docs/ that come from runs (each follows a marker
 * `<!-- table NAME: ... -->`) must be what their commands give now: scripts/doc-tables.sh
 * makes each again (the runs and sweeps the text beside it shows) and compares. A
 * change of the model that moves a table updates it with `sh scripts/doc-tables.sh
 * update` and says why in its commit, as for the goldens. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "helpers.h"

Test(doc_tables, readme_and_docs_tables_match_their_commands, .timeout = 600)
{
    const char *b = getenv("CPNSIM");
    cr_assert_eq(sh("sh scripts/doc-tables.sh check %s", b ? b : "./cpnsim"), 0,
                 "a table of the docs differs from what its commands give: see the diff above");
}
