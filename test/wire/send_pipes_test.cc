// The send pipes (feature `files`, BEHAVIOUR 10.17, common/serve/send_pipes.h): a body by
// reference from the snapshot leaves by vmsplice into a pipe of the serving process's
// pool, then splice to the socket. Byte-exact bodies at sizes around the by-reference
// threshold and the pipe's capacity, read fast and read slowly in small pieces (partial
// splices); a stalled reader holding a pipe while other clients are served; more stalled
// downloads than pipes (the rest go by sendfile, counted in send_pipe_misses), all
// byte-exact; a reset in the middle of a body whose pipe holds bytes (the pipe made anew,
// send_pipes_recreated) and the next download byte-exact; a reload while a download holds
// a pipe.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;
constexpr size_t kByReferenceMin = kMiB; // FILE_BY_REFERENCE_MIN (site.h)
constexpr size_t kPipeBytes = kMiB;            // SEND_PIPE_BYTES (send_pipes.h)
constexpr size_t kPipes = 16;                  // SEND_PIPES (send_pipes.h)
constexpr size_t kStallBody = 16 * kMiB; // more than a loopback socket's buffers hold
constexpr size_t kOtherBody = 4 * kMiB + 4000;
constexpr int kSmallWindow = 4096;       // a slow reader's SO_RCVBUF
constexpr size_t kSlowPiece = 3000;      // what a slow reader takes per read
constexpr int kTimeoutMs = 60000;

// Writes content to dir/name; false on failure.
bool WriteAt(const std::string &dir, const std::string &name, const std::string &content)
{
	return Put(dir, name, content);
}

// The close-form response the daemon sends for the file at path holding body.
std::string Expected(const std::string &path, const std::string &body)
{
	return FileHead("application/octet-stream", body.size(), path, false) + body;
}

// Reads fd until close, piece bytes per recv at most (a slow reader's small reads).
Received ReadInPieces(int fd, size_t piece, int timeout_ms)
{
	Received r;
	std::string raw;
	std::vector<char> buf(piece);
	for (int64_t end = NowMs() + timeout_ms; NowMs() < end;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t n = recv(fd, buf.data(), piece, 0);
		if (n <= 0) {
			r.eof = n == 0;
			r.reset = n < 0 && errno == ECONNRESET;
			break;
		}
		raw.append(buf.data(), static_cast<size_t>(n));
	}
	r.bytes = WithoutDates(raw, &r.dates);
	return r;
}

