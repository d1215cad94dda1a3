/* k8s_quantity: Kubernetes resource quantities.
 *
 * Quantities follow apimachinery's resource.ParseQuantity step by step: the same
 * scanner (sign, leading zeros, integer digits, an optional fraction, then a suffix
 * made of the letters of the unit names, an optional sign and digits), the same
 * suffix tables, and the same rounding when a value is read out: Value() and
 * MilliValue() round up, so "0.1m" of CPU is 1 millicore and "0.5" bytes is 1. The
 * value is kept exactly, as its decimal digits and two exponents, and the rounding is
 * done on the digit string, so no binary floating point comes between the text and
 * the whole number Kubernetes would see. */
#include "k8s_quantity.h"

#include "../base/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
    K8S_EXP_MAX = 1000,    /* largest |n| of a decimal exponent suffix (eN) accepted */
    K8S_DIGITS_BUF = K8S_QUANTITY_MAX + 24, /* digits of a value times up to 2^60 */
    K8S_INT64_DIGITS = 19, /* decimal digits of 2^63 - 1 */
    K8S_QSHOW_MAX = 40,    /* longest text quoted in a message */
};

static const struct k8s_suffix {
    const char *s;
    int exp10, exp2, format;
} k8s_suffixes[] = {
    {"n", -9, 0, K8S_DECIMAL_SI},  {"u", -6, 0, K8S_DECIMAL_SI},  {"m", -3, 0, K8S_DECIMAL_SI},
    {"", 0, 0, K8S_DECIMAL_SI},    {"k", 3, 0, K8S_DECIMAL_SI},   {"M", 6, 0, K8S_DECIMAL_SI},
    {"G", 9, 0, K8S_DECIMAL_SI},   {"T", 12, 0, K8S_DECIMAL_SI},  {"P", 15, 0, K8S_DECIMAL_SI},
    {"E", 18, 0, K8S_DECIMAL_SI},  {"Ki", 0, 10, K8S_BINARY_SI},  {"Mi", 0, 20, K8S_BINARY_SI},
    {"Gi", 0, 30, K8S_BINARY_SI},  {"Ti", 0, 40, K8S_BINARY_SI},  {"Pi", 0, 50, K8S_BINARY_SI},
    {"Ei", 0, 60, K8S_BINARY_SI},
};
/* The letters a suffix may be made of (Kubernetes' scanner takes any run of them). */
static const char k8s_suffix_chars[] = "eEinumkKMGTP";

static bool k8s_digit(char c) { return c >= '0' && c <= '9'; }

/* True when s is one or more ASCII letters and nothing else. */
static bool k8s_letters(const char *s)
{
    size_t i = 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
        i++;
    return i > 0 && !s[i];
}

/* Interprets a suffix as Kubernetes' suffixHandler does: the SI tables first, then
 * an exponent "eN" / "EN". Returns false for an unknown suffix. */
static bool k8s_suffix(const char *s, size_t n, int *exp10, int *exp2, int *format)
{
    for (size_t i = 0; i < sizeof k8s_suffixes / sizeof k8s_suffixes[0]; i++)
        if (strlen(k8s_suffixes[i].s) == n && memcmp(k8s_suffixes[i].s, s, n) == 0) {
            *exp10 = k8s_suffixes[i].exp10;
            *exp2 = k8s_suffixes[i].exp2;
            *format = k8s_suffixes[i].format;
            return true;
        }
    if (n < 2 || (s[0] != 'e' && s[0] != 'E'))
        return false;
    /* strconv.ParseInt: an optional sign, then at least one digit, nothing else. */
    size_t i = 1;
    bool neg = false;
    if (s[i] == '+' || s[i] == '-')
        neg = s[i++] == '-';
    if (i == n)
        return false;
    long v = 0;
    for (; i < n; i++) {
        if (!k8s_digit(s[i]))
            return false;
        if (v <= K8S_EXP_MAX)
            v = v * 10 + (s[i] - '0');
    }
    if (v > K8S_EXP_MAX)
        return false;
    *exp10 = (int)(neg ? -v : v);
    *exp2 = 0;
    *format = K8S_DECIMAL_EXPONENT;
    return true;
}

