// If-None-Match read strictly and HEAD without a body whatever the status (issue 31;
// BEHAVIOUR 6.7, 10.8): junk after a member makes the field invalid and the file is served
// as if it were absent (200, byte for byte), the valid forms still earn 304; the static
// 400 (a bad header) and the 414 answer a HEAD with their head alone, then close.
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr char kBody[] = "conditional body\n";

class ConditionalsTest : public TreeSuite<ConditionalsTest> {
public:
	static constexpr char kTreeName[] = "conditionals";
	static std::string WriteTree(const std::string &dir)
	{
		return Put(dir, "f.txt", kBody) ? "" : "cannot write f.txt";
	}

protected:
	// The answer to a GET or HEAD of /f.txt with the If-None-Match lines given.
	Received Ask(const std::string &method, const std::vector<std::string> &values)
	{
		std::string request = method + " /f.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n";
		for (const std::string &v : values)
			request += "If-None-Match: " + v + "\r\n";
		return Roundtrip(tree().port(), request + "Connection: close\r\n\r\n", false,
				 kTimeoutMs);
	}
	std::string Served(bool head)
	{
		return FileHead("text/plain; charset=utf-8", sizeof(kBody) - 1,
				tree().dir() + "/f.txt", false) +
		       (head ? "" : kBody);
	}
	std::string Etag() { return ValidatorsOf(tree().dir() + "/f.txt").etag; }
};

// The forms issue 31 names, and more of the same kind: each makes the field invalid.
TEST_F(ConditionalsTest, JunkAfterAMemberIsServedAsWithoutTheField)
{
	const std::string e = Etag();
	ASSERT_FALSE(e.empty());
	const std::vector<std::vector<std::string>> invalid = {
		{"*x"}, {e + "x"}, {"W/" + e + "x"}, {e + ";q=1"}, {e + " " + e}, {"*, " + e},
		{e.substr(1, e.size() - 2)}, {"x, " + e}, {e + ", x"}, {"*", e},
		{"\"nope\"", e + "junk"},
	};
	for (const auto &values : invalid)
		for (bool head : {false, true}) {
			Received r = Ask(head ? "HEAD" : "GET", values);
			EXPECT_EQ(r.bytes, Served(head)) << values[0];
			EXPECT_TRUE(r.eof && !r.timed_out) << values[0];
		}
}

// What stays valid: "*" alone, a tag, a weak tag, lists with empty members and OWS, a
// list split over lines.
TEST_F(ConditionalsTest, ValidFormsStillMatch)
{
	const std::string e = Etag();
	ASSERT_FALSE(e.empty());
	const std::vector<std::vector<std::string>> matching = {
		{"*"}, {e}, {"W/" + e}, {"\"x\", " + e}, {" , \"x\",\t" + e + " ,"}, {"\"x\"", e},
	};
	for (const auto &values : matching)
		for (bool head : {false, true}) {
			HttpResponse response = ParseResponse(Ask(head ? "HEAD" : "GET", values).bytes);
			EXPECT_EQ(response.status, 304) << values[0];
			EXPECT_EQ(response.body, "") << values[0];
		}
	for (const auto &values : std::vector<std::vector<std::string>>{{"\"x\""}, {""}, {","}})
		EXPECT_EQ(Ask("GET", values).bytes, Served(false)) << values[0];
}

// RFC 9110 9.3.2, BEHAVIOUR 6.7: the static 400 and the 414 are no exception.
TEST(HeadWithoutBodyTest, BadHeaderAndLongTarget)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	std::string error;
	ASSERT_TRUE(daemon.Start({}, &error)) << error;
	const std::string text = "Content-Type: text/plain; charset=utf-8\r\n";
	struct {
		std::string request, want;
	} cases[] = {
		{"HEAD / HTTP/1.1\r\nHost : x\r\n\r\n",
		 "HTTP/1.1 400 Bad Request\r\n" + text + "Content-Length: 12\r\nConnection: close\r\n\r\n"},
		{"HEAD / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		 "HTTP/1.1 400 Bad Request\r\n" + text + "Content-Length: 12\r\nConnection: close\r\n\r\n"},
		{"HEAD /" + std::string(8000, 'a') + " HTTP/1.1\r\n\r\n",
		 "HTTP/1.1 414 URI Too Long\r\n" + text + "Content-Length: 13\r\nConnection: close\r\n\r\n"},
		// The same requests as GET keep their bodies.
		{"GET / HTTP/1.1\r\nHost : x\r\n\r\n",
		 "HTTP/1.1 400 Bad Request\r\n" + text +
			 "Content-Length: 12\r\nConnection: close\r\n\r\nbad request\n"},
		{"GET /" + std::string(8000, 'a') + " HTTP/1.1\r\n\r\n",
		 "HTTP/1.1 414 URI Too Long\r\n" + text +
			 "Content-Length: 13\r\nConnection: close\r\n\r\nuri too long\n"},
	};
	for (const auto &c : cases) {
		Received r = Roundtrip(daemon.port(), c.request, true, kTimeoutMs);
		EXPECT_EQ(r.bytes, c.want) << c.request.substr(0, 40);
		EXPECT_TRUE(r.eof && !r.timed_out) << c.request.substr(0, 40);
	}
}

} // namespace
} // namespace wire