// Opens a connection with a small window that asks for path and reads nothing.
int StalledDownload(int port, const std::string &path)
{
	int fd = ConnectLoopback(port, 10000, kSmallWindow);
	if (fd >= 0 && !SendAll(fd, GetClose(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

// The kernel's huge page size (huge_pages.h: hpage_pmd_size), or 0.
size_t HugePageSize()
{
	std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	size_t v = 0;
	return in >> v ? v : 0;
}

// Whether this kernel joins a memfd's pages into a huge page now, as the loader asks
// (MADV_COLLAPSE of one written block mapped at a block-aligned address).
bool MemfdPagesJoin(size_t block)
{
	int fd = memfd_create("apollod-test-collapse", MFD_CLOEXEC);
	std::string bytes = Random(block, 5);
	bool ok = fd >= 0 && write(fd, bytes.data(), block) == static_cast<ssize_t>(block);
	void *r = ok ? mmap(nullptr, 2 * block, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		     : MAP_FAILED;
	if (r != MAP_FAILED) {
		uintptr_t at = (reinterpret_cast<uintptr_t>(r) + block - 1) & ~(block - 1);
		void *m = mmap(reinterpret_cast<void *>(at), block, PROT_READ, MAP_SHARED | MAP_FIXED,
			       fd, 0);
		ok = m != MAP_FAILED && madvise(m, block, 25 /* MADV_COLLAPSE */) == 0;
		munmap(r, 2 * block);
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

// A /proc/PID/smaps_rollup field in kB, or -1.
long SmapsRollupKb(pid_t pid, const std::string &field)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
	for (std::string line; std::getline(in, line);)
		if (line.rfind(field + ":", 0) == 0)
			return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
	return -1;
}

// Closes fd with a reset (SO_LINGER 0) instead of a FIN.
void Reset(int fd)
{
	struct linger l = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

class SendPipesTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		char name[] = "/tmp/apollod-pipes-XXXXXX";
		ASSERT_NE(mkdtemp(name), nullptr) << strerror(errno);
		dir_ = name;
	}
	void TearDown() override
	{
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 10000);
	}
	// Writes name holding size pseudo-random bytes (seeded by size) and remembers it.
	void AddFile(const std::string &name, size_t size)
	{
		files_[name] = Random(size, size * 31 + 7);
		ASSERT_TRUE(WriteAt(dir_, name, files_[name]));
	}
	void StartDaemon(Daemon &daemon)
	{
		DaemonOptions options;
		options.extra_args = {"--root", dir_, "--send-timeout", "60", "--compress", "off"};
		std::string error;
		ASSERT_TRUE(daemon.Start(options, &error)) << error;
	}
	// Serves stall.bin and other.bin, and starts a download of stall.bin that reads
	// nothing (*fd) until its socket filled (write_eagains moved): its pipe holds bytes.
	void StartWithAStalledDownload(Daemon &daemon, int *fd)
	{
		AddFile("stall.bin", kStallBody);
		AddFile("other.bin", kOtherBody);
		StartDaemon(daemon);
		*fd = StalledDownload(daemon.port(), "/stall.bin");
		ASSERT_GE(*fd, 0);
		ASSERT_TRUE(WaitUntil(
			[&] { return FetchMetrics(daemon.port())["write_eagains"] > 0; }))
			<< "the stalled download never filled its socket";
	}
	// GETs name on a fresh connection, read at once; checks it byte-exact.
	void ExpectWhole(int port, const std::string &name)
	{
		Received r = Roundtrip(port, GetClose("/" + name), false, kTimeoutMs);
		EXPECT_TRUE(r.bytes == Expected(dir_ + "/" + name, files_[name]))
			<< name << ": got " << r.bytes.size() << " bytes, want "
			<< Expected(dir_ + "/" + name, files_[name]).size();
	}
	std::string dir_;
	std::map<std::string, std::string> files_;
};

// Sizes on both sides of the threshold and of one, two and four pipes' worth, and odd
// ones: each byte-exact read at once and read 3,000 bytes at a time through a 4 KiB
// window (every splice partial); bytes_by_pipe moves by exactly the by-reference bodies.
TEST_F(SendPipesTest, BodiesAroundTheThresholdAndThePipeSizeAreByteExact)
{
	static_assert(kByReferenceMin == kPipeBytes, "the threshold's sizes are the pipe's too");
	const std::vector<size_t> sizes = {
		kByReferenceMin - 1, kByReferenceMin,       kByReferenceMin + 1,
		2 * kPipeBytes - 1,  2 * kPipeBytes + 1,    4 * kPipeBytes - 4095,
		5 * kMiB + 12345,    16 * kPipeBytes + 777};
	for (size_t s : sizes)
		AddFile(std::to_string(s) + ".bin", s);
	Daemon daemon;
	StartDaemon(daemon);
	auto before = FetchMetrics(daemon.port());
	uint64_t piped = 0;
	for (size_t s : sizes) {
		std::string name = std::to_string(s) + ".bin";
		ExpectWhole(daemon.port(), name);
		int fd = ConnectLoopback(daemon.port(), 10000, kSmallWindow);
		ASSERT_GE(fd, 0);
		ASSERT_TRUE(SendAll(fd, GetClose("/" + name)));
		Received slow = ReadInPieces(fd, kSlowPiece, kTimeoutMs);
		close(fd);
		EXPECT_TRUE(slow.bytes == Expected(dir_ + "/" + name, files_[name]))
			<< name << " read slowly: got " << slow.bytes.size() << " bytes";
		piped += s >= kByReferenceMin ? 2 * s : 0;
	}
	auto after = FetchMetrics(daemon.port());
	EXPECT_EQ(after["bytes_by_pipe"] - before["bytes_by_pipe"], piped);
	EXPECT_EQ(after["bytes_by_reference"] - before["bytes_by_reference"], piped);
	EXPECT_EQ(after["send_pipe_misses"], 0u);
	EXPECT_EQ(after["send_pipes_recreated"], 0u);
}

// A reader that stops reading holds its pipe (bytes sit in it: write_eagains moved);
// meanwhile 10 other downloads are served whole, and then the stalled one is too.
TEST_F(SendPipesTest, AStalledReaderHoldsAPipeWhileOthersAreServed)
{
	Daemon daemon;
	int fd = -1;
	ASSERT_NO_FATAL_FAILURE(StartWithAStalledDownload(daemon, &fd));
	for (int i = 0; i < 10; i++)
		ExpectWhole(daemon.port(), "other.bin");
	Received r = ReadUntilClose(fd, kTimeoutMs);
	close(fd);
	EXPECT_TRUE(r.bytes == Expected(dir_ + "/stall.bin", files_["stall.bin"]))
		<< "got " << r.bytes.size() << " bytes";
	auto m = FetchMetrics(daemon.port());
	EXPECT_EQ(m["send_pipe_misses"], 0u);
	EXPECT_EQ(m["bytes_by_pipe"], kStallBody + 10 * kOtherBody);
}

// More stalled downloads than the pool has pipes: those beyond it find none and go by
// sendfile (send_pipe_misses), and every body arrives byte-exact; nothing is recreated.
TEST_F(SendPipesTest, MoreDownloadsThanPipesAreAllByteExact)
{
	AddFile("stall.bin", kStallBody);
	Daemon daemon;
	StartDaemon(daemon);
	std::vector<int> fds;
	for (size_t i = 0; i < kPipes + 4; i++) {
		fds.push_back(StalledDownload(daemon.port(), "/stall.bin"));
		ASSERT_GE(fds.back(), 0);
	}
	ASSERT_TRUE(WaitUntil([&] { return FetchMetrics(daemon.port())["send_pipe_misses"] >= 4; }))
		<< "the downloads beyond " << kPipes << " pipes never missed one";
	for (int fd : fds) {
		Received r = ReadUntilClose(fd, kTimeoutMs);
		close(fd);
		EXPECT_TRUE(r.bytes == Expected(dir_ + "/stall.bin", files_["stall.bin"]))
			<< "got " << r.bytes.size() << " bytes";
	}
	auto m = FetchMetrics(daemon.port());
	EXPECT_EQ(m["bytes_by_reference"], (kPipes + 4) * kStallBody);
	EXPECT_LT(m["bytes_by_pipe"], m["bytes_by_reference"]) << "some went by sendfile";
	EXPECT_EQ(m["send_pipes_recreated"], 0u);
}

// A client resets while its pipe holds bytes: the pipe is closed and made anew
// (send_pipes_recreated 1, none lost), and the next downloads through the pool, fast and
// slow, are byte-exact.
TEST_F(SendPipesTest, AResetMidBodyRecreatesThePipeAndTheNextDownloadIsExact)
{
	Daemon daemon;
	int fd = -1;
	ASSERT_NO_FATAL_FAILURE(StartWithAStalledDownload(daemon, &fd));
	Reset(fd);
	ASSERT_TRUE(WaitUntil(
		[&] { return FetchMetrics(daemon.port())["send_pipes_recreated"] == 1; }))
		<< "the reset connection's pipe was not made anew";
	for (int i = 0; i < int(kPipes) + 2; i++) // every pipe of the pool, the new one too
		ExpectWhole(daemon.port(), "other.bin");
	int slow = ConnectLoopback(daemon.port(), 10000, kSmallWindow);
	ASSERT_TRUE(SendAll(slow, GetClose("/other.bin")));
	Received r = ReadInPieces(slow, kSlowPiece, kTimeoutMs);
	close(slow);
	EXPECT_TRUE(r.bytes == Expected(dir_ + "/other.bin", files_["other.bin"]));
	auto m = FetchMetrics(daemon.port());
	EXPECT_EQ(m["send_pipes_lost"], 0u);
	EXPECT_EQ(m["send_pipe_misses"], 0u);
}

// Huge pages for large bodies (BEHAVIOUR 10.17, huge_pages.h). A body of 5 MiB + 12,345
// bytes, alone in its arena from byte 0, overlaps three huge-page blocks of which two lie
// wholly inside the memfd: exactly those two are asked (huge_pages_joined +
// huge_pages_refused, once the supervisor has asked them after the first generation
// started serving; that sum counts the asking on every arch, qemu included).
// Natively, on a kernel that joins a memfd's pages (MemfdPagesJoin), both are joined, and
// once the body has been sent the serving process maps 2 blocks' worth as huge pages
// (one page-table entry each: ShmemPmdMapped). The bytes are exact.
TEST_F(SendPipesTest, LargeBodiesAreJoinedIntoHugePages)
{
	const size_t block = HugePageSize();
	if (block != 2 * kMiB)
		GTEST_SKIP() << "this kernel's huge page is " << block << " bytes, not 2 MiB";
	AddFile("large.bin", 5 * kMiB + 12345);
	Daemon daemon;
	StartDaemon(daemon);
	std::map<std::string, uint64_t> m;
	auto asked = [&] {
		m = FetchMetrics(daemon.port());
		return m["huge_pages_joined"] + m["huge_pages_refused"] >= 2;
	};
	ASSERT_TRUE(WaitUntil(asked)) << "the supervisor never asked for the huge pages";
	EXPECT_EQ(m["huge_pages_joined"] + m["huge_pages_refused"], 2u);
	ExpectWhole(daemon.port(), "large.bin"); /* its pages faulted into the mapping */
	if (DaemonLauncher().empty() && MemfdPagesJoin(block)) {
		EXPECT_EQ(m["huge_pages_joined"], 2u);
		EXPECT_GE(SmapsRollupKb(daemon.ServingPid(), "ShmemPmdMapped"),
			  static_cast<long>(2 * block / kKiB));
	}
}

// Bodies under 2 MiB (HUGE_JOIN_MIN, huge_pages.h: smaller ones got dearer to send from a
// huge page) ask for none: one body of exactly 2 MiB among three of 2 MiB - 1 (8 MiB:
// four whole blocks, every body from a 4 KiB boundary) lies in one block or straddles
// two, wherever the walk put it, so 1 or 2 are asked, never more. The count moving is
// the witness that the asking happened.
TEST_F(SendPipesTest, OnlyTheBlocksOfLargeBodiesAreAsked)
{
	constexpr size_t kJoinMin = 2 * kMiB; // HUGE_JOIN_MIN (huge_pages.h)
	if (HugePageSize() != 2 * kMiB)
		GTEST_SKIP() << "this kernel's huge page is not 2 MiB";
	AddFile("large.bin", kJoinMin);
	for (int i = 0; i < 3; i++)
		AddFile("small" + std::to_string(i) + ".bin", kJoinMin - 1);
	Daemon daemon;
	StartDaemon(daemon);
	uint64_t asked = 0;
	ASSERT_TRUE(WaitUntil([&] {
		auto m = FetchMetrics(daemon.port());
		asked = m["huge_pages_joined"] + m["huge_pages_refused"];
		return asked >= 1;
	})) << "the supervisor never asked for the large body's huge pages";
	EXPECT_LE(asked, 2u) << "blocks of bodies under the threshold were asked";
	ExpectWhole(daemon.port(), "large.bin");
	ExpectWhole(daemon.port(), "small0.bin");
}

// A reload while a download holds a pipe: the old generation finishes that body
// byte-exact through its own pool, and the new generation serves a download whole.
TEST(SendPipesReloadTest, AReloadWhileADownloadHoldsAPipe)
{
	REQUIRE_FEATURE("files");
	REQUIRE_FEATURE("stop");
	if (!DaemonLauncher().empty()) // as ReloadTest: a reload re-executes the image
		GTEST_SKIP() << "under an emulator the new image would be the emulator";
	const std::string stall = Random(kStallBody, 99);
	const std::string other = Random(kOtherBody, 98);
	ReloadDaemon d;
	ASSERT_EQ(d.Start({"--compress", "off"}, 0, {{"stall.bin", stall}, {"other.bin", other}}),
		  "");
	int fd = StalledDownload(d.port(), "/stall.bin");
	ASSERT_GE(fd, 0);
	ASSERT_TRUE(WaitUntil([&] { return FetchMetrics(d.port())["write_eagains"] > 0; }));
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(1), 0) << d.Err();
	Received fresh = Roundtrip(d.port(), GetClose("/other.bin"), false, kTimeoutMs);
	EXPECT_TRUE(fresh.bytes == Expected(d.root() + "/other.bin", other))
		<< "the new generation: got " << fresh.bytes.size() << " bytes";
	Received r = ReadUntilClose(fd, kTimeoutMs);
	close(fd);
	EXPECT_TRUE(r.bytes == Expected(d.root() + "/stall.bin", stall))
		<< "the old generation's download: got " << r.bytes.size() << " bytes";
	EXPECT_EQ(FetchMetrics(d.port())["send_pipes_recreated"], 0u);
}

} // namespace
} // namespace wire
