/* Helpers of the sweep tests (see sweep_helpers.h). */
#include "sweep_helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cpnsim_bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

void scratch_mkdtemp(char dir[64], const char *tag)
{
    snprintf(dir, 64, "/tmp/cpn-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(dir));
}

void scratch_write(const char *dir, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

struct sweep_spec *spec_parse_str(const char *text, char *err, size_t errlen)
{
    struct sweep_spec *sp = NULL;
    int rc = sweep_spec_parse("spec.json", text, strlen(text), "specdir", &sp, err, errlen);
    return rc ? NULL : sp;
}
