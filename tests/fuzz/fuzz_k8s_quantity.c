/* Fuzzes Kubernetes resource quantities (k8s_quantity_parse, k8s_quantity_scaled).
 * A parsed quantity holds only decimal digits; scaling either fails cleanly or gives
 * a value below 2^63. */
#include "fuzz.h"

#include "../../sim/io/k8s_quantity.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL, "malloc");
    memcpy(s, data, size);
    s[size] = '\0';
    struct k8s_quantity q;
    char why[CPN_ERR_LEN] = "";
    int rc = k8s_quantity_parse(s, &q, why, sizeof why);
    if (rc != 0) {
        FUZZ_CHECK(rc == CPN_EINPUT && why[0], "rc %d, why '%s'", rc, why);
    } else {
        size_t nd = strnlen(q.digits, sizeof q.digits);
        FUZZ_CHECK(nd > 0 && nd < sizeof q.digits, "digits not terminated");
        FUZZ_CHECK(strspn(q.digits, "0123456789") == nd, "digits '%s'", q.digits);
        FUZZ_CHECK(nd == 1 || q.digits[0] != '0', "leading zero in '%s'", q.digits);
        static const int scales[] = {0, 3, 6, 9};
        for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
            uint64_t v = 0;
            int src = k8s_quantity_scaled(&q, scales[i], &v);
            FUZZ_CHECK(src == 0 || src == CPN_EINPUT, "scaled rc %d", src);
            FUZZ_CHECK(src != 0 || v <= (uint64_t)INT64_MAX, "'%s' scaled to %llu", s,
                       (unsigned long long)v);
        }
    }
    free(s);
    return 0;
}
