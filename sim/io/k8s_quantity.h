/* k8s_quantity: Kubernetes resource quantities. Parses them exactly as Kubernetes
 * does (resource.Quantity: 1500m, 2Gi, 1e3, 0.5) and reads out their whole values as
 * Kubernetes rounds them. It reads no file: the Job YAML reader (k8s.h) uses it. */
#ifndef CPN_K8S_QUANTITY_H
#define CPN_K8S_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest whole value a quantity reads out to (2^63 - 1, Kubernetes' int64). */
#define K8S_INT64_MAX UINT64_C(9223372036854775807)

/* Longest quantity text accepted (Kubernetes has no limit; real ones are short). */
#define K8S_QUANTITY_MAX 64

enum k8s_format { K8S_DECIMAL_SI, K8S_BINARY_SI, K8S_DECIMAL_EXPONENT };

/* A parsed quantity, exactly: (-1 if negative) x digits x 10^exp10 x 2^exp2. */
struct k8s_quantity {
    bool negative;
    char digits[K8S_QUANTITY_MAX + 1]; /* decimal digits, no leading zeros; "0" for zero */
    int exp10;
    int exp2;    /* 10, 20, ... 60 for Ki ... Ei */
    int format;  /* enum k8s_format, as Kubernetes would keep it */
};

/* Parses s by Kubernetes' grammar: an optional sign, digits with an optional
 * decimal point (1, 1.5, .5, 1.), then a suffix: none, a decimal SI unit (n u m k M
 * G T P E), a binary SI unit (Ki Mi Gi Ti Pi Ei) or a decimal exponent (e3, E-2).
 * Returns 0 with *q set; or CPN_EINPUT with why (of whylen bytes) saying what is
 * wrong ("unknown unit 'GB'..."), leaving *q untouched. */
int k8s_quantity_parse(const char *s, struct k8s_quantity *q, char *why, size_t whylen);

/* The magnitude times 10^scale, rounded up to a whole number as Kubernetes rounds:
 * scale 0 is Quantity.Value() (bytes of a memory quantity), scale 3 is
 * MilliValue() (millicores of a CPU quantity). Returns 0, or CPN_EINPUT when the
 * result exceeds 2^63 - 1. The sign is q->negative. */
int k8s_quantity_scaled(const struct k8s_quantity *q, int scale, uint64_t *out);

#endif
