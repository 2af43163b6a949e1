// The Location of --root's 301 over the wire (feature `files`, BEHAVIOUR 10.4): every
// byte outside RFC 3986 pchar and '/' (and '?' in the query) is percent-encoded, so no
// directory name can turn it into another site ("/\evil.com/" read as "//evil.com/"),
// and the encoded Location leads back to the same directory.
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 5000;
constexpr size_t kTripledQuery = 3000; // '"' bytes: their Location would pass 8,001 bytes

class LocationTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		root_ = std::make_unique<FileRoot>(std::vector<std::pair<std::string, std::string>>{
			{"\\evil.com/x.txt", "x\n"},
			{"q\"<>^`{|}[]/y.txt", "y\n"},
			{"sub/z.txt", "z\n"},
		});
		ASSERT_NE(root_->dir(), "");
		START_DAEMON(daemon_, DaemonOptions{{"--root", root_->dir()}});
	}

	// The Location of target's answer, which must be a 301; "" otherwise.
	std::string LocationOf(const std::string &target)
	{
		Received r = Roundtrip(daemon_.port(), GetClose(target), false, kTimeoutMs);
		HttpResponse resp = ParseResponse(r.bytes);
		EXPECT_EQ(resp.status, 301) << target << ": " << r.bytes;
		std::string::size_type at = r.bytes.find("\r\nLocation: ");
		if (at == std::string::npos)
			return "";
		at += sizeof("\r\nLocation: ") - 1;
		return r.bytes.substr(at, r.bytes.find("\r\n", at) - at);
	}

	// The status and body of GET target.
	std::pair<int, std::string> StatusAndBody(const std::string &target)
	{
		HttpResponse resp = ParseResponse(
			Roundtrip(daemon_.port(), GetClose(target), false, kTimeoutMs).bytes);
		return {resp.status, resp.body};
	}

	std::unique_ptr<FileRoot> root_;
	Daemon daemon_;
};

TEST_F(LocationTest, BackslashIsEncoded)
{
	EXPECT_EQ(LocationOf("/\\evil.com"), "/%5Cevil.com/");
	EXPECT_EQ(LocationOf("/%5Cevil.com"), "/%5Cevil.com/"); // already encoded: as sent
	EXPECT_EQ(LocationOf("/%5cevil.com?a\\b"), "/%5cevil.com/?a%5Cb");
	EXPECT_EQ(StatusAndBody("/%5Cevil.com/x.txt"), std::make_pair(200, std::string("x\n")));
}

TEST_F(LocationTest, EveryNonPcharByteIsEncoded)
{
	std::string location = LocationOf("/q\"<>^`{|}[]");
	EXPECT_EQ(location, "/q%22%3C%3E%5E%60%7B%7C%7D%5B%5D/");
	EXPECT_EQ(StatusAndBody(location + "y.txt"), std::make_pair(200, std::string("y\n")));
	// pchar, '/' and the query's '?' stay; '#' and a lone '%' in the query do not.
	EXPECT_EQ(LocationOf("/sub?!$&'()*+,;=:@/?#%"), "/sub/?!$&'()*+,;=:@/?%23%25");
}

// A Location that encoding makes longer than any target (8,001 bytes) could not be
// asked for: the directory's request gets 414 instead, and the connection stays.
TEST_F(LocationTest, LocationBeyondTheLongestTargetIs414)
{
	std::string target = "/sub?" + std::string(kTripledQuery, '"');
	int fd = ConnectLoopback(daemon_.port());
	ASSERT_GE(fd, 0);
	Received r = Exchange(fd, wire::Get(target) + GetClose("/health"), false, kTimeoutMs);
	close(fd);
	EXPECT_EQ(r.bytes.rfind("HTTP/1.1 414 URI Too Long\r\n", 0), 0u) << r.bytes;
	EXPECT_NE(r.bytes.find("\r\n\r\nok"), std::string::npos) << "the next request was answered";
}

} // namespace
} // namespace wire
