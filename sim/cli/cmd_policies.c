/* cmd_policies: `cpnsim policies`, one line per registered policy, then its own
 * tunables (policy_ops.params) with their defaults. */
#include <stdio.h>
#include <string.h>

#include "../engine/policy.h"
#include "cmd.h"

int cmd_policies(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: cpnsim policies\n\nLists the scheduling policies, one line each, and below each "
             "its\nparameters (set them with --set KEY=VALUE or in the cluster JSON). The controller's\n"
             "policies apply its CPU filter (cpu_threshold, cpu_filter; docs/cpu.md).");
        return 0;
    }
    for (size_t i = 0; i < policy_registry_len; i++) {
        const struct policy_ops *pol = policy_registry[i];
        printf("%-10s %s%s\n", pol->name, pol->summary,
               pol->cpu_filter ? "; applies the controller's CPU filter (cpu_threshold)" : "");
        param_help(stdout, pol->params, pol->n_params);
    }
    return 0;
}
