/* cmd_policies: `cpnsim policies`, one line per registered policy. */
#include <stdio.h>
#include <string.h>

#include "../engine/policy.h"
#include "cmd.h"

int cmd_policies(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: cpnsim policies\n\nLists the scheduling policies, one line each.");
        return 0;
    }
    for (size_t i = 0; i < policy_registry_len; i++)
        printf("%-10s %s\n", policy_registry[i]->name, policy_registry[i]->summary);
    return 0;
}
