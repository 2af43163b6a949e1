// Malformed requests over the wire (feature `routes`, BEHAVIOUR 6): each is answered 400 (or,
// when nothing arrived, closed silently) and followed by a liveness check. Peers that
// close or reset before the reply (every tier, min included): the daemon survives
// (BEHAVIOUR 3: SIGPIPE never kills it).
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr size_t kGarbageBytes = 64 * 1024;
constexpr size_t kHugeHeaderBytes = 20000;
constexpr size_t kHeadLimit = 16384; // BEHAVIOUR 6.8
constexpr size_t kTargetMax = 8000;  // BEHAVIOUR 6.1; longer is 414 (long_target_test.cc)

// 64 KiB of bytes from a fixed seed: every run sends the same garbage.
std::string Garbage()
{
	std::mt19937 random(12345);
	std::string bytes(kGarbageBytes, '\0');
	for (char &b : bytes)
		b = static_cast<char>(random());
	return bytes;
}

std::string TargetOfLength(size_t length)
{
	return "GET /" + std::string(length - 1, 'a') + " HTTP/1.1\r\n\r\n";
}

const std::vector<RawCase> kMalformedCases = {
	{"empty_method", " / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"digit_method_123", "123 / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"lowercase_method", "get / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"mixed_case_method", "Get / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"method_17_letters", "ABCDEFGHIJKLMNOPQ / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"missing_version_http09", "GET /\r\n\r\n", false, Outcome::kStatus400},
	{"version_http_2_0", "GET / HTTP/2.0\r\n\r\n", false, Outcome::kStatus400},
	{"version_http_1_2", "GET / HTTP/1.2\r\n\r\n", false, Outcome::kStatus400},
	{"version_lowercase", "GET / http/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"two_spaces_after_method", "GET  / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"nul_in_target", Bytes("GET /\0a HTTP/1.1\r\n\r\n"), false, Outcome::kStatus400},
	{"nul_in_method", Bytes("G\0T / HTTP/1.1\r\n\r\n"), false, Outcome::kStatus400},
	{"nul_bytes_only_line", Bytes("\0\0\0\0\r\n\r\n"), false, Outcome::kStatus400},
	{"control_byte_in_target", "GET /\001 HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"del_in_target", "GET /\177 HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"high_byte_in_target", "GET /\351 HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"tab_in_request_line", "GET\t/ HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"space_in_target", "GET /a b HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"unrooted_target", "GET health HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"asterisk_target_of_get", "GET * HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"target_8000_bytes_is_valid", TargetOfLength(kTargetMax), false, Outcome::kStatus404},
	{"target_8001_bytes_is_414", TargetOfLength(kTargetMax + 1), false, Outcome::kStatus414},
	// A DEL as the 8,000th target byte, then more: 400, decided before the length is.
	{"bad_byte_within_8000_target_bytes",
	 "GET /" + std::string(kTargetMax - 2, 'a') + "\177" + std::string(10, 'a') +
		 " HTTP/1.1\r\n\r\n",
	 false, Outcome::kStatus400},
	{"empty_line_before_request", "\r\nGET / HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"bad_line_before_405", "PUT /\001 HTTP/1.1\r\n\r\n", false, Outcome::kStatus400},
	{"a_16384_times", std::string(kHeadLimit, 'A'), false, Outcome::kStatus400},
	{"header_of_20000_bytes",
	 "GET / HTTP/1.1\r\nX-Big: " + std::string(kHugeHeaderBytes, 'a') + "\r\n\r\n", false,
	 Outcome::kStatus400},
	{"head_without_end_fills_16384", "GET / HTTP/1.1\r\n" + std::string(kHeadLimit, 'x'),
	 false, Outcome::kStatus400},
	{"garbage_64_kib", Garbage(), false, Outcome::kStatus400},
	{"empty_connection", "", true, Outcome::kSilentClose},
	{"truncated_request_then_eof", "GET / HTTP/1.1\r\nHost: a", true, Outcome::kStatus400},
	{"truncated_request_line_then_eof", "GE", true, Outcome::kStatus400},
	{"missing_final_crlf_then_eof", "GET / HTTP/1.1\r\nHost: a\r\n", true,
	 Outcome::kStatus400},
	{"lf_only_then_eof", "GET / HTTP/1.1\n\n", true, Outcome::kStatus400},
	{"lf_only_with_header_then_eof", "GET / HTTP/1.1\nHost: a\n\n", true,
	 Outcome::kStatus400},
};

class MalformedTest : public SharedDaemonFixture<testing::TestWithParam<RawCase>> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		SharedDaemonFixture::SetUp();
	}
};

TEST_P(MalformedTest, AnsweredThenAlive)
{
	CheckRawCase(port_, GetParam());
}

INSTANTIATE_TEST_SUITE_P(RequestLine, MalformedTest, testing::ValuesIn(kMalformedCases),
			 RawCaseName);

// How a peer leaves before reading the reply.
enum class Leave {
	kClose,         // close(): FIN (a RST follows if the reply arrives)
	kReset,         // SO_LINGER 0 then close(): RST at once
	kResetMidwrite, // a partial head, then the rest and a RST together
};

// Opens `times` connections that each send a request and leave as `how` says.
void LeaveBeforeReply(int port, Leave how, int times)
{
	for (int i = 0; i < times; i++) {
		int fd = ConnectLoopback(port);
		ASSERT_GE(fd, 0);
		std::string request = Get("/");
		if (how == Leave::kResetMidwrite) {
			SendAll(fd, request.substr(0, 10));
			SleepMs(20);
			request = request.substr(10);
		}
		SendAll(fd, request);
		if (how != Leave::kClose) {
			struct linger abort_on_close = {1, 0};
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close));
		}
		close(fd);
	}
}

class EarlyCloseTest : public testing::Test {
protected:
	void SetUp() override { START_DAEMON(daemon_, DaemonOptions{}); }
	// The witness that the daemon is past the writes that met the closed peers: it has
	// closed every one of their connections. Then it must still be alive and answer.
	void ExpectAlive()
	{
		EXPECT_TRUE(WaitUntil([this] { return ConnectionsHeld(daemon_.ServingPid()) == 0; }))
			<< ConnectionsHeld(daemon_.ServingPid()) << " connections still held";
		EXPECT_TRUE(daemon_.IsAlive()) << "the daemon died (SIGPIPE?)";
		EXPECT_EQ(LivenessProblem(daemon_.port()), "");
	}
	Daemon daemon_;
};

constexpr int kEarlyClosers = 20;

TEST_F(EarlyCloseTest, PeerClosesBeforeReply)
{
	LeaveBeforeReply(daemon_.port(), Leave::kClose, kEarlyClosers);
	ExpectAlive();
}

TEST_F(EarlyCloseTest, PeerResetsBeforeReply)
{
	LeaveBeforeReply(daemon_.port(), Leave::kReset, kEarlyClosers);
	ExpectAlive();
}

TEST_F(EarlyCloseTest, PeerResetsAfterPartialHead)
{
	LeaveBeforeReply(daemon_.port(), Leave::kResetMidwrite, kEarlyClosers);
	ExpectAlive();
}

TEST_F(EarlyCloseTest, PeerConnectsAndClosesWithoutSending)
{
	for (int i = 0; i < kEarlyClosers; i++) {
		int fd = ConnectLoopback(daemon_.port());
		ASSERT_GE(fd, 0);
		close(fd);
	}
	ExpectAlive();
}

} // namespace
} // namespace wire
