// The --root snapshot and the table sized from the tree (feature `files`, BEHAVIOUR 10.1
// and 10.3): a file truncated, grown, rewritten in place at the same size, or replaced by
// rename, before or in the middle of a response, still goes out as its start-up bytes;
// and a tree of 100,000 small files in 100 directories loads and serves.
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 20000;
constexpr size_t kBigFile = 4u << 20; // large enough that a response is still in flight
constexpr size_t kFirstRead = 64u << 10; // read this much, change the file, read the rest

// A fresh directory under /tmp, removed with everything in it when the object goes.
class ScratchDir {
public:
	ScratchDir()
	{
		char name[] = "/tmp/apollod-snapshot-XXXXXX";
		if (mkdtemp(name) != nullptr)
			path_ = name;
	}
	~ScratchDir()
	{
		if (!path_.empty())
			nftw(
				path_.c_str(),
				[](const char *p, const struct stat *, int, struct FTW *) {
					return remove(p);
				},
				16, FTW_DEPTH | FTW_PHYS);
	}
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

bool WriteWhole(const std::string &path, const std::string &content, int flags = O_TRUNC)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	bool ok = fd >= 0 && write(fd, content.data(), content.size()) ==
				     static_cast<ssize_t>(content.size());
	if (fd >= 0)
		close(fd);
	return ok;
}

std::string Random(size_t n, uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::string s(n, '\0');
	for (char &c : s)
		c = static_cast<char>(rng());
	return s;
}

// The 200 head of the file at path, stat'ed now (before any change), length bytes long.
std::string Head(const std::string &path, size_t length)
{
	return FileHead("application/octet-stream", length, path, false);
}

// Reads from fd until at least want bytes are in *got, or EOF, error, or the timeout.
void ReadAtLeast(int fd, size_t want, std::string *got)
{
	int64_t deadline = NowMs() + kTimeoutMs;
	char buf[65536];
	while (got->size() < want && NowMs() < deadline) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, static_cast<int>(deadline - NowMs())) <= 0)
			return;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return;
		got->append(buf, static_cast<size_t>(n));
	}
}

// One way to change a served file after start-up.
struct Change {
	std::string label;
	std::function<bool(const std::string &path)> apply;
};

class SnapshotTest : public testing::TestWithParam<Change> {};