int k8s_quantity_parse(const char *str, struct k8s_quantity *q, char *why, size_t whylen)
{
    static const char grammar[] =
        "a number with an optional unit, such as 500m, 2Gi, 1.5, 1e3";
    size_t end = strlen(str), pos = 0;
    if (end == 0)
        return cpn_fail(why, whylen, CPN_EINPUT, "empty (a quantity is required: %s)", grammar);
    if (end > K8S_QUANTITY_MAX)
        return cpn_fail(why, whylen, CPN_EINPUT, "'%.*s...' is longer than %d characters",
                        K8S_QSHOW_MAX, str, K8S_QUANTITY_MAX);
    bool negative = false;
    if (str[0] == '-' || str[0] == '+')
        negative = str[pos++] == '-';
    while (pos < end && str[pos] == '0')
        pos++;
    size_t num_b = pos, num_e = pos, den_b = 0, den_e = 0, suf_b = end;
    if (pos < end) {
        while (pos < end && k8s_digit(str[pos]))
            pos++;
        num_e = pos;
        if (pos < end && str[pos] == '.') {
            den_b = ++pos;
            while (pos < end && k8s_digit(str[pos]))
                pos++;
            den_e = pos;
        }
        if (pos < end) {
            suf_b = pos;
            while (pos < end && strchr(k8s_suffix_chars, str[pos]))
                pos++;
            if (pos < end && (str[pos] == '-' || str[pos] == '+'))
                pos++;
            while (pos < end && k8s_digit(str[pos]))
                pos++;
            if (pos < end && !k8s_letters(str + suf_b))
                return cpn_fail(why, whylen, CPN_EINPUT, "'%.*s' is not a Kubernetes quantity (%s)",
                                K8S_QSHOW_MAX, str, grammar);
        }
    }
    /* Kubernetes calls "2GB" malformed rather than a bad suffix; either way it is
     * rejected, and naming the unit says more. */
    int exp10 = 0, exp2 = 0, format = K8S_DECIMAL_SI;
    if (pos < end || !k8s_suffix(str + suf_b, end - suf_b, &exp10, &exp2, &format))
        return cpn_fail(why, whylen, CPN_EINPUT,
                        "unknown unit '%.*s' in '%.*s' (Kubernetes units: n u m k M G T P E, "
                        "Ki Mi Gi Ti Pi Ei, or an exponent such as e3)",
                        K8S_QSHOW_MAX, str + suf_b, K8S_QSHOW_MAX, str);

    struct k8s_quantity r = {.format = format, .exp2 = exp2};
    size_t n = 0;
    for (size_t i = num_b; i < num_e; i++)
        r.digits[n++] = str[i];
    for (size_t i = den_b; i < den_e; i++)
        if (n || str[i] != '0') /* no leading zeros */
            r.digits[n++] = str[i];
    r.exp10 = exp10 - (int)(den_e - den_b);
    while (n > 0 && r.digits[n - 1] == '0') { /* trailing zeros go to the exponent */
        n--;
        r.exp10++;
    }
    if (n == 0) {
        r.digits[n++] = '0';
        r.exp10 = 0;
        r.exp2 = 0;
        negative = false;
    }
    r.digits[n] = '\0';
    r.negative = negative;
    *q = r;
    return CPN_OK;
}

int k8s_quantity_scaled(const struct k8s_quantity *q, int scale, uint64_t *out)
{
    /* N = digits x 2^exp2, as a decimal string (doubling digit by digit). */
    char n[K8S_DIGITS_BUF];
    size_t len = strlen(q->digits);
    CPN_ASSERT(len < sizeof n);
    memcpy(n, q->digits, len + 1);
    for (int i = 0; i < q->exp2; i++) {
        int carry = 0;
        for (size_t k = len; k-- > 0;) {
            int d = (n[k] - '0') * 2 + carry;
            n[k] = (char)('0' + d % 10);
            carry = d / 10;
        }
        if (carry) {
            CPN_ASSERT(len + 1 < sizeof n);
            memmove(n + 1, n, len + 1);
            n[0] = (char)('0' + carry);
            len++;
        }
    }
    if (strcmp(n, "0") == 0) {
        *out = 0;
        return CPN_OK;
    }
    /* Multiply by 10^shift: keep the digits left of the decimal point, and round up
     * when any digit right of it is not zero. */
    long shift = (long)q->exp10 + scale;
    size_t keep = len;
    bool frac = false;
    if (shift < 0) {
        size_t k = (size_t)-shift;
        keep = k >= len ? 0 : len - k;
        for (size_t i = keep; i < len; i++)
            frac |= n[i] != '0';
    } else if (len + (size_t)shift > K8S_INT64_DIGITS) {
        return CPN_EINPUT; /* at least 10^19 */
    }
    if (keep > K8S_INT64_DIGITS)
        return CPN_EINPUT;
    uint64_t v = 0;
    for (size_t i = 0; i < keep + (shift > 0 ? (size_t)shift : 0); i++) {
        unsigned d = i < keep ? (unsigned)(n[i] - '0') : 0;
        if (v > (UINT64_MAX - d) / 10)
            return CPN_EINPUT;
        v = v * 10 + d;
    }
    if (frac)
        v++;
    if (v > K8S_INT64_MAX)
        return CPN_EINPUT;
    *out = v;
    return CPN_OK;
}
