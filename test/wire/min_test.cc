// The min tier over the wire (feature `min`, BEHAVIOUR 8): exact response bytes whatever the
// request. 100 sequential requests, start-up and early-closing peers are checked by the
// suites every tier runs (routes_test.cc, startup_test.cc, malformed_test.cc).
#include <string>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr char kMinResponse[] =
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK";

class MinTest : public SharedDaemonFixture<testing::Test> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("min");
		SharedDaemonFixture::SetUp();
	}
};

TEST_F(MinTest, ExactResponseBytesWhateverTheRequest)
{
	for (const std::string &request :
	     {Get("/"), Get("/health"), Get("/anything?x=1"), Get("/", "HEAD"), Get("/", "PUT"),
	      std::string("GET / HTTP/1.0\r\n\r\n")}) {
		Received r = Roundtrip(port_, request);
		EXPECT_TRUE(r.eof) << "min closes after its reply";
		EXPECT_EQ(r.bytes, kMinResponse) << "request: " << request;
	}
}

} // namespace
} // namespace wire