// Each file of the tree is changed twice: once while a response of it is half read, once
// before a fresh request. Both responses are the start-up bytes exactly.
TEST_P(SnapshotTest, ClientsOnlyEverSeeTheStartUpBytes)
{
	REQUIRE_FEATURE("files");
	ScratchDir dir;
	ASSERT_FALSE(dir.path().empty()) << strerror(errno);
	const std::string original = Random(kBigFile, 12);
	const std::string file = dir.path() + "/f.bin";
	ASSERT_TRUE(WriteWhole(file, original));
	Daemon daemon;
	DaemonOptions options;
	options.extra_args = {"--root", dir.path()};
	START_DAEMON(daemon, options);
	const std::string expected = Head(file, original.size()) + original;

	int fd = ConnectLoopback(daemon.port());
	ASSERT_GE(fd, 0);
	ASSERT_TRUE(SendAll(fd, "GET /f.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
	std::string got;
	ReadAtLeast(fd, kFirstRead, &got);
	ASSERT_TRUE(GetParam().apply(file)) << "changing the file: " << strerror(errno);
	Received rest = ReadUntilClose(fd, kTimeoutMs);
	close(fd);
	got = WithoutDates(got) + rest.bytes; // the first read holds the whole head
	EXPECT_TRUE(rest.eof) << "no EOF after the response in flight";
	EXPECT_TRUE(got == expected) << "in flight: got " << got.size() << " bytes, want "
				     << expected.size();

	ASSERT_TRUE(GetParam().apply(file));
	Received after = Roundtrip(daemon.port(),
				   "GET /f.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
				   false, kTimeoutMs);
	EXPECT_TRUE(after.bytes == expected)
		<< "after: got " << after.bytes.size() << " bytes, want " << expected.size();
	EXPECT_TRUE(daemon.IsAlive());
}

const Change kChanges[] = {
	{"truncated_to_zero", [](const std::string &p) { return truncate(p.c_str(), 0) == 0; }},
	{"truncated_to_half",
	 [](const std::string &p) { return truncate(p.c_str(), kBigFile / 2) == 0; }},
	{"grown", [](const std::string &p) { return WriteWhole(p, Random(kBigFile, 3), O_APPEND); }},
	{"rewritten_in_place_same_size",
	 [](const std::string &p) {
		 int fd = open(p.c_str(), O_WRONLY | O_CLOEXEC);
		 std::string other = Random(kBigFile, 4);
		 bool ok = fd >= 0 && pwrite(fd, other.data(), other.size(), 0) ==
					      static_cast<ssize_t>(other.size());
		 if (fd >= 0)
			 close(fd);
		 return ok;
	 }},
	{"replaced_by_rename",
	 [](const std::string &p) {
		 return WriteWhole(p + ".new", Random(kBigFile / 3, 5)) &&
			rename((p + ".new").c_str(), p.c_str()) == 0;
	 }},
	{"removed", [](const std::string &p) { return unlink(p.c_str()) == 0 || errno == ENOENT; }},
};

INSTANTIATE_TEST_SUITE_P(Snapshot, SnapshotTest, testing::ValuesIn(kChanges),
			 [](const testing::TestParamInfo<Change> &i) { return i.param.label; });

// 100,000 files of a few bytes in 100 directories: all load (files_cached), and a sample
// across the tree is served byte-exact, GET and HEAD.
TEST(BigTreeTest, HundredThousandFilesServe)
{
	REQUIRE_FEATURE("files");
	constexpr int kDirs = 100;
	constexpr int kPerDir = 1000;
	constexpr int kSampleStep = 997; // a prime: the sample crosses every directory
	ScratchDir dir;
	ASSERT_FALSE(dir.path().empty());
	auto body = [](int d, int f) { return "d" + std::to_string(d) + "/f" + std::to_string(f) + "\n"; };
	for (int d = 0; d < kDirs; d++) {
		ASSERT_EQ(mkdir((dir.path() + "/d" + std::to_string(d)).c_str(), 0755), 0);
		for (int f = 0; f < kPerDir; f++)
			ASSERT_TRUE(WriteWhole(dir.path() + "/d" + std::to_string(d) + "/f" +
						       std::to_string(f),
					       body(d, f)));
	}
	Daemon daemon;
	DaemonOptions options;
	options.extra_args = {"--root", dir.path()};
	START_DAEMON(daemon, options);
	std::map<std::string, uint64_t> m = FetchMetrics(daemon.port());
	EXPECT_EQ(m["files_cached"], static_cast<uint64_t>(kDirs * kPerDir));
	uint64_t bytes = 0;
	for (int d = 0; d < kDirs; d++)
		for (int f = 0; f < kPerDir; f++)
			bytes += body(d, f).size();
	EXPECT_EQ(m["bytes_cached"], bytes);
	for (int n = 0; n < kDirs * kPerDir; n += kSampleStep) {
		int d = n / kPerDir, f = n % kPerDir;
		std::string target = "/d" + std::to_string(d) + "/f" + std::to_string(f);
		std::string b = body(d, f);
		for (const char *method : {"GET", "HEAD"}) {
			Received r = Roundtrip(daemon.port(),
					       std::string(method) + " " + target +
						       " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
					       false, kTimeoutMs);
			EXPECT_EQ(r.bytes, Head(dir.path() + target, b.size()) + (method[0] == 'G' ? b : ""))
				<< method << " " << target;
		}
	}
	Received r = Roundtrip(daemon.port(),
			       "GET /d0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false,
			       kTimeoutMs);
	EXPECT_EQ(ParseResponse(r.bytes).status, 301) << "a directory of the big tree";
}

} // namespace
} // namespace wire
