/* cpn_utf8_seq, the check that keeps summary.json valid UTF-8 whatever bytes an id, a
 * path or a --set value holds (RFC 3629, section 4's table of well-formed sequences). */
#include <criterion/criterion.h>
#include <string.h>

#include "../sim/base/util.h"

static size_t seq(const char *s) { return cpn_utf8_seq((const unsigned char *)s, strlen(s)); }

Test(utf8, well_formed_sequences_have_their_length)
{
    cr_assert_eq(seq("a"), 1);
    cr_assert_eq(seq("\xC3\xA9"), 2);         /* é */
    cr_assert_eq(seq("\xE2\x88\x92"), 3);     /* − */
    cr_assert_eq(seq("\xF0\x9F\x98\x80"), 4); /* U+1F600 */
    cr_assert_eq(seq("\xF4\x8F\xBF\xBF"), 4); /* U+10FFFF */
}

Test(utf8, ill_formed_sequences_are_refused)
{
    cr_assert_eq(seq("\xFF"), 0);             /* never in UTF-8 */
    cr_assert_eq(seq("\x80"), 0);             /* a lone continuation byte */
    cr_assert_eq(seq("\xC0\xAF"), 0);         /* overlong '/' */
    cr_assert_eq(seq("\xE0\x80\xAF"), 0);     /* overlong */
    cr_assert_eq(seq("\xED\xA0\x80"), 0);     /* surrogate U+D800 */
    cr_assert_eq(seq("\xF4\x90\x80\x80"), 0); /* past U+10FFFF */
    cr_assert_eq(seq("\xC3"), 0);             /* cut short */
    cr_assert_eq(seq("\xE2\x88"), 0);
}
