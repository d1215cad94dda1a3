/* param: see param.h. */
#include "param.h"

void param_store(void *base, const struct param *p, double v)
{
    char *at = (char *)base + p->offset;
    switch (p->kind) {
    case PARAM_DOUBLE: *(double *)(void *)at = v; break;
    case PARAM_UINT: *(unsigned *)(void *)at = (unsigned)v; break;
    case PARAM_BOOL: *(bool *)(void *)at = v != 0; break;
    case PARAM_ENUM: *(int *)(void *)at = (int)v; break;
    }
}

void param_defaults(void *base, const struct param *t, size_t n)
{
    for (size_t k = 0; k < n; k++)
        param_store(base, &t[k], t[k].def);
}

void param_help(FILE *f, const struct param *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct param *k = &t[i];
        char def[32];
        switch (k->kind) {
        case PARAM_DOUBLE: snprintf(def, sizeof def, "%g", k->def); break;
        case PARAM_UINT: snprintf(def, sizeof def, "%u", (unsigned)k->def); break;
        case PARAM_BOOL: snprintf(def, sizeof def, "%s", k->def != 0 ? "true" : "false"); break;
        case PARAM_ENUM: snprintf(def, sizeof def, "%s", k->names[(int)k->def]); break;
        }
        fprintf(f, "  %-20s %-7s %s\n", k->name, def, k->meaning);
    }
}
