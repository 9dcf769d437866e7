/* A minimal stand-in for <cmocka.h> (the assertions the unit tests use), so
 * that they can be cross-built for a big-endian target without a cmocka
 * built for it: scripts/check-be.sh.  SHIM_SKIP: space-separated names of
 * tests not to run (e.g. those that exec their own binary). */
#ifndef SHIM_CMOCKA_H
#define SHIM_CMOCKA_H
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct CMUnitTest { const char *name; void (*fn)(void **); };
static jmp_buf shim_jb;
static int shim_skipped;
#define SHIM_FAIL(...) do { fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); longjmp(shim_jb, 1); } while (0)
#define fail() SHIM_FAIL("fail()")
#define skip() do { shim_skipped = 1; longjmp(shim_jb, 2); } while (0)
#define assert_true(c) do { if (!(c)) SHIM_FAIL("assert_true(%s)", #c); } while (0)
#define assert_false(c) do { if (c) SHIM_FAIL("assert_false(%s)", #c); } while (0)
#define assert_ptr_equal(a, b) assert_true((const void *)(a) == (const void *)(b))
#define assert_null(p) assert_true((p) == NULL)
#define assert_ptr_not_equal(a, b) assert_true((const void *)(a) != (const void *)(b))
#define assert_non_null(p) assert_true((p) != NULL)
#define assert_int_equal(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) SHIM_FAIL("%s = %lld != %s = %lld", #a, a_, #b, b_); } while (0)
#define assert_int_not_equal(a, b) do { if ((long long)(a) == (long long)(b)) SHIM_FAIL("%s == %s", #a, #b); } while (0)
#define assert_memory_equal(a, b, n) do { if (memcmp((a), (b), (n))) SHIM_FAIL("memory differs"); } while (0)
#define assert_string_equal(a, b) do { if (strcmp((a), (b))) SHIM_FAIL("%s != %s", (a), (b)); } while (0)
#define cmocka_unit_test(f) { #f, f }
#define cmocka_run_group_tests(t, s, e) shim_run(t, sizeof(t) / sizeof((t)[0]))
static int shim_run(const struct CMUnitTest *t, size_t n)
{
	int bad = 0;
	const char *only = getenv("SHIM_ONLY");

	for (size_t i = 0; i < n; i++) {
		int r;
		const char *sk = getenv("SHIM_SKIP");
		size_t nl = strlen(t[i].name);
		const char *hit = sk ? strstr(sk, t[i].name) : NULL;

		if (only && strcmp(only, t[i].name))
			continue;
		if (hit && (hit == sk || hit[-1] == ' ') && (hit[nl] == 0 || hit[nl] == ' ')) {
			printf("[SKIP] %s\n", t[i].name);
			continue;
		}
		shim_skipped = 0;
		if ((r = setjmp(shim_jb)) == 0) {
			t[i].fn(NULL);
			printf("[ OK ] %s\n", t[i].name);
		} else if (r == 2) {
			printf("[SKIP] %s\n", t[i].name);
		} else {
			printf("[FAIL] %s\n", t[i].name);
			bad++;
		}
	}
	return bad;
}
#endif
