/* Description: the three versions agree: the header's macros
 * (SOFL_VERSION_MAJOR/MINOR/PATCH, SOFL_VERSION, SOFL_VERSION_STRING), the
 * library's sofl_version()/sofl_version_string() and the CLI's
 * "softoffload --version" line; SOFL_VERSION orders releases as
 * MAJOR * 10000 + MINOR * 100 + PATCH and the string is "MAJOR.MINOR.PATCH". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "softoffload/softoffload.h"
#include "helpers.h"
#include "cli_util.h"

static void
test_header_library(void **state)
{
	char want[32];

	(void)state;
	assert_true(SOFL_VERSION_MINOR < 100 && SOFL_VERSION_PATCH < 100);
	assert_int_equal(SOFL_VERSION, SOFL_VERSION_MAJOR * 10000 +
			 SOFL_VERSION_MINOR * 100 + SOFL_VERSION_PATCH);
	snprintf(want, sizeof(want), "%d.%d.%d", SOFL_VERSION_MAJOR,
		 SOFL_VERSION_MINOR, SOFL_VERSION_PATCH);
	assert_string_equal(SOFL_VERSION_STRING, want);
	assert_int_equal(sofl_version(), SOFL_VERSION);
	assert_non_null(sofl_version_string());
	assert_string_equal(sofl_version_string(), SOFL_VERSION_STRING);
}

static void
test_cli(void **state)
{
	char want[96];
	char cmd[PATH_MAX + 64];
	int st;

	(void)state;
	snprintf(want, sizeof(want), "softoffload %s (libsoftoffload %s)\n",
		 SOFL_VERSION_STRING, sofl_version_string());
	assert_int_equal(t_cli_run("--version", "%s", ""), 0);
	assert_string_equal(t_cli_out, want);
	assert_string_equal(t_cli_err, "");
	/* an output that cannot be written is an error */
	snprintf(cmd, sizeof(cmd), "'%s' --version >/dev/full 2>/dev/null", t_cli_path);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_library),
		cmocka_unit_test(test_cli),
	};
	int rc = t_cli_init("version");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return t_cli_fini() ? 1 : rc;
}
