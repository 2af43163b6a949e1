// The counter block (common/base/counters.h): atomic adds and the BEHAVIOUR 7 order.
#include <stdint.h>
#include <string.h>

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/base/counters.h"
#include "test/unit/spec_counters.h"

namespace {

TEST(CountersTest, AddsFromSeveralThreadsAreNeverLost)
{
	const int threads = 4;
	const uint64_t adds_per_thread = 100000;
	memset(&apollod_counters, 0, sizeof(apollod_counters));
	std::vector<std::thread> workers;
	for (int t = 0; t < threads; t++)
		workers.emplace_back([=] {
			for (uint64_t i = 0; i < adds_per_thread; i++) {
				counter_add(C_requests_total, 1);
				counter_add(C_bytes_read, 3);
			}
		});
	for (std::thread &w : workers)
		w.join();
	EXPECT_EQ(counter_read(C_requests_total), threads * adds_per_thread);
	EXPECT_EQ(counter_read(C_bytes_read), 3 * threads * adds_per_thread);
	EXPECT_EQ(counter_read(C_requests_get), 0u) << "other counters untouched";
}

TEST(CountersTest, ReadReturnsWhatWasAdded)
{
	memset(&apollod_counters, 0, sizeof(apollod_counters));
	counter_add(C_timeouts, UINT64_MAX - 1);
	counter_add(C_timeouts, 1);
	EXPECT_EQ(counter_read(C_timeouts), UINT64_MAX);
}

TEST(CountersTest, FirstTenNamesAreSpecSection7InOrder)
{
	const std::vector<std::string> names = counter_names();
	ASSERT_GE(names.size(), spec_counter_names.size());
	for (size_t i = 0; i < spec_counter_names.size(); i++)
		EXPECT_EQ(names[i], spec_counter_names[i]) << "counter " << i;
	EXPECT_EQ(names.size(), (size_t)COUNTER_COUNT);
}

} // namespace
