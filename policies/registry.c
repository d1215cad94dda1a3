/* The one table of policies. Adding a policy is one file under policies/ and one
 * line here. */
#include <string.h>

#include "../sim/engine/policy.h"

extern const struct policy_ops fifo_policy;
extern const struct policy_ops default_policy;
extern const struct policy_ops optimal_policy;
extern const struct policy_ops sjf_policy;
extern const struct policy_ops easy_policy;

const struct policy_ops *const policy_registry[] = {
    &fifo_policy,
    &default_policy,
    &optimal_policy,
    &sjf_policy,
    &easy_policy,
};
const size_t policy_registry_len = sizeof policy_registry / sizeof policy_registry[0];

const struct policy_ops *policy_find(const char *name)
{
    for (size_t i = 0; i < policy_registry_len; i++)
        if (strcmp(policy_registry[i]->name, name) == 0)
            return policy_registry[i];
    return NULL;
}
