// The wire suite's entry point: every tier's <tier>_wire_test runs this suite's one binary
// with the tier's daemon and features (see bazel/wire_test.bzl and README.md).
#include <signal.h>

#include "gtest/gtest.h"
#include "test/wire/wire_harness.h"

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv); // removes the --gtest_* flags it knows
	if (!wire::ParseSuiteArgs(argc, argv))
		return 2;
	// A daemon that closes early must fail a check, not kill the test with SIGPIPE.
	signal(SIGPIPE, SIG_IGN);
	return RUN_ALL_TESTS();
}
